//! Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel
//! Random Numbers: As Easy as 1, 2, 3", SC 2011; Random123's `philox4x32_10`, the
//! generator behind cuRAND's and torch's Philox), as device functions any kernel calls and
//! as bulk fills of buffers and views.
//!
//! **Stateless.** A stream is a 64-bit `seed`; its element `i` is a function of
//! `(seed, i)` alone: the 4 words of Philox block `i / 4` (counter `i / 4`, key `seed`),
//! word `i % 4` of it (for f64, block `i / 2`, words `2 (i % 2)` and `2 (i % 2) + 1`). So a
//! fill of `out` with `(seed, offset)` writes element `offset + j` of the stream at
//! `out[j]`, whatever the launch shape, the device or the backend: the simulator and the
//! GPU draw the same numbers, bit for bit, and so does the host calling the device
//! functions ([`uniform_f32_at`](fn@uniform_f32_at) and the others run on the host as plain Rust).
//!
//! **Values.**
//! - uniform `f32` in `[0, 1)`: the word's top 24 bits times 2^-24 (every value a multiple
//!   of 2^-24, as torch.rand's);
//! - uniform `f64` in `[0, 1)`: the top 53 bits of two words (`w0 << 32 | w1`) times 2^-53;
//! - normal (mean 0, deviation 1): Box-Muller on two uniforms, `u1` in `(0, 1]` (no
//!   `ln 0`), `r = sqrt(-2 ln u1)`, `(r cos 2πu2, r sin 2πu2)`. The logarithm, sine and cosine
//!   are this module's own polynomials in exact IEEE arithmetic (`+ - * /` and `sqrt` round
//!   the same on both sides, and warpspeed never fuses), not the math library's, whose
//!   results differ by an ulp between CUDA and the CPU: within 2 ulp or so of the true
//!   functions, and identical everywhere.

use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceViewMut, LaunchTarget, Result};

/// The Philox4x32 multipliers and Weyl key increments (Random123's constants).
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32-10: the 4 words of counter `ctr` under `key` (ten rounds, the key bumped by
/// the Weyl constants between them). Random123's known answers hold: counter 0, key 0 give
/// `6627e8d5 e169c58d bc57ac4c 9b00dbd8`.
#[gpu_device]
pub fn philox4x32_10(ctr: u32x4, key: u32x2) -> u32x4 {
    let mut c = ctr;
    let mut k = key;
    let mut r = 0u32;
    while r < 10 {
        let p0 = M0 as u64 * c.x as u64;
        let p1 = M1 as u64 * c.z as u64;
        c = u32x4::new(
            (p1 >> 32) as u32 ^ c.y ^ k.x,
            p1 as u32,
            (p0 >> 32) as u32 ^ c.w ^ k.y,
            p0 as u32,
        );
        k = u32x2::new(k.x + W0, k.y + W1);
        r += 1;
    }
    c
}

/// Block `counter` of the stream `seed`: [`philox4x32_10`](fn@philox4x32_10) of the counter `(counter, 0)`
/// under the key `seed` (each split into 32-bit halves, low first).
#[gpu_device]
pub fn philox_block(seed: u64, counter: u64) -> u32x4 {
    philox4x32_10(
        u32x4::new(counter as u32, (counter >> 32) as u32, 0, 0),
        u32x2::new(seed as u32, (seed >> 32) as u32),
    )
}

/// A word as a uniform `f32` in `[0, 1)`: its top 24 bits times 2^-24.
#[gpu_device]
pub fn to_uniform_f32(bits: u32) -> f32 {
    (bits >> 8) as f32 * 5.960_464_5e-8
}

/// Two words as a uniform `f64` in `[0, 1)`: the top 53 bits of `hi << 32 | lo` times
/// 2^-53.
#[gpu_device]
pub fn to_uniform_f64(hi: u32, lo: u32) -> f64 {
    (((hi as u64) << 32 | lo as u64) >> 11) as f64 * 1.110_223_024_625_156_5e-16
}

/// `ln(u)` for a positive, finite `f32`: `u = m 2^e` with `m` in `[√½, √2)`, `ln m =
/// 2 atanh((m - 1) / (m + 1))` by its series to `s^9`, `e ln 2` in two parts.
#[gpu_device]
fn ln_f32(u: f32) -> f32 {
    let bits = u.to_bits();
    let mut e = ((bits >> 23) & 255) as i32 - 127;
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > 1.414_213_5 {
        m = m * 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let poly = s2 * (0.666_666_7 + s2 * (0.4 + s2 * (0.285_714_3 + s2 * 0.222_222_22)));
    let ln_m = 2.0 * s + s * poly;
    let ef = e as f32;
    ef * 0.693_145_75 + (ef * 1.428_606_8e-6 + ln_m)
}

/// `(sin 2πu, cos 2πu)` for `u` in `[0, 1]`: `u = k/4 + r` with `k` the nearest quarter and
/// `|r| <= 1/8` (both exact), the Taylor polynomials of `θ = 2πr` on `[-π/4, π/4]`, and
/// the quadrant's signs.
#[gpu_device]
fn sin_cos_2pi_f32(u: f32) -> (f32, f32) {
    let k = (u * 4.0 + 0.5).floor();
    let r = u - k * 0.25;
    let t = r * 6.283_185_5;
    let t2 = t * t;
    let s = t + t
        * t2
        * (-0.166_666_67 + t2 * (0.008_333_334 + t2 * (-0.000_198_412_7 + t2 * 2.755_731_9e-6)));
    let c =
        1.0 + t2 * (-0.5 + t2 * (0.041_666_668 + t2 * (-0.001_388_888_9 + t2 * 2.480_158_7e-5)));
    quadrant((k as u32) & 3, s, c)
}

/// `(sin, cos)` of `q π/2 + θ` from `(s, c)`, those of `θ`: quadrant `q` (0 to 3) swaps
/// and negates them.
#[gpu_device]
fn quadrant<T: Float>(q: u32, s: T, c: T) -> (T, T) {
    if q == 0 {
        (s, c)
    } else if q == 1 {
        (c, -s)
    } else if q == 2 {
        (-s, -c)
    } else {
        (-c, s)
    }
}

/// Box-Muller: two words as two independent standard normal `f32`s.
#[gpu_device]
pub fn box_muller_f32(a: u32, b: u32) -> (f32, f32) {
    // `u1` in (0, 1]: never 0, so the logarithm is finite.
    let u1 = ((a >> 8) + 1) as f32 * 5.960_464_5e-8;
    let r = (-2.0 * ln_f32(u1)).sqrt();
    let (s, c) = sin_cos_2pi_f32(to_uniform_f32(b));
    (r * c, r * s)
}

/// `ln(u)` for a positive, finite `f64`, as [`ln_f32`](fn@ln_f32) with the series to `s^19`.
#[gpu_device]
fn ln_f64(u: f64) -> f64 {
    let bits = u.to_bits();
    let mut e = ((bits >> 52) & 2047) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > 1.414_213_562_373_095_1 {
        m = m * 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut poly = 2.0 / 19.0;
    let mut j = 17i32;
    while j >= 3 {
        poly = 2.0 / j as f64 + s2 * poly;
        j -= 2;
    }
    let ln_m = 2.0 * s + s * (s2 * poly);
    let ef = e as f64;
    ef * 6.931_471_803_691_238_2e-1 + (ef * 1.908_214_929_270_587_7e-10 + ln_m)
}

/// `(sin 2πu, cos 2πu)` for `u` in `[0, 1]` in `f64`, as [`sin_cos_2pi_f32`](fn@sin_cos_2pi_f32) with the
/// polynomials to `θ^17` and `θ^18`.
#[gpu_device]
fn sin_cos_2pi_f64(u: f64) -> (f64, f64) {
    let k = (u * 4.0 + 0.5).floor();
    let r = u - k * 0.25;
    let t = r * 6.283_185_307_179_586;
    let t2 = t * t;
    // Horner from the highest term: sin t = t Σ (-1)^j t^2j / (2j+1)!, cos t = Σ (-1)^j
    // t^2j / (2j)!.
    let mut sp = 0.0f64;
    let mut cp = 0.0f64;
    let mut j = 9i32;
    while j >= 1 {
        let sn = (2 * j) as f64 * (2 * j + 1) as f64;
        let cn = (2 * j - 1) as f64 * (2 * j) as f64;
        sp = (1.0 - t2 * sp) / sn;
        cp = (1.0 - t2 * cp) / cn;
        j -= 1;
    }
    let s = t * (1.0 - t2 * sp);
    let c = 1.0 - t2 * cp;
    quadrant((k as u32) & 3, s, c)
}

/// Box-Muller in `f64`: four words (two uniforms of 53 bits) as two standard normals.
#[gpu_device]
pub fn box_muller_f64(w: u32x4) -> (f64, f64) {
    let u1 = ((((w.x as u64) << 32 | w.y as u64) >> 11) + 1) as f64 * 1.110_223_024_625_156_5e-16;
    let r = (-2.0 * ln_f64(u1)).sqrt();
    let (s, c) = sin_cos_2pi_f64(to_uniform_f64(w.z, w.w));
    (r * c, r * s)
}

/// Word `i % 4` of a block.
#[gpu_device]
fn word(w: u32x4, j: u64) -> u32 {
    if j == 0 {
        w.x
    } else if j == 1 {
        w.y
    } else if j == 2 {
        w.z
    } else {
        w.w
    }
}

/// Element `i` of the uniform `f32` stream `seed`: what a fill with `(seed, 0)` writes at
/// `i`.
#[gpu_device]
pub fn uniform_f32_at(seed: u64, i: u64) -> f32 {
    to_uniform_f32(word(philox_block(seed, i / 4), i % 4))
}

/// Element `i` of the uniform `f64` stream `seed`.
#[gpu_device]
pub fn uniform_f64_at(seed: u64, i: u64) -> f64 {
    let w = philox_block(seed, i / 2);
    if i % 2 == 0 {
        to_uniform_f64(w.x, w.y)
    } else {
        to_uniform_f64(w.z, w.w)
    }
}

/// Element `i` of the normal `f32` stream `seed`: block `i / 4`'s words `(x, y)` give
/// elements `4b`, `4b + 1`, `(z, w)` the next two.
#[gpu_device]
pub fn normal_f32_at(seed: u64, i: u64) -> f32 {
    let w = philox_block(seed, i / 4);
    let j = i % 4;
    let (z0, z1) = if j < 2 {
        box_muller_f32(w.x, w.y)
    } else {
        box_muller_f32(w.z, w.w)
    };
    if j % 2 == 0 {
        z0
    } else {
        z1
    }
}

/// Element `i` of the normal `f64` stream `seed`: block `i / 2` gives elements `2b` and
/// `2b + 1`.
#[gpu_device]
pub fn normal_f64_at(seed: u64, i: u64) -> f64 {
    let (z0, z1) = box_muller_f64(philox_block(seed, i / 2));
    if i % 2 == 0 {
        z0
    } else {
        z1
    }
}

/// A block's four uniform `f32`s.
#[gpu_device]
pub fn uniform4_f32(w: u32x4) -> (f32, f32, f32, f32) {
    (
        to_uniform_f32(w.x),
        to_uniform_f32(w.y),
        to_uniform_f32(w.z),
        to_uniform_f32(w.w),
    )
}

/// A block's two uniform `f64`s.
#[gpu_device]
pub fn uniform2_f64(w: u32x4) -> (f64, f64) {
    (to_uniform_f64(w.x, w.y), to_uniform_f64(w.z, w.w))
}

/// A block's four normal `f32`s.
#[gpu_device]
pub fn normal4_f32(w: u32x4) -> (f32, f32, f32, f32) {
    let (a, b) = box_muller_f32(w.x, w.y);
    let (c, d) = box_muller_f32(w.z, w.w);
    (a, b, c, d)
}

/// The fill kernels: each thread draws one Philox block a step, a warp 32 consecutive ones;
/// the warp passes its `32 per` values through shared memory so that its stores are
/// coalesced (lane `l` stores the warp's elements `l`, `l + 32`, ..: written straight, each
/// lane's `per` consecutive values made every store instruction touch `per` times the
/// lines). A grid-stride loop over the warps' groups of blocks covers
/// `offset..offset + n`. Blocks of 256 threads; `$mask` = `per - 1`, `$stage` = `256 per`
/// (literals, which the bounds prover reads).
macro_rules! fill_kernel {
    ($name:ident, $t:ty, $per:literal, $mask:literal, $stage:literal, |$w:ident| ($($v:ident),*) = $draw:expr $(, $opt:ident)?) => {
        /// Elements `offset..offset + out.len()` of the stream `seed` into `out`.
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)?)]
        pub fn $name(out: &mut [$t], seed: u64, offset: u64) {
            let stage = SharedArray::<$t, $stage>::new();
            let n = out.len();
            if n == 0 {
                return;
            }
            let lane = thread_idx().x as usize & 31;
            let warp = (thread_idx().x as usize / 32) & 7;
            let own = warp * (32 * $per);
            let off = offset as usize;
            let first = off / $per;
            let blocks = (off + n - 1) / $per - first + 1;
            // This warp's first group of 32 blocks, and the step between its groups.
            let mut group = grid_1d() / 32;
            let step = grid_stride_1d() / 32;
            while group * 32 < blocks {
                let blk = group * 32 + lane;
                let $w = philox_block(seed, (first + blk) as u64);
                let ($($v),*) = $draw;
                let vals = [$($v),*];
                let mut j = 0usize;
                while j < $per {
                    stage[own + lane * $per + (j & $mask)] = vals[j & $mask];
                    j += 1;
                }
                sync_warp(0xffff_ffff);
                let base = (first + group * 32) * $per;
                let mut k = 0usize;
                while k < $per {
                    let e = 32 * (k & $mask) + lane;
                    let p = base + e;
                    if p >= off && p - off < n {
                        out[p - off] = stage[own + e];
                    }
                    k += 1;
                }
                sync_warp(0xffff_ffff);
                group += step;
            }
        }
    };
}

/// The bulk fills' kernels (launched by [`fill_uniform_f32`](fn@fill_uniform_f32) and the others).
// The kernels' generated docs link `self::launch`, which rustdoc resolves where
// `fill_kernel!` is defined (as `crate::kernels` says).
#[allow(rustdoc::broken_intra_doc_links)]
pub mod kernels {
    use super::*;
    fill_kernel!(fill_uniform_f32, f32, 4, 3, 1024, |w| (a, b, c, d) =
        uniform4_f32(w));
    fill_kernel!(fill_normal_f32, f32, 4, 3, 1024, |w| (a, b, c, d) =
        normal4_f32(w));
    fill_kernel!(fill_uniform_f64, f64, 2, 1, 512, |w| (a, b) =
        uniform2_f64(w));
    fill_kernel!(fill_normal_f64, f64, 2, 1, 512, |w| (a, b) =
        box_muller_f64(w));

    /// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
    pub mod unchecked {
        use super::super::*;
        fill_kernel!(
            fill_uniform_f32,
            f32,
            4,
            3,
            1024,
            |w| (a, b, c, d) = uniform4_f32(w),
            unchecked
        );
        fill_kernel!(
            fill_normal_f32,
            f32,
            4,
            3,
            1024,
            |w| (a, b, c, d) = normal4_f32(w),
            unchecked
        );
        fill_kernel!(
            fill_uniform_f64,
            f64,
            2,
            1,
            512,
            |w| (a, b) = uniform2_f64(w),
            unchecked
        );
        fill_kernel!(
            fill_normal_f64,
            f64,
            2,
            1,
            512,
            |w| (a, b) = box_muller_f64(w),
            unchecked
        );
    }
}

/// Threads a block of the fills.
const BLOCK: u32 = 256;
/// The most blocks of a fill's grid.
const MAX_FILL_BLOCKS: u64 = 2048;

/// The grid of a fill of `n` elements from `offset`, `per` elements a Philox block (4 for
/// `f32`, 2 for `f64`).
pub fn fill_config(n: usize, offset: u64, per: u64) -> LaunchConfig {
    let first = offset / per;
    let last = (offset + n.max(1) as u64 - 1) / per;
    // One thread a Philox block, at most MAX_FILL_BLOCKS blocks of threads: each thread
    // then loops over several (short-lived threads cost more to start than the few
    // instructions of a uniform draw).
    let threads = last - first + 1;
    let blocks = threads.div_ceil(u64::from(BLOCK)).clamp(1, MAX_FILL_BLOCKS);
    LaunchConfig::new(blocks as u32, BLOCK)
}

/// `offset + out.len()` must not wrap: the stream's elements are numbered by `u64`.
fn check_range(what: &str, n: usize, offset: u64) -> Result<()> {
    if offset.checked_add(n as u64).is_none() {
        return Err(Error::InvalidArgument {
            what: format!("random::{what}"),
            reason: format!(
                "offset {offset} + {n} elements passes the end of the stream (2^64 elements)"
            ),
        });
    }
    Ok(())
}

macro_rules! fill_fn {
    ($(#[$doc:meta])* $name:ident, $kernel:ident, $t:ty, $per:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] when `offset + out.len()` passes 2^64 (before
        /// anything is launched), and whatever the launch returns.
        pub fn $name(
            target: &impl LaunchTarget,
            out: &mut impl AsDeviceViewMut<Elem = $t>,
            seed: u64,
            offset: u64,
        ) -> Result<()> {
            check_range(stringify!($name), out.len(), offset)?;
            if out.is_empty() {
                return Ok(());
            }
            let cfg = fill_config(out.len(), offset, $per);
            kernels::$kernel::launch(target, cfg, out, seed, offset)
        }
    };
}

fill_fn!(
    /// Fills `out` with elements `offset..` of the uniform `f32` stream `seed` (values in
    /// `[0, 1)`, multiples of 2^-24), queued on `target` without waiting.
    ///
    /// ```
    /// use warpspeed::algorithms::random;
    /// use warpspeed::prelude::*;
    ///
    /// # fn main() -> Result<(), Error> {
    /// let dev = Device::simulator();
    /// let mut x = dev.zeros::<f32>(1000)?;
    /// random::fill_uniform_f32(&dev, &mut x, 42, 0)?;
    /// let x = x.download()?;
    /// assert!(x.iter().all(|&v| (0.0..1.0).contains(&v)));
    /// // Element 10 of the stream, on the host: the same bits.
    /// assert_eq!(x[10], random::uniform_f32_at(42, 10));
    /// # Ok(())
    /// # }
    /// ```
    fill_uniform_f32, fill_uniform_f32, f32, 4
);
fill_fn!(
    /// Fills `out` with elements `offset..` of the normal `f32` stream `seed` (mean 0,
    /// deviation 1; Box-Muller), queued without waiting.
    fill_normal_f32, fill_normal_f32, f32, 4
);
fill_fn!(
    /// Fills `out` with elements `offset..` of the uniform `f64` stream `seed` (values in
    /// `[0, 1)`, multiples of 2^-53), queued without waiting.
    fill_uniform_f64, fill_uniform_f64, f64, 2
);
fill_fn!(
    /// Fills `out` with elements `offset..` of the normal `f64` stream `seed`, queued
    /// without waiting.
    fill_normal_f64, fill_normal_f64, f64, 2
);
