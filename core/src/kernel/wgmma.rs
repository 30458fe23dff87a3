//! Hopper's warpgroup MMA (`wgmma.mma_async`, sm_90a) in a kernel (docs/tensor-cores.md,
//! "Hopper: warpgroup MMA"): the accumulator shapes `M64N{N}K16` (bf16 and f16 tiles) and
//! `M64N{N}K8` (f32 tiles, as tf32) ([`FragmentAcc<f32, M64N128K16>`](super::FragmentAcc),
//! `N / 2` elements a thread of the warpgroup, laid out as
//! [`wgmma_owner`](crate::mma::wgmma_owner) says),
//! [`FragmentAcc::wgmma`](super::FragmentAcc::wgmma), the fences and groups around it, and
//! `setmaxnreg`. A warpgroup is the 128 threads `128 * g .. 128 * g + 127` of the block
//! (linear thread index). A kernel that uses any of these compiles for the target sm_90a:
//! its launch on a GPU other than compute capability 9.0 is
//! [`Error::UnsupportedArch`](crate::Error::UnsupportedArch); the simulator runs it anywhere.

use super::mma::{FragmentA, FragmentShape};
use super::outside_kernel;

/// What [`FragmentAcc::wgmma`](super::FragmentAcc::wgmma) and
/// [`FragmentAcc::wgmma_trans_b`](super::FragmentAcc::wgmma_trans_b) take as A: a 64-row
/// tile in shared memory (`&tile[..]`, K-major rows of 128 bytes, 128B-swizzled), or a
/// [`FragmentA<T, M64N{N}K16>`](FragmentA) in registers, of the accumulator's shape (16-bit
/// elements), the slab itself.
pub trait WgmmaOperandA<T> {}

impl<T> WgmmaOperandA<T> for &[T] {}

impl<T, S: FragmentShape> WgmmaOperandA<T> for FragmentA<T, S> {}

macro_rules! wgmma_shapes {
    ($($name:ident = $n:literal),* $(,)?) => {$(
        #[doc = concat!("`wgmma.mma_async`'s `.m64n", $n, "k16`: a 64 x ", $n, " f32 accumulator, `", $n, " / 2` elements a thread of the warpgroup; A (64 x 16) of `bf16` or `f16` from a tile in shared memory or from registers (`FragmentA<bf16, M64N", $n, "K16>`, 8 elements a thread, laid out as [`wgmma_a_owner`](crate::mma::wgmma_a_owner) says), B (", $n, " x 16) from a tile in shared memory.")]
        pub struct $name;

        impl FragmentShape for $name {
            type A<T> = [T; 8];
            type B<T> = [T; 0];
            type Acc<T> = [T; $n / 2];
        }
    )*};
}

// The tf32 shapes: the same accumulator (its layout does not depend on K), 8-wide slabs of
// K from f32 tiles.
macro_rules! wgmma_tf32_shapes {
    ($($name:ident = $n:literal),* $(,)?) => {$(
        #[doc = concat!("`wgmma.mma_async`'s `.m64n", $n, "k8` with `.tf32` operands: a 64 x ", $n, " f32 accumulator, `", $n, " / 2` elements a thread of the warpgroup (laid out as in the K16 shapes); A (64 x 8) and B (", $n, " x 8) come from `f32` tiles in shared memory, multiplied as tf32.")]
        pub struct $name;

        impl FragmentShape for $name {
            type A<T> = [T; 0];
            type B<T> = [T; 0];
            type Acc<T> = [T; $n / 2];
        }
    )*};
}

wgmma_shapes!(
    M64N8K16 = 8,
    M64N16K16 = 16,
    M64N24K16 = 24,
    M64N32K16 = 32,
    M64N40K16 = 40,
    M64N48K16 = 48,
    M64N56K16 = 56,
    M64N64K16 = 64,
    M64N72K16 = 72,
    M64N80K16 = 80,
    M64N88K16 = 88,
    M64N96K16 = 96,
    M64N104K16 = 104,
    M64N112K16 = 112,
    M64N120K16 = 120,
    M64N128K16 = 128,
    M64N136K16 = 136,
    M64N144K16 = 144,
    M64N152K16 = 152,
    M64N160K16 = 160,
    M64N168K16 = 168,
    M64N176K16 = 176,
    M64N184K16 = 184,
    M64N192K16 = 192,
    M64N200K16 = 200,
    M64N208K16 = 208,
    M64N216K16 = 216,
    M64N224K16 = 224,
    M64N232K16 = 232,
    M64N240K16 = 240,
    M64N248K16 = 248,
    M64N256K16 = 256,
);

wgmma_tf32_shapes!(
    M64N8K8 = 8,
    M64N16K8 = 16,
    M64N24K8 = 24,
    M64N32K8 = 32,
    M64N40K8 = 40,
    M64N48K8 = 48,
    M64N56K8 = 56,
    M64N64K8 = 64,
    M64N72K8 = 72,
    M64N80K8 = 80,
    M64N88K8 = 88,
    M64N96K8 = 96,
    M64N104K8 = 104,
    M64N112K8 = 112,
    M64N120K8 = 120,
    M64N128K8 = 128,
    M64N136K8 = 136,
    M64N144K8 = 144,
    M64N152K8 = 152,
    M64N160K8 = 160,
    M64N168K8 = 168,
    M64N176K8 = 176,
    M64N184K8 = 184,
    M64N192K8 = 192,
    M64N200K8 = 200,
    M64N208K8 = 208,
    M64N216K8 = 216,
    M64N224K8 = 224,
    M64N232K8 = 232,
    M64N240K8 = 240,
    M64N248K8 = 248,
    M64N256K8 = 256,
);

/// `wgmma.fence.sync.aligned`: before the first [`FragmentAcc::wgmma`](super::FragmentAcc::wgmma)
/// of a run, and whenever the accumulator was touched by other code (`zeroed()`, `x[i]`)
/// since the last one. Every thread of the warpgroup calls it.
pub fn wgmma_fence() {
    outside_kernel("wgmma_fence")
}

/// `wgmma.commit_group.sync.aligned`: closes this thread's open group of `wgmma`s (an empty
/// group too).
pub fn wgmma_commit_group() {
    outside_kernel("wgmma_commit_group")
}

/// `wgmma.wait_group.sync.aligned n`: waits until at most the newest `n` committed groups
/// of this thread's `wgmma`s are in flight; then their accumulators may be read, and the
/// tiles they read written. `n` need not be a constant: the C switches over 0..=6 and waits
/// as for 7 above that (waiting more is always correct).
pub fn wgmma_wait_group(n: u32) {
    let _ = n;
    outside_kernel("wgmma_wait_group")
}

/// `setmaxnreg.inc.sync.aligned.u32 n`: raises this warpgroup's registers a thread to `n`
/// (a producer/consumer kernel gives its consumers more). `n` is an integer literal, a
/// multiple of 8 from 24 to 256 (else a compile error at it). Every thread of the warpgroup
/// calls it (the simulator checks; it has no registers to move).
pub fn setmaxnreg_inc(n: u32) {
    let _ = n;
    outside_kernel("setmaxnreg_inc")
}

/// `setmaxnreg.dec.sync.aligned.u32 n`: lowers this warpgroup's registers a thread to `n`;
/// as [`setmaxnreg_inc`].
pub fn setmaxnreg_dec(n: u32) {
    let _ = n;
    outside_kernel("setmaxnreg_dec")
}
