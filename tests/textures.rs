//! Textures (`Texture2D<T>` parameters, `tex.fetch(x, y)`) on the simulator and the GPU:
//! random texels of every element type fetched at in-range and out-of-range coordinates
//! (far out too: `i32::MIN`, `i32::MAX`) under wrap, clamp and border, checked against a
//! CPU reference of the addressing written here, with the outputs poisoned first; the
//! size a kernel reads (`width()`, `height()`); a kernel that computes a texture's next
//! texels into its memory (the pitch), read back through the texture; the texture Life
//! against the CPU Life for several generations; host errors; and NVRTC (with ptxas:
//! CUBIN for sm_90) compiling the emitted `tex.2d.v4` PTX, no GPU needed.

mod common;

#[path = "../examples/kernels/life.rs"]
mod life_kernels;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{AddressMode, Error, Texel, Texture2D};

/// `fetch_<T>(out, tex, xs, ys)`: `out[i] = tex.fetch(xs[i], ys[i])`.
macro_rules! fetch_kernel {
    ($name:ident, $t:ty) => {
        #[gpu_kernel]
        fn $name(out: &mut [$t], tex: &Texture2D<$t>, xs: &[i32], ys: &[i32]) {
            let i = grid_1d();
            if i < out.len() && i < xs.len() && i < ys.len() {
                out[i] = tex.fetch(xs[i], ys[i]);
            }
        }
    };
}

fetch_kernel!(fetch_f32, f32);
fetch_kernel!(fetch_u32, u32);
fetch_kernel!(fetch_i32, i32);
fetch_kernel!(fetch_u8, u8);
fetch_kernel!(fetch_i8, i8);
fetch_kernel!(fetch_u16, u16);
fetch_kernel!(fetch_i16, i16);

/// The size the kernel sees (a `usize`, as on the host), and a fetch whose coordinates
/// are computed from it.
#[gpu_kernel]
fn size_of_tex(out: &mut [i32], tex: Texture2D<i32>) {
    if grid_1d() == 0 {
        out[0] = tex.width() as i32;
        out[1] = tex.height() as i32;
        out[2] = tex.fetch(tex.width() as i32 - 1, tex.height() as i32);
    }
}

/// One step of a blur-like stencil that writes the next texels into another texture's
/// memory (rows `pitch` apart), as Life does.
#[gpu_kernel]
fn shift_sum(out: &mut [u32], src: &Texture2D<u32>, pitch: u32) {
    let (x, y) = grid_2d();
    if x < src.width() && y < src.height() {
        let v = src.fetch(x as i32 - 1, y as i32) + 2 * src.fetch(x as i32, y as i32 + 1);
        out[y * pitch as usize + x] = v;
    }
}

/// The addressing modes, written out independently of the runtime's: the texel index a
/// coordinate reads, or `None` for zero.
fn reference_index(mode: AddressMode, c: i32, n: usize) -> Option<usize> {
    let (c, n) = (i64::from(c), n as i64);
    match mode {
        AddressMode::Wrap => Some((((c % n) + n) % n) as usize),
        AddressMode::Clamp => Some(if c < 0 {
            0
        } else if c >= n {
            (n - 1) as usize
        } else {
            c as usize
        }),
        AddressMode::Border => {
            if c < 0 || c >= n {
                None
            } else {
                Some(c as usize)
            }
        }
    }
}

fn reference_fetch<T: Copy>(
    data: &[T],
    w: usize,
    h: usize,
    mode: AddressMode,
    x: i32,
    y: i32,
    zero: T,
) -> T {
    match (reference_index(mode, x, w), reference_index(mode, y, h)) {
        (Some(x), Some(y)) => data[y * w + x],
        _ => zero,
    }
}

/// Coordinates near and far from the texture: every offset in -2n..3n for small ones,
/// random ones in a wide range, and the extremes.
fn coordinates(rng: &mut Rng, w: usize, h: usize, count: usize) -> (Vec<i32>, Vec<i32>) {
    let special = [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX, i32::MAX - 1];
    let mut xs = Vec::with_capacity(count);
    let mut ys = Vec::with_capacity(count);
    for i in 0..count {
        let pick = |rng: &mut Rng, n: usize| -> i32 {
            match rng.next_u64() % 8 {
                0 => special[(rng.next_u64() % special.len() as u64) as usize],
                1 => (rng.next_u64() % 2_000_001) as i32 - 1_000_000,
                2 => n as i32 - 1 + (rng.next_u64() % 3) as i32, // n - 1, n, n + 1
                _ => (rng.next_u64() % (5 * n as u64)) as i32 - 2 * n as i32,
            }
        };
        if i < 4 * w {
            // Every column from -w to 3w once, on a random row.
            xs.push(i as i32 - w as i32);
            ys.push(pick(rng, h));
        } else {
            xs.push(pick(rng, w));
            ys.push(pick(rng, h));
        }
    }
    (xs, ys)
}

type FetchLaunch<T> = fn(
    &Device,
    LaunchConfig,
    &mut DeviceBuffer<T>,
    &Texture2D<T>,
    &DeviceBuffer<i32>,
    &DeviceBuffer<i32>,
) -> warpspeed::Result<()>;

/// Random texels (`gen`), every mode, three sizes (37 x 23's rows need padding to the
/// pitch alignment): each fetch against the reference, bit for bit, outputs poisoned
/// with `poison`.
fn check_fetches<T: Texel + std::fmt::Debug>(
    name: &str,
    launch: FetchLaunch<T>,
    gen: fn(&mut Rng) -> T,
    poison: T,
) {
    for dev in devices(name) {
        let mut rng = Rng::new(0x7e57 + name.len() as u64);
        for (w, h) in [(37usize, 23usize), (64, 5), (1, 1)] {
            let data: Vec<T> = (0..w * h).map(|_| gen(&mut rng)).collect();
            let (xs, ys) = coordinates(&mut rng, w, h, 4 * w + 600);
            let (dxs, dys) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
            for mode in [AddressMode::Wrap, AddressMode::Clamp, AddressMode::Border] {
                let tex = Texture2D::upload(&dev, &data, w, h, mode).unwrap();
                let bits = |v: &[T]| v.iter().map(|t| t.to_bits128()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&tex.download().unwrap()),
                    bits(&data),
                    "{name}: round trip"
                );
                assert!(tex.pitch() >= w);
                let mut out = dev.upload(&vec![poison; xs.len()]).unwrap();
                let cfg = LaunchConfig::new((xs.len() as u32).div_ceil(128), 128);
                launch(&dev, cfg, &mut out, &tex, &dxs, &dys).unwrap();
                let got = out.download().unwrap();
                for (i, g) in got.iter().enumerate() {
                    let want = reference_fetch(&data, w, h, mode, xs[i], ys[i], T::from_bits128(0));
                    assert_eq!(
                        g.to_bits128(),
                        want.to_bits128(),
                        "{name} on {:?}, {w} x {h}, {mode:?}: fetch({}, {}) gave {g:?}, expected {want:?}",
                        dev.backend(),
                        xs[i],
                        ys[i]
                    );
                }
            }
        }
    }
}

#[test]
fn fetch_f32() {
    // Random bits, NaNs and negative zeros included: a texture read moves bits.
    check_fetches(
        "fetch_f32",
        fetch_f32::launch,
        |r| {
            let f = f32::from_bits(r.next_u64() as u32);
            if f.is_nan() {
                1.5
            } else {
                f
            }
        },
        f32::from_bits(0x7fc0_dead),
    );
}

#[test]
fn fetch_u32() {
    check_fetches(
        "fetch_u32",
        fetch_u32::launch,
        |r| r.next_u64() as u32,
        0xdead_beef,
    );
}

#[test]
fn fetch_i32() {
    check_fetches(
        "fetch_i32",
        fetch_i32::launch,
        |r| r.next_u64() as i32,
        -12345,
    );
}

#[test]
fn fetch_u8() {
    // The top bit set in half of them: a read that sign-extends shows.
    check_fetches("fetch_u8", fetch_u8::launch, |r| r.next_u64() as u8, 0xee);
}

#[test]
fn fetch_i8() {
    check_fetches("fetch_i8", fetch_i8::launch, |r| r.next_u64() as i8, 99);
}

#[test]
fn fetch_u16() {
    check_fetches(
        "fetch_u16",
        fetch_u16::launch,
        |r| r.next_u64() as u16,
        0xeeee,
    );
}

#[test]
fn fetch_i16() {
    check_fetches(
        "fetch_i16",
        fetch_i16::launch,
        |r| r.next_u64() as i16,
        4321,
    );
}

#[test]
fn kernel_sees_the_size() {
    for dev in devices("kernel_sees_the_size") {
        let (w, h) = (13usize, 7usize);
        let data: Vec<i32> = (0..(w * h) as i32).map(|v| v * 3 + 1).collect();
        for mode in [AddressMode::Wrap, AddressMode::Clamp, AddressMode::Border] {
            let tex = Texture2D::upload(&dev, &data, w, h, mode).unwrap();
            let mut out = dev.upload(&[-7i32; 3]).unwrap();
            size_of_tex::launch(&dev, LaunchConfig::new(1, 32), &mut out, &tex).unwrap();
            let want = reference_fetch(&data, w, h, mode, w as i32 - 1, h as i32, 0);
            assert_eq!(out.download().unwrap(), vec![w as i32, h as i32, want]);
        }
    }
}

/// A kernel writes the next texels into a second texture's memory (with its pitch), the
/// two swap, and so on: the texture reads what the kernel wrote, padding never read.
#[test]
fn stencil_through_memory_mut() {
    for dev in devices("stencil_through_memory_mut") {
        let (w, h) = (45usize, 19usize);
        let mut rng = Rng::new(45);
        let mut host: Vec<u32> = (0..w * h).map(|_| rng.next_u64() as u32 % 1000).collect();
        let mut a = Texture2D::upload(&dev, &host, w, h, AddressMode::Wrap).unwrap();
        let mut b = Texture2D::new(&dev, w, h, AddressMode::Wrap).unwrap();
        b.memory_mut().fill(0xffff_ffff).unwrap(); // poison, padding included
        let cfg = LaunchConfig::new(((w as u32).div_ceil(16), (h as u32).div_ceil(16)), (16, 16));
        for _ in 0..5 {
            let pitch = b.pitch() as u32;
            shift_sum::launch(&dev, cfg, &mut b.memory_mut(), &a, pitch).unwrap();
            std::mem::swap(&mut a, &mut b);
            let mut next = vec![0u32; w * h];
            for y in 0..h {
                for x in 0..w {
                    let l = host[y * w + (x + w - 1) % w];
                    let d = host[((y + 1) % h) * w + x];
                    next[y * w + x] = l.wrapping_add(d.wrapping_mul(2));
                }
            }
            host = next;
            assert_eq!(a.download().unwrap(), host);
        }
    }
}

/// `from_buffer` and `copy_from` copy a packed buffer in (rows padded to the pitch).
#[test]
fn from_buffer_and_copy_from() {
    for dev in devices("from_buffer_and_copy_from") {
        let (w, h) = (33usize, 9usize);
        let first: Vec<u8> = (0..w * h).map(|i| (i * 7) as u8).collect();
        let second: Vec<u8> = (0..w * h).map(|i| (i * 13 + 5) as u8).collect();
        let buf = dev.upload(&first).unwrap();
        let mut tex = Texture2D::from_buffer(&buf, w, h, AddressMode::Clamp).unwrap();
        assert_eq!(tex.download().unwrap(), first);
        tex.copy_from(&dev.upload(&second).unwrap()).unwrap();
        assert_eq!(tex.download().unwrap(), second);
        assert_eq!(tex.memory().len(), tex.pitch() * h);
        // The pitch is a whole number of the alignment (32 bytes on the simulator and
        // the GPUs warpspeed knows), at least one row.
        assert!(tex.pitch() >= w && tex.pitch() % 32 == 0, "{}", tex.pitch());
    }
}

#[test]
fn host_errors() {
    for dev in devices("host_errors") {
        let e = Texture2D::upload(&dev, &[1u8; 10], 4, 3, AddressMode::Wrap).unwrap_err();
        assert!(
            matches!(
                e,
                Error::LengthMismatch {
                    expected: 12,
                    found: 10,
                    ..
                }
            ),
            "{e}"
        );
        let e = Texture2D::<f32>::new(&dev, 0, 3, AddressMode::Clamp).unwrap_err();
        assert!(matches!(e, Error::InvalidTexture { .. }), "{e}");
        let e = Texture2D::<f32>::new(&dev, 1 << 20, 1, AddressMode::Clamp).unwrap_err();
        assert!(
            matches!(e, Error::InvalidTexture { .. }) && e.to_string().contains("at most"),
            "{e}"
        );
        let buf = dev.upload(&[0i32; 20]).unwrap();
        let e = Texture2D::from_buffer(&buf, 5, 5, AddressMode::Border).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
        let mut tex = Texture2D::<i32>::new(&dev, 4, 4, AddressMode::Border).unwrap();
        let e = tex.copy_from(&buf).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    }
}

/// A texture of one backend passed to a launch on the other: refused like a buffer is
/// (needs a GPU beside the simulator).
#[test]
fn texture_of_another_device() {
    let devs = devices("texture_of_another_device");
    let [sim, gpu] = devs.as_slice() else {
        return;
    };
    for (tex_dev, launch_dev) in [(sim, gpu), (gpu, sim)] {
        let tex = Texture2D::upload(tex_dev, &[1i32; 4], 2, 2, AddressMode::Wrap).unwrap();
        let mut out = launch_dev.zeros::<i32>(3).unwrap();
        let e =
            size_of_tex::launch(launch_dev, LaunchConfig::new(1, 1), &mut out, &tex).unwrap_err();
        assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    }
}

/// Seed 003's texture Life on a wrap-around texture, several generations, against the
/// CPU's Life, on lattices that are and are not multiples of the 32x32 block.
#[test]
fn texture_life_matches_cpu() {
    for dev in devices("texture_life_matches_cpu") {
        for (n, gens) in [(50usize, 12usize), (64, 5), (7, 9)] {
            let mut rng = Rng::new(n as u64);
            let initial: Vec<i32> = (0..n * n)
                .map(|_| i32::from(rng.next_u64() >> 62 == 0))
                .collect();
            let mut a = Texture2D::upload(&dev, &initial, n, n, AddressMode::Wrap).unwrap();
            let mut b = Texture2D::upload(&dev, &vec![-1; n * n], n, n, AddressMode::Wrap).unwrap();
            let blocks = (n as u32).div_ceil(32);
            let cfg = LaunchConfig::new((blocks, blocks), (32, 32));
            for g in 0..gens {
                let pitch = b.pitch() as u32;
                // Checked and unchecked kernels alternate: both compute the same Life.
                if g % 2 == 0 {
                    life_kernels::conway_texture::launch(&dev, cfg, &mut b.memory_mut(), &a, pitch)
                } else {
                    life_kernels::unchecked::conway_texture::launch(
                        &dev,
                        cfg,
                        &mut b.memory_mut(),
                        &a,
                        pitch,
                    )
                }
                .unwrap();
                std::mem::swap(&mut a, &mut b);
            }
            let want = life_kernels::cpu_run(&initial, n, gens);
            assert_eq!(a.download().unwrap(), want, "{n}^2, {gens} generations");
        }
    }
}

/// NVRTC compiles the texture fetch to CUBIN for sm_75 and sm_90 (NVRTC runs ptxas, which
/// checks the inline PTX), and the PTX reads through the texture unit, one instruction per
/// element kind.
#[test]
fn nvrtc_compiles_the_texture_fetch() {
    let c = &*fetch_u8::CUDA_SOURCE;
    assert!(!c.contains("#include"), "{c}");
    assert!(
        c.contains("ws_tex2d_fetch<unsigned char>(tex, tex_width, tex_height, tex_mode"),
        "{c}"
    );
    let kernels = [
        // f32 texels are read as their bits.
        (&fetch_f32::KERNEL, "tex.2d.v4.u32.f32"),
        (&fetch_u32::KERNEL, "tex.2d.v4.u32.f32"),
        (&fetch_i32::KERNEL, "tex.2d.v4.s32.f32"),
        (&fetch_u8::KERNEL, "tex.2d.v4.u32.f32"),
        (&fetch_i8::KERNEL, "tex.2d.v4.s32.f32"),
        (&fetch_u16::KERNEL, "tex.2d.v4.u32.f32"),
        (&fetch_i16::KERNEL, "tex.2d.v4.s32.f32"),
        (&life_kernels::conway_texture::KERNEL, "tex.2d.v4.s32.f32"),
        (
            &life_kernels::unchecked::conway_texture::KERNEL,
            "tex.2d.v4.s32.f32",
        ),
    ];
    let named: Vec<_> = kernels.iter().map(|(k, _)| (k.rust_name, *k)).collect();
    common::nvrtc_compiles(&named);
    if !warpspeed::compile::nvrtc_available() {
        return; // said by nvrtc_compiles
    }
    for (k, want) in kernels {
        let ptx = warpspeed::compile::compile_ptx(k.source.as_str(), (9, 0), k.options).unwrap();
        assert!(ptx.contains(want), "{}: no {want} in\n{ptx}", k.rust_name);
    }
}
