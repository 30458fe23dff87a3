//! Life through a wrap-around texture (seed 003's texture kernel, `conway_texture`):
//! checked, unchecked and the hand-written twin (`life.cu`'s `life_texture`, tex2D as
//! inline PTX), each stepping its own pair of textures: a generation reads one texture
//! and writes the other's memory, then the two swap. After the first generation every
//! lattice is compared with the CPU's, after the timed rounds with each other's; the
//! second texture of each pair starts poisoned (-1).

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::{AddressMode, Device, DeviceViewMut, LaunchConfig, Texture2D};

use crate::hand::cfg;
use crate::life_kernels::{checked, cpu_run, unchecked};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Res};

/// A contestant's lattice and the texture it writes next.
struct Pair {
    cur: Texture2D<i32>,
    next: Texture2D<i32>,
}

/// `conway_texture::launch` (checked or unchecked) for the memory of a texture.
type WsLaunch = fn(
    &Device,
    LaunchConfig,
    &mut DeviceViewMut<'_, i32>,
    &Texture2D<i32>,
    u32,
) -> warpspeed::Result<()>;

#[derive(Clone, Copy)]
enum Contestant<'a> {
    Checked,
    Unchecked,
    Hand(&'a CudaFunction),
}

/// One step per pair: the contestant's generation from `cur` into `next`, then swap.
fn steps<'a>(
    b: &'a Bench,
    contestants: &'a [Contestant<'a>],
    pairs: &'a mut [Pair],
    config: LaunchConfig,
) -> Vec<Step<'a>> {
    contestants
        .iter()
        .zip(pairs)
        .map(|(&c, p)| -> Step<'a> {
            Box::new(move || {
                let pitch = u32::try_from(p.next.pitch())?;
                match c {
                    Contestant::Checked | Contestant::Unchecked => {
                        let launch: WsLaunch = if matches!(c, Contestant::Checked) {
                            |d, c, o, t, p| checked::conway_texture::launch(d, c, o, t, p)
                        } else {
                            |d, c, o, t, p| unchecked::conway_texture::launch(d, c, o, t, p)
                        };
                        launch(&b.dev, config, &mut p.next.memory_mut(), &p.cur, pitch)?;
                    }
                    Contestant::Hand(f) => {
                        let out = p.next.cuda_device_ptr().ok_or("a GPU texture")?;
                        let tex = p.cur.cuda_texture_object().ok_or("a GPU texture")?;
                        let (w, h) = (
                            i32::try_from(p.cur.width())?,
                            i32::try_from(p.cur.height())?,
                        );
                        let mut l = b.stream.launch_builder(f);
                        l.arg(&out).arg(&tex).arg(&w).arg(&h).arg(&pitch);
                        // SAFETY: life_texture(int* out, unsigned long long tex, int w, int h,
                        // unsigned int pitch): `out` is the memory of `next` (h rows of `pitch`
                        // i32), `tex` the texture object of `cur`, a different texture of the
                        // same size; both live in `p` for the launch and after (the bench
                        // synchronises before dropping them); the grid covers w x h.
                        unsafe { l.launch(cfg(config)) }?;
                    }
                }
                std::mem::swap(&mut p.cur, &mut p.next);
                Ok(())
            })
        })
        .collect()
}

/// The texture Life at `n`^2: checked, unchecked, by hand.
pub fn row(b: &Bench, n: usize, lattice: &[i32]) -> Res<Row> {
    let f = b.hand.function("life.cu", "life_texture")?;
    let contestants = [
        Contestant::Checked,
        Contestant::Unchecked,
        Contestant::Hand(&f),
    ];
    let mut pairs = contestants
        .iter()
        .map(|_| -> Res<Pair> {
            Ok(Pair {
                cur: Texture2D::upload(&b.dev, lattice, n, n, AddressMode::Wrap)?,
                next: Texture2D::upload(&b.dev, &vec![-1; n * n], n, n, AddressMode::Wrap)?,
            })
        })
        .collect::<Res<Vec<_>>>()?;
    let blocks = u32::try_from(n.div_ceil(32))?;
    let config = LaunchConfig::new((blocks, blocks), (32, 32));
    for step in steps(b, &contestants, &mut pairs, config).iter_mut() {
        step()?;
    }
    let want = cpu_run(lattice, n, 1);
    for (i, p) in pairs.iter().enumerate() {
        b.check(
            &format!("life texture {n}^2, contestant {i}, generation 1, against the CPU"),
            &p.cur.download()?,
            &want,
            |v| v,
        );
    }
    let t = best_ms(b, &mut steps(b, &contestants, &mut pairs, config))?;
    let first = pairs[0].cur.download()?;
    for (i, p) in pairs.iter().enumerate().skip(1) {
        b.check(
            &format!(
                "life texture {n}^2, contestant {i} against the checked kernel, after the rounds"
            ),
            &p.cur.download()?,
            &first,
            |v| v,
        );
    }
    Ok(
        Row::new("life conway_texture", format!("{n}^2, per gen"), Unit::Ms)
            .times(t[0], Some(t[1]), Some(t[2]))
            .note(format!(
                "{:.0} Gcell/s",
                (n * n) as f64 / (t[0] * 1e-3) / 1e9
            )),
    )
}
