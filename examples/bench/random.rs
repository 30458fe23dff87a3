//! `warpspeed::algorithms::random` (issue 22): Philox4x32-10 fills of 2^28 uniform and
//! normal f32 (the library's launch, and the same launch of the `unchecked` kernel);
//! peers torch.rand / torch.randn (cuRAND's Philox) and cupy.random (its default
//! generator). Each fill's elements are checked, bit for bit, against the stream's
//! elements computed on the host at a sample of positions.

use warpspeed::algorithms::random::{self, fill_config, kernels};

use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &kernels::fill_uniform_f32::KERNEL),
        ("unchecked", &kernels::unchecked::fill_uniform_f32::KERNEL),
        ("checked", &kernels::fill_normal_f32::KERNEL),
        ("unchecked", &kernels::unchecked::fill_normal_f32::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let seed = 2026u64;
    let mut outs = [dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?];
    let cfg = fill_config(n, 0, 4);
    let mut rows = Vec::new();
    for normal in [false, true] {
        let t = {
            let [c, u] = &mut outs;
            let mut steps: Vec<Step> = if normal {
                vec![
                    Box::new(|| Ok(random::fill_normal_f32(dev, c, seed, 0)?)),
                    Box::new(|| {
                        Ok(kernels::unchecked::fill_normal_f32::launch(
                            dev, cfg, u, seed, 0,
                        )?)
                    }),
                ]
            } else {
                vec![
                    Box::new(|| Ok(random::fill_uniform_f32(dev, c, seed, 0)?)),
                    Box::new(|| {
                        Ok(kernels::unchecked::fill_uniform_f32::launch(
                            dev, cfg, u, seed, 0,
                        )?)
                    }),
                ]
            };
            best_ms(b, &mut steps)?
        };
        let what = if normal { "normal" } else { "uniform" };
        for (who, out) in ["checked", "unchecked"].iter().zip(&outs) {
            let got = out.download()?;
            for i in (0..n).step_by(n / 997).chain([n - 1]) {
                let want = if normal {
                    random::normal_f32_at(seed, i as u64)
                } else {
                    random::uniform_f32_at(seed, i as u64)
                };
                if got[i].to_bits() != want.to_bits() {
                    b.mismatch(format_args!(
                        "random {what} f32 ({who}) at {i}: {}, the host {want}",
                        got[i]
                    ));
                    break;
                }
            }
        }
        rows.push(
            Row::new(
                format!("random::fill_{what}_f32 (algorithms)"),
                format!("2^{log2} f32"),
                Unit::Ms,
            )
            .times(t[0], Some(t[1]), None)
            .peers(b.peers(&format!("{what}_2^{log2}_f32"), Unit::Ms))
            .note(format!(
                "{} written",
                b.bandwidth_note(4.0 * n as f64, t[0])
            )),
        );
    }
    Ok(rows)
}
