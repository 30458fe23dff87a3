//! Helpers of the `wgmma` tests (tests/wgmma.rs, tests/wgmma_forms.rs): tiles laid out as
//! the instruction reads them, the accumulators read back through their owners, and whether
//! a device runs `wgmma` (else its launch must be the sm_90a refusal).

use warpspeed::mma::wgmma_owner;
use warpspeed::swizzle::{swizzle_byte_offset, Swizzle};
use warpspeed::{Backend, Device, Error};

use super::Rng;

/// `rows x 64` values (K innermost) as a 128B-swizzled tile of 16-bit elements: element
/// (r, c) at byte `swizzle_byte_offset(B128, r * 128 + 2 * c)`.
pub fn swizzled(m: &[f32], rows: usize) -> Vec<f32> {
    swizzled_by(m, rows, 2)
}

/// `rows` rows of 128 bytes of `size`-byte elements (K innermost) as a 128B-swizzled tile.
pub fn swizzled_by(m: &[f32], rows: usize, size: usize) -> Vec<f32> {
    let cols = 128 / size;
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[swizzle_byte_offset(Swizzle::B128, r * 128 + size * c) / size] = m[r * cols + c];
        }
    }
    out
}

pub fn small_ints(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| (rng.next_u32() % 17) as f32 - 8.0).collect()
}

/// The 64 x `n` matrices the warpgroups' accumulators hold, from `out` (thread after
/// thread, `n / 2` elements each).
pub fn gather(out: &[f32], n: usize, groups: usize) -> Vec<Vec<f32>> {
    (0..groups)
        .map(|g| {
            let mut d = vec![f32::NAN; 64 * n];
            for t in 0..128u32 {
                for i in 0..n / 2 {
                    let (r, c) = wgmma_owner(n, t, i);
                    d[r * n + c] = out[(g * 128 + t as usize) * (n / 2) + i];
                }
            }
            d
        })
        .collect()
}

/// Whether `dev` can run wgmma; on another GPU, `r` must be the sm_90a refusal.
pub fn runs_wgmma(dev: &Device) -> bool {
    dev.backend() == Backend::Simulator || dev.compute_capability() == Some((9, 0))
}

pub fn expect_sm90a_refusal(dev: &Device, r: warpspeed::Result<()>) {
    match r {
        Err(Error::UnsupportedArch { reason, .. }) => {
            assert!(reason.contains("sm_90a"), "{reason}");
            println!("SKIPPED wgmma on this GPU: it needs sm_90a; checked the refusal");
        }
        other => panic!(
            "{:?}: expected UnsupportedArch, got {other:?}",
            dev.backend()
        ),
    }
}

/// MN-major: a `kk x n` matrix (row-major) as n / 64 column blocks of `kk` rows of 64,
/// each 128B-swizzled: (r, c) at byte `swizzle(((c / 64) * kk + r) * 128 + 2 * (c % 64))`.
pub fn mn_major(m: &[f32], kk: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0; kk * n];
    for r in 0..kk {
        for c in 0..n {
            let byte = ((c / 64) * kk + r) * 128 + 2 * (c % 64);
            out[swizzle_byte_offset(Swizzle::B128, byte) / 2] = m[r * n + c];
        }
    }
    out
}
