//! bfloat16: [`bf16`](struct@bf16) (the `half` crate's, CUDA's `__nv_bfloat16`) and
//! [`bf16x2`] (two of them in 32 bits, CUDA's `__nv_bfloat162`).
//!
//! A `bf16` is the top 16 bits of an `f32`: the same 8-bit exponent (so the same range,
//! subnormals included), 8 significant bits. Kernels compute with it as the `half` crate
//! does: every operation converts to `f32` (exact), computes there and rounds the result to
//! the nearest `bf16` (ties to even). For `+ - * /` and `sqrt` that is the correctly
//! rounded `bf16` operation, bit for bit what a native bf16 instruction gives: `f32` has
//! 24 >= 2 * 8 + 2 significant bits, so rounding first to `f32` and then to `bf16` never
//! differs from rounding once (Figueroa, "When is double rounding innocuous?"). The C
//! prelude's `ws_bf16_*` helpers compute the same bits with integer rounding that needs no
//! particular GPU architecture (docs/semantics.md, "Half precision").
//!
//! One conversion differs from the `half` crate: `half`'s `bf16::from_f64` ignores the low
//! 32 bits of the `f64` and so is not always correctly rounded. In a kernel,
//! `bf16::from_f64(x)` is correctly rounded on both backends ([`bf16_from_f64`]).

pub use half::bf16;

crate::half_types::half_pair! {
    /// Two [`bf16`](struct@bf16)s in 32 bits, CUDA's `__nv_bfloat162`: `lo` in the low 16 bits
    /// (the lower address), `hi` in the high 16 bits. `+`, `-` and `*` work on each half as
    /// `bf16`'s do. Aligned to 4 bytes, as `__nv_bfloat162`, so that it is one 32-bit word for
    /// atomics.
    bf16x2, bf16, "__halves2bfloat162", "__low2bfloat16", "__high2bfloat16"
}

/// `x` rounded to the nearest [`bf16`](struct@bf16), ties to even: what `bf16::from_f64(x)`
/// computes in a kernel, on the GPU and on the simulator. A NaN keeps its sign and the top
/// 7 bits of its payload and becomes quiet, as in `half`.
pub fn bf16_from_f64(x: f64) -> bf16 {
    if x.is_nan() {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        return bf16::from_bits(sign | 0x7fc0 | ((bits >> 45) & 0x7f) as u16);
    }
    // With 16 more bits in f32 than in bf16 (subnormals too, as the two share the exponent
    // range) the second rounding sees the sticky bit and is exact. The GPU does the same
    // with `cvt.rz.f32.f64`.
    bf16::from_f32(crate::half_types::f32_round_to_odd(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f32) -> bf16 {
        bf16::from_f32(x)
    }

    #[test]
    fn bf16x2_layout_and_bits() {
        assert_eq!(std::mem::size_of::<bf16x2>(), 4);
        assert_eq!(std::mem::align_of::<bf16x2>(), 4);
        let p = bf16x2::new(b(1.0), b(-2.0));
        assert_eq!(p.to_bits(), 0xc000_3f80);
        assert_eq!(bf16x2::from_bits(0xc000_3f80), p);
        // SAFETY: bf16x2 is 4 plain bytes.
        let bytes: [u8; 4] = unsafe { std::mem::transmute(p) };
        assert_eq!(u32::from_le_bytes(bytes), p.to_bits());
        assert_eq!((p.lo(), p.hi()), (b(1.0), b(-2.0)));
    }

    #[test]
    fn bf16x2_ops_are_componentwise() {
        let p = bf16x2::new(b(256.0), b(-256.0)) + bf16x2::new(b(1.0), b(-3.0));
        // 257 is a tie between 256 and 258: to even (256); -259 rounds to -260.
        assert_eq!((p.lo.to_f32(), p.hi.to_f32()), (256.0, -260.0));
        let mut q = p;
        q -= p;
        q *= p;
        assert_eq!(q.to_bits(), 0x8000_0000);
    }

    /// The correctly rounded bf16 of a finite f64, by bisection over the bf16 magnitudes
    /// (exact in f64) and the midpoint (exact in f64).
    fn reference(x: f64) -> bf16 {
        let a = x.abs();
        let (mut lo, mut hi) = (0u16, 0x7f80u16);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if bf16::from_bits(mid).to_f64() <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (l, h) = (bf16::from_bits(lo).to_f64(), bf16::from_bits(hi));
        // The midpoint to infinity is MAX + half an ulp.
        let hv = if hi == 0x7f80 {
            bf16::MAX.to_f64() + (bf16::MAX.to_f64() - bf16::from_bits(0x7f7e).to_f64())
        } else {
            h.to_f64()
        };
        let mid = (l + hv) / 2.0;
        let bits = if a < mid || (a == mid && lo % 2 == 0) {
            lo
        } else {
            hi
        };
        bf16::from_bits(bits | if x.is_sign_negative() { 0x8000 } else { 0 })
    }

    #[test]
    fn from_f64_is_correctly_rounded() {
        // Just above a tie in f64, which half's from_f64 (it drops the low 32 bits) sees
        // as a tie and rounds to even, down.
        let above = f64::from_bits(1.00390625f64.to_bits() + 1);
        assert_eq!(bf16_from_f64(above).to_bits(), 0x3f81);
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Exponents over bf16's range and past it (subnormals, overflow), and half
            // the values a few f64 ulps from a bf16 tie.
            let e = (s >> 52) % 290;
            let mut m = s & 0x000f_ffff_ffff_ffff;
            if s & 1 == 0 {
                m = (m & !0x0000_1fff_ffff_ffff) | 0x0000_1000_0000_0000;
                m = m.wrapping_add((s >> 8) % 5).wrapping_sub(2) & 0x000f_ffff_ffff_ffff;
            }
            let bits = (s & (1 << 63)) | ((1023 + e - 150) << 52) | m;
            let z = f64::from_bits(bits);
            assert_eq!(bf16_from_f64(z).to_bits(), reference(z).to_bits(), "{z:e}");
        }
        for x in [0.0, -0.0, 1e-300, -1e-300, 1e300, f64::MAX, 3.0e38, 3.4e38] {
            assert_eq!(bf16_from_f64(x).to_bits(), reference(x).to_bits(), "{x:e}");
        }
        assert_eq!(bf16_from_f64(f64::INFINITY), bf16::INFINITY);
        let nan = bf16_from_f64(-f64::NAN);
        assert!(nan.is_nan() && nan.is_sign_negative() && nan.to_bits() & 0x40 != 0);
    }
}
