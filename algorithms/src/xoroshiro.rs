//! xoroshiro128+ random numbers with one state per thread, as Numba's
//! `numba.cuda.random` has them (Blackman and Vigna's generator, seeded by splitmix64):
//! [`create_xoroshiro128p_states`] makes `n` states on a device, and the device functions
//! [`xoroshiro128p_uniform_f32`](fn@xoroshiro128p_uniform_f32),
//! [`xoroshiro128p_uniform_f64`](fn@xoroshiro128p_uniform_f64),
//! [`xoroshiro128p_normal_f32`](fn@xoroshiro128p_normal_f32),
//! [`xoroshiro128p_normal_f64`](fn@xoroshiro128p_normal_f64) and
//! [`xoroshiro128p_next`](fn@xoroshiro128p_next) draw from `states[index]` in any kernel
//! and advance it, as Numba's `xoroshiro128p_uniform_float32(states, index)` does.
//!
//! ```
//! use warpspeed::algorithms::xoroshiro::*;
//! use warpspeed::prelude::*;
//!
//! #[gpu_kernel]
//! fn compute_pi(states: &mut [Xoroshiro128p], iterations: u32, out: &mut [f32]) {
//!     let t = grid_1d();
//!     if t < out.len() {
//!         let mut inside = 0u32;
//!         let mut i = 0u32;
//!         while i < iterations {
//!             let x = xoroshiro128p_uniform_f32(states, t);
//!             let y = xoroshiro128p_uniform_f32(states, t);
//!             if x * x + y * y <= 1.0 {
//!                 inside += 1;
//!             }
//!             i += 1;
//!         }
//!         out[t] = 4.0 * inside as f32 / iterations as f32;
//!     }
//! }
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::simulator();
//! let mut states = create_xoroshiro128p_states(&dev, 64, 1)?;
//! let mut out = dev.zeros::<f32>(64)?;
//! compute_pi::launch(&dev, LaunchConfig::for_num_elems(64), &mut states, 200, &mut out)?;
//! let pi = out.download()?.iter().sum::<f32>() / 64.0;
//! assert!((pi - std::f32::consts::PI).abs() < 0.05);
//! # Ok(())
//! # }
//! ```
//!
//! **The same numbers as Numba** where Numba's are well defined: the states of
//! `create_xoroshiro128p_states(n, seed, subsequence_start)` (state 0: `s0 = s1 =` the first
//! splitmix64 output of `seed`, jumped `subsequence_start` times; state `i`: state `i - 1`
//! jumped once; a jump is 2^64 steps), the raw words of
//! [`xoroshiro128p_next`](fn@xoroshiro128p_next) and the uniform `f64`s (`(x >> 11) 2^-53`)
//! are Numba's bit for bit. Three deliberate differences:
//! - uniform `f32` is the word's top 24 bits times 2^-24, always in `[0, 1)`. Numba rounds
//!   the uniform `f64` to `f32`, which gives `1.0` once in 2^25 draws (every `f64` in
//!   `[1 - 2^-25, 1)` rounds up), outside its documented `[0, 1)`.
//! - the normals take `u1` in `(0, 1]` (the word's top bits plus one), so the logarithm is
//!   never `ln 0` (Numba's `-inf`, a normal of `inf` or NaN once in 2^24 `f32` draws), and
//!   `f64` normals draw two uniform `f64`s where Numba draws two `f32`s (24 bits each).
//!   As Numba's, each normal takes two draws, `u1` first, and returns `sqrt(-2 ln u1)
//!   cos(2π u2)` (the sine half is dropped).
//! - the logarithm, sine and cosine are the [`random`](crate::random) module's own
//!   polynomials ([`random::box_muller_f32`](fn@crate::random::box_muller_f32)), not the
//!   math library's, so a normal is the same bits on the GPU, the simulator and the host
//!   (within a few ulp of the true function); Numba's follow CUDA's `logf`/`cosf`.
//!
//! **States on the host.** Numba computes the states on the CPU ("much faster than the
//! GPU": each is the previous one jumped, a chain); so does this module, then uploads
//! them. A jump is linear over GF(2), so it is applied as a 128×128 bit matrix through
//! byte tables (16 lookups a state, not 128 generator steps), and `subsequence_start`
//! jumps as a power of that matrix (128 squarings at most, not `subsequence_start` jumps).
//! [`xoroshiro128p_states`] returns them to the host.
//!
//! **Device functions take the whole states slice and an index**, as Numba's do: a
//! `&mut` borrow of one element cannot be handed to a device function (the kernel
//! language borrows slices, not elements), and the slice form is what Numba code reads
//! as. Each call bounds-checks `states[index]` unless the kernel is
//! `#[gpu_kernel(unchecked)]` (an index past the states is reported, not read). On the
//! host the functions run as plain Rust over a `&mut [Xoroshiro128p]`.

use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceViewMut, DeviceBuffer, LaunchTarget, Result};

use crate::random::{box_muller_f32, box_muller_f64};

/// One generator's state: the two words of xoroshiro128+ (Numba's `xoroshiro128p_dtype`,
/// the same 16 bytes: `s0` then `s1`).
#[gpu_struct]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Xoroshiro128p {
    /// The first word.
    pub s0: u64,
    /// The second word.
    pub s1: u64,
}

/// The device functions, written once for the checked module and its `unchecked` twin
/// (`$opt` = `unchecked`: no bounds check on `states[index]`).
macro_rules! device_fns {
    ($($opt:ident)?) => {
        /// The next word of `states[index]`'s stream (`s0 + s1`, wrapping), advancing the state
        /// one step: `s1 ^= s0; s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14); s1 = rotl(s1, 36)`.
        #[gpu_device$(($opt))?]
        pub fn xoroshiro128p_next(states: &mut [Xoroshiro128p], index: usize) -> u64 {
            let s = states[index];
            let s0 = s.s0;
            let s1 = s.s1 ^ s0;
            states[index] = Xoroshiro128p {
                s0: s0.rotate_left(55) ^ s1 ^ (s1 << 14),
                s1: s1.rotate_left(36),
            };
            s.s0 + s.s1
        }

        /// A uniform `f32` in `[0, 1)` from `states[index]` (one step): the word's top 24 bits
        /// times 2^-24.
        #[gpu_device$(($opt))?]
        pub fn xoroshiro128p_uniform_f32(states: &mut [Xoroshiro128p], index: usize) -> f32 {
            (xoroshiro128p_next(states, index) >> 40) as f32 * 5.960_464_5e-8
        }

        /// A uniform `f64` in `[0, 1)` from `states[index]` (one step): the word's top 53 bits
        /// times 2^-53, Numba's `xoroshiro128p_uniform_float64` bit for bit.
        #[gpu_device$(($opt))?]
        pub fn xoroshiro128p_uniform_f64(states: &mut [Xoroshiro128p], index: usize) -> f64 {
            (xoroshiro128p_next(states, index) >> 11) as f64 * 1.110_223_024_625_156_5e-16
        }

        /// A standard normal `f32` from `states[index]` (two steps): Box-Muller's `sqrt(-2 ln u1)
        /// cos(2π u2)` with `u1` in `(0, 1]` (the first word's top 24 bits plus one, times 2^-24)
        /// and `u2` the second word's uniform, by [`random::box_muller_f32`](fn@crate::random::box_muller_f32).
        #[gpu_device$(($opt))?]
        pub fn xoroshiro128p_normal_f32(states: &mut [Xoroshiro128p], index: usize) -> f32 {
            let a = xoroshiro128p_next(states, index);
            let b = xoroshiro128p_next(states, index);
            // box_muller_f32 takes the top 24 bits of each 32-bit word: the 64-bit words' top 24.
            let (z0, _z1) = box_muller_f32((a >> 32) as u32, (b >> 32) as u32);
            z0
        }

        /// A standard normal `f64` from `states[index]` (two steps): as
        /// [`xoroshiro128p_normal_f32`](fn@xoroshiro128p_normal_f32) with 53-bit uniforms, by
        /// [`random::box_muller_f64`](fn@crate::random::box_muller_f64).
        #[gpu_device$(($opt))?]
        pub fn xoroshiro128p_normal_f64(states: &mut [Xoroshiro128p], index: usize) -> f64 {
            let a = xoroshiro128p_next(states, index);
            let b = xoroshiro128p_next(states, index);
            let (z0, _z1) = box_muller_f64(u32x4::new(
                (a >> 32) as u32,
                a as u32,
                (b >> 32) as u32,
                b as u32,
            ));
            z0
        }
    };
}

device_fns!();

/// The same device functions as `#[gpu_device(unchecked)]`: `states[index]` is not
/// bounds-checked on the GPU (the simulator still checks). For kernels that are
/// `unchecked` themselves and whose indices are right by construction (the bench's).
pub mod unchecked {
    use super::Xoroshiro128p;
    use crate::random::{box_muller_f32, box_muller_f64};
    use warpspeed_core::prelude::*;
    device_fns!(unchecked);
}

// ---- seeding, on the host ---------------------------------------------------------------

/// The first splitmix64 output of `seed`, Numba's `init_xoroshiro128p_state` (which puts
/// it in both words).
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A state as one 128-bit vector over GF(2): `s0` the low half.
fn pack(s: Xoroshiro128p) -> u128 {
    s.s0 as u128 | (s.s1 as u128) << 64
}

fn unpack(v: u128) -> Xoroshiro128p {
    Xoroshiro128p {
        s0: v as u64,
        s1: (v >> 64) as u64,
    }
}

/// One generator step on a packed state (what [`xoroshiro128p_next`](fn@xoroshiro128p_next) does to it).
fn step(v: u128) -> u128 {
    let (s0, s1) = (v as u64, (v >> 64) as u64 ^ v as u64);
    pack(Xoroshiro128p {
        s0: s0.rotate_left(55) ^ s1 ^ (s1 << 14),
        s1: s1.rotate_left(36),
    })
}

/// The jump by 2^64 steps (Vigna's `jump()` for xoroshiro128+, Numba's
/// `xoroshiro128p_jump`): the XOR of the states `j` steps ahead for each set bit `j` of
/// the jump polynomial.
fn jump_slow(v: u128) -> u128 {
    const JUMP: [u64; 2] = [0xbeac_0467_eba5_facb, 0xd86b_048b_86aa_9922];
    let (mut acc, mut s) = (0u128, v);
    for word in JUMP {
        for b in 0..64 {
            if word >> b & 1 == 1 {
                acc ^= s;
            }
            s = step(s);
        }
    }
    acc
}

/// A linear map of 128-bit vectors over GF(2), as byte tables: `t[k][b]` is the image of
/// byte `k` of the input equal to `b` (the rest zero), so an image is 16 lookups.
struct Linear {
    t: Vec<[u128; 256]>,
}

impl Linear {
    /// The map whose image of basis vector `j` is `cols[j]`.
    fn from_columns(cols: &[u128; 128]) -> Linear {
        let mut t = vec![[0u128; 256]; 16];
        for (k, table) in t.iter_mut().enumerate() {
            for b in 1..256usize {
                // The lowest set bit's column, XOR the rest's image (already built).
                let low = b.trailing_zeros() as usize;
                table[b] = cols[8 * k + low] ^ table[b & (b - 1)];
            }
        }
        Linear { t }
    }

    fn apply(&self, v: u128) -> u128 {
        let mut r = 0u128;
        for (k, table) in self.t.iter().enumerate() {
            r ^= table[(v >> (8 * k)) as usize & 255];
        }
        r
    }

    /// `self ∘ other`: other first.
    fn after(&self, other: &Linear) -> Linear {
        let mut cols = [0u128; 128];
        for (j, c) in cols.iter_mut().enumerate() {
            *c = self.apply(other.apply(1u128 << j));
        }
        Linear::from_columns(&cols)
    }

    /// The jump by 2^64 steps.
    fn jump() -> Linear {
        let mut cols = [0u128; 128];
        for (j, c) in cols.iter_mut().enumerate() {
            *c = jump_slow(1u128 << j);
        }
        Linear::from_columns(&cols)
    }

    fn identity() -> Linear {
        let mut cols = [0u128; 128];
        for (j, c) in cols.iter_mut().enumerate() {
            *c = 1u128 << j;
        }
        Linear::from_columns(&cols)
    }
}

/// Numba's `create_xoroshiro128p_states(n, seed, subsequence_start)` on the host: state 0
/// is `s0 = s1 = splitmix64(seed)` jumped `subsequence_start` times, state `i` is state
/// `i - 1` jumped once (a jump is 2^64 steps, so the `n` streams do not overlap unless a
/// thread draws 2^64 words).
pub fn xoroshiro128p_states(n: usize, seed: u64, subsequence_start: u64) -> Vec<Xoroshiro128p> {
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let z = splitmix64(seed);
    let jump = Linear::jump();
    // jump^subsequence_start by squaring.
    let (mut power, mut base, mut k) = (Linear::identity(), Linear::jump(), subsequence_start);
    while k > 0 {
        if k & 1 == 1 {
            power = power.after(&base);
        }
        k >>= 1;
        if k > 0 {
            base = base.after(&base);
        }
    }
    let mut v = power.apply(pack(Xoroshiro128p { s0: z, s1: z }));
    out.push(unpack(v));
    for _ in 1..n {
        v = jump.apply(v);
        out.push(unpack(v));
    }
    out
}

/// `n` generator states for `seed` on `target`'s device, one per thread that draws
/// (Numba's `create_xoroshiro128p_states(n, seed)`): state `i` is `i` jumps of 2^64 steps
/// past the first, so threads draw non-overlapping streams. Computed on the host
/// ([`xoroshiro128p_states`]) and uploaded; the call returns once they are on the device.
///
/// # Errors
/// Whatever the allocation or the upload returns.
pub fn create_xoroshiro128p_states(
    target: &impl LaunchTarget,
    n: usize,
    seed: u64,
) -> Result<DeviceBuffer<Xoroshiro128p>> {
    target.device().upload(&xoroshiro128p_states(n, seed, 0))
}

/// Overwrites `states` (a buffer or a view, on whichever device holds it) with the states
/// of [`create_xoroshiro128p_states`] for `seed`, the first jumped `subsequence_start`
/// times (Numba's `init_xoroshiro128p_states(states, seed, subsequence_start)`): so states
/// `k..` of one call are states `0..` of a call with `subsequence_start + k`. Any
/// `subsequence_start` is cheap (a power of the jump, not that many jumps).
///
/// # Errors
/// Whatever the upload returns.
pub fn init_xoroshiro128p_states(
    states: &mut impl AsDeviceViewMut<Elem = Xoroshiro128p>,
    seed: u64,
    subsequence_start: u64,
) -> Result<()> {
    let mut view = states.as_device_view_mut();
    let host = xoroshiro128p_states(view.len(), seed, subsequence_start);
    view.copy_from_host(&host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_jump_is_the_slow_jump() {
        let jump = Linear::jump();
        let mut v = pack(Xoroshiro128p { s0: 1, s1: 2 });
        for _ in 0..20 {
            assert_eq!(jump.apply(v), jump_slow(v));
            v = jump_slow(v) ^ step(v);
        }
        let two = jump.after(&jump);
        assert_eq!(two.apply(v), jump_slow(jump_slow(v)));
    }
}
