//! `mma.sync` on the simulator (docs/tensor-cores.md): a fragment is a lane's `Copy` array
//! of elements ([`Fragment`]); `ThreadCtx::mma_sync` (ctx.rs) is a warp collective whose
//! lanes arrive with their A, B and C elements in their slot's wide payload, and
//! [`mma_results`] gathers the matrices through [`fragment_owner`], multiplies, and leaves
//! each lane its D elements there.

use super::check::{raise, Failure};
use super::site::SrcLoc;
use crate::bf16_types::{bf16, bf16_from_f64};
use crate::fp8::{e4m3, e5m2};
use crate::half_types::{f16, f16_from_f64};
use crate::mma::{fragment_len, fragment_owner, FragmentRole, MmaShape};
use crate::scalar::KernelScalar;

/// The words of a lane's wide payload: one element per word, A's then B's then C's on the
/// way in (at most 16 + 8 + 4, m16n8k32), D's on the way out.
pub(crate) const WIDE: usize = 28;

/// One lane's fragment on the simulator: the elements of `frag.x`, in the PTX order of
/// [`fragment_owner`]. The kernel language's `FragmentA`, `FragmentB` and `FragmentAcc`
/// (`warpspeed::kernel`) are this, with `N` from the role and shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fragment<T, const N: usize> {
    /// The lane's elements (`frag.x[i]` in a kernel).
    pub x: [T; N],
}

impl<T: KernelScalar, const N: usize> Fragment<T, N> {
    /// Every element zero (`FragmentAcc::<f32, M16N8K16>::zeroed()`).
    pub fn zeroed() -> Self {
        Fragment {
            x: [T::from_bits(0); N],
        }
    }
}

/// `i`, checked against a fragment's length `n`: `frag.x[i]` on the simulator is
/// `frag.x[fragment_index(i, N, at)]`, so an index past the end is `Error::OutOfBounds`, as
/// the C's check of the same access reports it.
#[inline]
pub fn fragment_index(i: usize, n: usize, at: &'static SrcLoc) -> usize {
    if i >= n {
        raise(Failure::OutOfBounds {
            at,
            index: i as u64,
            len: n as u64,
        });
    }
    i
}

/// A 16-bit float a `wgmma`'s register A holds: rounded from f32 as `T::from_f32`, but a
/// NaN becomes the canonical NaN `0x7fff`, as the GPU's `cvt.rn.{bf16,f16}x2.f32` gives it.
pub trait FromAccF32: KernelScalar {
    fn from_acc_f32(x: f32) -> Self;
}

impl FromAccF32 for bf16 {
    fn from_acc_f32(x: f32) -> Self {
        match x.is_nan() {
            true => bf16::from_bits(0x7fff),
            false => bf16::from_f32(x),
        }
    }
}

impl FromAccF32 for f16 {
    fn from_acc_f32(x: f32) -> Self {
        match x.is_nan() {
            true => f16::from_bits(0x7fff),
            false => f16::from_f32(x),
        }
    }
}

/// `a.load_acc(acc, j)`: a `wgmma`'s register A from columns `16 j .. 16 j + 16` of an f32
/// `wgmma` accumulator of `NX` elements a thread (N = 2 NX columns): the layouts agree
/// element for element ([`wgmma_a_owner`](crate::mma::wgmma_a_owner)), so `a.x[e] =
/// T::from_f32(acc.x[8 j + e])`. A `j` past the slabs (N / 16) is an out-of-bounds index.
pub fn frag_load_acc<T: FromAccF32, const NX: usize>(
    a: &mut Fragment<T, 8>,
    acc: &Fragment<f32, NX>,
    j: usize,
    at: &'static SrcLoc,
) {
    let slabs = NX / 8;
    if j >= slabs {
        raise(Failure::OutOfBounds {
            at,
            index: j as u64,
            len: slabs as u64,
        });
    }
    for (e, x) in a.x.iter_mut().enumerate() {
        *x = T::from_acc_f32(acc.x[8 * j + e]);
    }
}

/// An element type of `mma.sync` operands, with its exact value and its rounding.
pub trait MmaScalar: KernelScalar {
    /// Which one, for the warp collective.
    const ELEM: MmaElem;
}

impl MmaScalar for f16 {
    const ELEM: MmaElem = MmaElem::F16;
}

impl MmaScalar for bf16 {
    const ELEM: MmaElem = MmaElem::Bf16;
}

impl MmaScalar for f32 {
    const ELEM: MmaElem = MmaElem::F32;
}

impl MmaScalar for i8 {
    const ELEM: MmaElem = MmaElem::S8;
}

impl MmaScalar for u8 {
    const ELEM: MmaElem = MmaElem::U8;
}

impl MmaScalar for i32 {
    const ELEM: MmaElem = MmaElem::S32;
}

impl MmaScalar for e4m3 {
    const ELEM: MmaElem = MmaElem::E4m3;
}

impl MmaScalar for e5m2 {
    const ELEM: MmaElem = MmaElem::E5m2;
}

/// The element types of `mma.sync`'s operands on the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaElem {
    /// `.f16`.
    F16,
    /// `.bf16`.
    Bf16,
    /// `.f32`.
    F32,
    /// `.tf32`, stored as f32: the simulator reads the 19 high bits (sign, exponent, 10
    /// mantissa bits) and ignores the low 13.
    Tf32,
    /// `.s8`.
    S8,
    /// `.u8`.
    U8,
    /// `.s32`, the integer accumulator: D wraps modulo 2^32, as PTX's integer `mma`
    /// without `.satfinite` does.
    S32,
    /// `.e4m3`.
    E4m3,
    /// `.e5m2`.
    E5m2,
}

impl MmaElem {
    pub(crate) fn value(self, bits: u32) -> f64 {
        match self {
            MmaElem::F16 => f64::from(f16::from_bits(bits as u16)),
            MmaElem::Bf16 => f64::from(bf16::from_bits(bits as u16)),
            MmaElem::F32 => f64::from(f32::from_bits(bits)),
            MmaElem::Tf32 => f64::from(f32::from_bits(bits & !0x1fff)),
            MmaElem::S8 => f64::from(bits as u8 as i8),
            MmaElem::U8 => f64::from(bits as u8),
            MmaElem::S32 => f64::from(bits as i32),
            MmaElem::E4m3 => f64::from(e4m3::from_bits(bits as u8).to_f32()),
            MmaElem::E5m2 => f64::from(e5m2::from_bits(bits as u8).to_f32()),
        }
    }

    /// `v` rounded once to the nearest value of the type (ties to even); an `.s32` sum (an
    /// integer, exact in f64: at most 32 products of 255 * 255 plus an i32) wrapped modulo
    /// 2^32. Accumulators are f16, f32 or s32 only.
    fn round(self, v: f64) -> u32 {
        match self {
            MmaElem::F16 => u32::from(f16_from_f64(v).to_bits()),
            MmaElem::Bf16 => u32::from(bf16_from_f64(v).to_bits()),
            MmaElem::S32 => v as i64 as u32,
            _ => (v as f32).to_bits(),
        }
    }
}

/// One `mma.sync` instruction: its shape and the types of A and B, and of C and D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaSpec {
    /// `.m16n8k16`, ...
    pub shape: MmaShape,
    /// The element type of A.
    pub ab: MmaElem,
    /// The element type of B (A's but for m16n8k32's mixed 8-bit forms).
    pub b: MmaElem,
    /// The element type of C and D.
    pub acc: MmaElem,
}

/// D = A * B + C for the whole warp: `wide[lane]` holds lane's A, B and C elements (in that
/// order, one a word) and gets its D elements. Each D element is the exact sum of C and the
/// products, rounded once to the accumulator's type (products of 16-bit and 8-bit floats
/// are exact in f64, and so is their sum unless the terms span more than ~30 binary
/// orders; integer sums are always exact, then wrap to s32).
pub(crate) fn mma_results(spec: MmaSpec, wide: &mut [[u32; WIDE]; 32]) {
    let shape = spec.shape;
    let (m, n, k) = shape.mnk();
    let (la, lb, lc) = (
        fragment_len(FragmentRole::A, shape),
        fragment_len(FragmentRole::B, shape),
        fragment_len(FragmentRole::Acc, shape),
    );
    let mut a = vec![0f64; m * k];
    let mut b = vec![0f64; k * n];
    let mut c = vec![0f64; m * n];
    for (lane, w) in (0..32u32).zip(wide.iter()) {
        for (i, &word) in w.iter().enumerate().take(la + lb + lc) {
            if i < la {
                let (r, col) = fragment_owner(FragmentRole::A, shape, lane, i);
                a[r * k + col] = spec.ab.value(word);
            } else if i < la + lb {
                let (r, col) = fragment_owner(FragmentRole::B, shape, lane, i - la);
                b[r * n + col] = spec.b.value(word);
            } else {
                let (r, col) = fragment_owner(FragmentRole::Acc, shape, lane, i - la - lb);
                c[r * n + col] = spec.acc.value(word);
            }
        }
    }
    for (lane, w) in (0..32u32).zip(wide.iter_mut()) {
        for (i, word) in w.iter_mut().enumerate().take(lc) {
            let (r, col) = fragment_owner(FragmentRole::Acc, shape, lane, i);
            let d = (0..k).fold(c[r * n + col], |s, kk| s + a[r * k + kk] * b[kk * n + col]);
            *word = spec.acc.round(d);
        }
    }
}

/// `ldmatrix` for the whole warp: `wide[lane]` holds the 8 elements of the row lane gave
/// (lanes `8 * j .. 8 * j + 8` the rows of matrix j) and gets its 2 elements of each of the
/// `num` matrices: row `lane / 4`, columns `2 * (lane % 4) + {0, 1}`; transposed, column
/// `lane / 4` of rows `2 * (lane % 4) + {0, 1}` (PTX ISA, "ldmatrix").
pub(crate) fn ldmatrix_results(num: u32, trans: bool, wide: &mut [[u32; WIDE]; 32]) {
    let rows = *wide;
    for (lane, out) in wide.iter_mut().enumerate() {
        *out = [0; WIDE];
        for j in 0..num as usize {
            for h in 0..2 {
                let (src, col) = if trans {
                    (8 * j + 2 * (lane % 4) + h, lane / 4)
                } else {
                    (8 * j + lane / 4, 2 * (lane % 4) + h)
                };
                out[2 * j + h] = rows[src][col];
            }
        }
    }
}

/// The exchange before a `wgmma` whose A is a `FragmentA` in registers, for one warp of the
/// warpgroup: `wide[lane]` holds lane's 8 16-bit elements (one a word), in the layout of
/// [`wgmma_a_owner`](crate::mma::wgmma_a_owner) (the warp's 16 rows as mma.sync's m16n8k16
/// A); each lane gets the two rows its accumulator elements need, `lane / 4` and
/// `lane / 4 + 8` of the warp's 16, each 16 columns, two elements a word (words 0..8 the
/// first row, 8..16 the second).
pub(crate) fn wgmma_a_results(wide: &mut [[u32; WIDE]; 32]) {
    let frags = *wide;
    let mut tile = [[0u32; 16]; 16];
    for (lane, f) in frags.iter().enumerate() {
        for (i, &w) in f.iter().take(8).enumerate() {
            let (r, c) = fragment_owner(FragmentRole::A, MmaShape::M16N8K16, lane as u32, i);
            tile[r][c] = w & 0xffff;
        }
    }
    for (lane, out) in wide.iter_mut().enumerate() {
        *out = [0; WIDE];
        for h in 0..2 {
            let row = &tile[lane / 4 + 8 * h];
            for j in 0..8 {
                out[8 * h + j] = row[2 * j] | (row[2 * j + 1] << 16);
            }
        }
    }
}

/// `stmatrix` for the whole warp, the inverse of [`ldmatrix_results`]: `wide[lane]` holds
/// lane's `2 * num` fragment elements and gets, for lanes `0..8 * num`, the 8 elements of
/// the row it stores (row `lane % 8` of matrix `lane / 8`).
pub(crate) fn stmatrix_results(num: u32, trans: bool, wide: &mut [[u32; WIDE]; 32]) {
    let frags = *wide;
    for (lane, out) in wide.iter_mut().enumerate() {
        *out = [0; WIDE];
        if lane >= 8 * num as usize {
            continue;
        }
        let (j, r) = (lane / 8, lane % 8);
        for (c, w) in out.iter_mut().take(8).enumerate() {
            // Who holds (r, c) of matrix j, as ldmatrix_results hands it out.
            let (src, h) = if trans {
                (4 * c + r / 2, r % 2)
            } else {
                (4 * r + c / 2, c % 2)
            };
            *w = frags[src][2 * j + h];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// stmatrix stores what ldmatrix loads, transposed or not.
    #[test]
    fn stmatrix_inverts_ldmatrix() {
        for num in [1, 2, 4] {
            for trans in [false, true] {
                let mut wide = [[0u32; WIDE]; 32];
                for (lane, w) in wide.iter_mut().enumerate() {
                    for (c, x) in w.iter_mut().take(8).enumerate() {
                        *x = (lane * 8 + c) as u32;
                    }
                }
                let rows = wide;
                ldmatrix_results(num, trans, &mut wide);
                stmatrix_results(num, trans, &mut wide);
                for lane in 0..8 * num as usize {
                    assert_eq!(wide[lane][..8], rows[lane][..8], "x{num} {trans} {lane}");
                }
            }
        }
    }

    /// Integer matrices through the fragments give the integer product.
    #[test]
    #[allow(clippy::needless_range_loop)] // the fragment's index is the point
    fn integer_product_is_exact() {
        let shape = MmaShape::M16N8K16;
        let spec = MmaSpec {
            shape,
            ab: MmaElem::F16,
            b: MmaElem::F16,
            acc: MmaElem::F32,
        };
        let av = |r: usize, c: usize| ((r * 3 + c * 5) % 7) as f32 - 3.0;
        let bv = |r: usize, c: usize| ((r * 2 + c) % 5) as f32 - 2.0;
        let cv = |r: usize, c: usize| (r * 8 + c) as f32;
        let mut wide = [[0u32; WIDE]; 32];
        for lane in 0..32u32 {
            let w = &mut wide[lane as usize];
            for i in 0..8 {
                let (r, c) = fragment_owner(FragmentRole::A, shape, lane, i);
                w[i] = u32::from(f16::from_f32(av(r, c)).to_bits());
            }
            for i in 0..4 {
                let (r, c) = fragment_owner(FragmentRole::B, shape, lane, i);
                w[8 + i] = u32::from(f16::from_f32(bv(r, c)).to_bits());
            }
            for i in 0..4 {
                let (r, c) = fragment_owner(FragmentRole::Acc, shape, lane, i);
                w[12 + i] = cv(r, c).to_bits();
            }
        }
        mma_results(spec, &mut wide);
        for lane in 0..32u32 {
            for i in 0..4 {
                let (r, c) = fragment_owner(FragmentRole::Acc, shape, lane, i);
                let want = (0..16).map(|k| av(r, k) * bv(k, c)).sum::<f32>() + cv(r, c);
                assert_eq!(f32::from_bits(wide[lane as usize][i]), want);
            }
        }
    }
}
