//! Half precision: [`f16`](struct@f16) (the `half` crate's, CUDA's `__half`) and [`f16x2`]
//! (two of them in 32 bits, CUDA's `__half2`).
//!
//! Kernels compute with them as the `half` crate does: every operation converts to `f32`,
//! computes there and rounds the result to the nearest `f16` (ties to even). That is IEEE
//! half-precision arithmetic (`f32` has more than twice `f16`'s 11 significant bits, so the
//! double rounding is harmless), the same as the GPU's native half instructions; the C
//! prelude's `ws_f16_*` helpers compute the same bits (docs/cuda-mapping.md, "Half
//! precision").
//!
//! One conversion differs from the `half` crate: [`f16::from_f64`] in `half` 2 is not always
//! correctly rounded (on x86 with F16C it rounds to `f32` first, a double rounding; its
//! software fallback ignores the low 32 bits of the `f64`). In a kernel, `f16::from_f64(x)`
//! is correctly rounded on the GPU (`cvt.rn.f16.f64`) and on the simulator
//! ([`f16_from_f64`]); the two agree with `half` except for the rare `f64` values that lie
//! very close to (within about `2^-20` relative of) a halfway point between two `f16`s.

pub use half::f16;

/// A pair of 16-bit floats in 32 bits (`f16x2`, and `bf16x2` in bf16_types.rs): the struct,
/// `new`/`lo`/`hi`/`to_bits`/`from_bits`, and `+ - *` on each half. One definition for both.
macro_rules! half_pair {
    ($(#[$doc:meta])* $pair:ident, $half:ident, $make:literal, $low:literal, $high:literal) => {
        $(#[$doc])*
        #[repr(C, align(4))]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        #[allow(non_camel_case_types)]
        pub struct $pair {
            /// The low half (bits 0..16).
            pub lo: $half,
            /// The high half (bits 16..32).
            pub hi: $half,
        }

        impl $pair {
            #[doc = concat!("The pair `(lo, hi)`, CUDA's `", $make, "(lo, hi)`.")]
            pub const fn new(lo: $half, hi: $half) -> Self {
                $pair { lo, hi }
            }

            #[doc = concat!("The low half (`", $low, "`).")]
            pub const fn lo(self) -> $half {
                self.lo
            }

            #[doc = concat!("The high half (`", $high, "`).")]
            pub const fn hi(self) -> $half {
                self.hi
            }

            /// The 32 bits: `lo`'s bits in the low 16, `hi`'s in the high 16.
            pub const fn to_bits(self) -> u32 {
                self.lo.to_bits() as u32 | (self.hi.to_bits() as u32) << 16
            }

            #[doc = concat!("The inverse of [`", stringify!($pair), "::to_bits`].")]
            pub const fn from_bits(bits: u32) -> Self {
                $pair {
                    lo: $half::from_bits(bits as u16),
                    hi: $half::from_bits((bits >> 16) as u16),
                }
            }
        }

        $crate::half_types::half_pair!(@ops $pair;
            Add, add, AddAssign, add_assign;
            Sub, sub, SubAssign, sub_assign;
            Mul, mul, MulAssign, mul_assign;
        );
    };
    (@ops $pair:ident; $($op:ident, $f:ident, $assign:ident, $fa:ident;)*) => {$(
        impl std::ops::$op for $pair {
            type Output = $pair;
            fn $f(self, rhs: $pair) -> $pair {
                $pair::new(std::ops::$op::$f(self.lo, rhs.lo), std::ops::$op::$f(self.hi, rhs.hi))
            }
        }
        impl std::ops::$assign for $pair {
            fn $fa(&mut self, rhs: $pair) {
                *self = std::ops::$op::$f(*self, rhs);
            }
        }
    )*};
}
pub(crate) use half_pair;

half_pair! {
    /// Two [`f16`](struct@f16)s in 32 bits, CUDA's `__half2`: `lo` in the low 16 bits (the
    /// lower address), `hi` in the high 16 bits. `+`, `-` and `*` work on each half as `f16`'s
    /// do. Aligned to 4 bytes, as `__half2`, so that it is one 32-bit word for atomics.
    f16x2, f16, "__halves2half2", "__low2half", "__high2half"
}

/// `x` rounded to odd in `f32` (truncated, the last bit set if anything was lost): rounding
/// that once more to a format with at least 2 fewer significant bits is the correctly
/// rounded result (Boldo and Melquiond, "When double rounding is odd"). `f16_from_f64` and
/// `bf16_from_f64` round through it; `x` is not a NaN.
pub(crate) fn f32_round_to_odd(x: f64) -> f32 {
    let near = x as f32;
    let wide = f64::from(near);
    if wide == x {
        return near;
    }
    // `near` is the nearest f32 (or infinity past f32::MAX); the truncation is it or its
    // neighbour towards zero (one less in the bits, whatever the sign).
    let truncated = if wide.abs() > x.abs() {
        near.to_bits() - 1
    } else {
        near.to_bits()
    };
    f32::from_bits(truncated | 1)
}

/// `x` rounded to the nearest [`f16`](struct@f16), ties to even: what `f16::from_f64(x)`
/// computes in a kernel, on the GPU (`cvt.rn.f16.f64`) and on the simulator. A NaN keeps its
/// sign and the top 10 bits of its payload and becomes quiet, as in `half`.
///
/// `half`'s own `f16::from_f64` agrees except near halfway points (see the module
/// documentation): it may round twice.
pub fn f16_from_f64(x: f64) -> f16 {
    if x.is_nan() {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        return f16::from_bits(sign | 0x7e00 | ((bits >> 42) & 0x3ff) as u16);
    }
    // With 13 more bits in f32 than in f16, the second rounding sees the sticky bit and is
    // exact. Every f16, and every halfway point between two, is an f32 normal.
    f16::from_f32(f32_round_to_odd(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(x: f32) -> f16 {
        f16::from_f32(x)
    }

    #[test]
    fn f16x2_layout_and_bits() {
        assert_eq!(std::mem::size_of::<f16x2>(), 4);
        assert_eq!(std::mem::align_of::<f16x2>(), 4);
        let p = f16x2::new(h(1.0), h(-2.0));
        assert_eq!(p.to_bits(), 0xc000_3c00);
        assert_eq!(f16x2::from_bits(0xc000_3c00), p);
        // SAFETY: f16x2 is 4 plain bytes.
        let bytes: [u8; 4] = unsafe { std::mem::transmute(p) };
        assert_eq!(
            u32::from_le_bytes(bytes),
            p.to_bits(),
            "lo at the lower address"
        );
        assert_eq!((p.lo(), p.hi()), (h(1.0), h(-2.0)));
        assert_eq!(f16x2::default().to_bits(), 0);
    }

    #[test]
    fn f16x2_ops_are_componentwise_f16_ops() {
        let vals = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            65504.0,
            -65504.0,
            6.0e-8,
            0.1,
            3.25,
            1000.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for &a in &vals {
            for &b in &vals {
                for &c in &vals {
                    let (x, y) = (f16x2::new(h(a), h(b)), f16x2::new(h(c), h(a)));
                    let same = |got: f16x2, lo: f16, hi: f16| {
                        got.lo.to_bits() == lo.to_bits() && got.hi.to_bits() == hi.to_bits()
                    };
                    assert!(same(x + y, h(a) + h(c), h(b) + h(a)));
                    assert!(same(x - y, h(a) - h(c), h(b) - h(a)));
                    assert!(same(x * y, h(a) * h(c), h(b) * h(a)));
                    let mut z = x;
                    z += y;
                    z -= x;
                    z *= y;
                    assert!(same(
                        z,
                        ((h(a) + h(c)) - h(a)) * h(c),
                        ((h(b) + h(a)) - h(b)) * h(a)
                    ));
                }
            }
        }
        // 2048 + 1 rounds to even in each half.
        let p = f16x2::new(h(2048.0), h(-2048.0)) + f16x2::new(h(1.0), h(-3.0));
        assert_eq!((p.lo.to_f32(), p.hi.to_f32()), (2048.0, -2052.0));
    }

    /// The exact rational value of a finite f64 compared with the halfway point above an
    /// f16, by exact integer arithmetic: the correctly rounded reference.
    fn reference(x: f64) -> f16 {
        if x.is_infinite() {
            return f16::from_f64(x);
        }
        let neg = x.is_sign_negative();
        let a = x.abs();
        // Walk the f16 magnitudes (all 0x7c00 of them, plus infinity) by bisection on
        // their values as f64 (exact), then decide the tie with the midpoint (exact in f64).
        let (mut lo, mut hi) = (0u16, 0x7c00u16);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if f16::from_bits(mid).to_f64() <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let below = f16::from_bits(lo).to_f64();
        let pick = if a == below {
            lo
        } else {
            // The midpoint of two neighbouring f16s, and of 65504 and 65536 (where f16
            // rounds to infinity), is exact in f64.
            let above = if hi == 0x7c00 {
                65536.0
            } else {
                f16::from_bits(hi).to_f64()
            };
            let mid = (below + above) / 2.0;
            if a < mid || (a == mid && lo % 2 == 0) {
                lo
            } else {
                hi
            }
        };
        f16::from_bits(pick | if neg { 0x8000 } else { 0 })
    }

    #[test]
    fn from_f64_is_correctly_rounded() {
        // Every f16 and every halfway point, nudged by a few ulps of f64 and of f32 and by
        // amounts f32 cannot hold.
        for bits in 0..0x7c00u16 {
            let v = f16::from_bits(bits).to_f64();
            let next = f16::from_bits(bits + 1).to_f64();
            let mid = if bits == 0x7bff {
                65520.0
            } else {
                (v + next) / 2.0
            };
            for base in [v, mid] {
                for rel in [0.0, 1e-16, 1e-12, 3e-9, 7e-8, 1e-7, 2e-5] {
                    for x in [base * (1.0 + rel), base * (1.0 - rel), -base * (1.0 + rel)] {
                        let got = f16_from_f64(x);
                        let want = reference(x);
                        assert_eq!(got.to_bits(), want.to_bits(), "{x:e} ({:#x})", x.to_bits());
                    }
                }
            }
        }
        for x in [
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            f64::MIN_POSITIVE,
            -5e-324,
            2.0f64.powi(-25),
            2.0f64.powi(-25) * (1.0 + 1e-15),
            -(2.0f64.powi(-25)) * (1.0 - 1e-15),
            65519.99999999999,
            65520.0,
        ] {
            assert_eq!(f16_from_f64(x).to_bits(), reference(x).to_bits(), "{x:e}");
        }
        // Where half rounds twice: just above the tie between 1 and 1 + 2^-10.
        let x = 1.0 + 2.0f64.powi(-11) + 2.0f64.powi(-40);
        assert_eq!(f16_from_f64(x).to_bits(), 0x3c01);
        // For every f64 that is an f32, half's from_f32 is correctly rounded.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let f = f32::from_bits(s as u32);
            if !f.is_nan() {
                assert_eq!(
                    f16_from_f64(f64::from(f)).to_bits(),
                    f16::from_f32(f).to_bits(),
                    "{f:e}"
                );
                let d = f64::from_bits(s);
                if !d.is_nan() && d.abs() < 1e6 && d.abs() > 1e-9 {
                    assert_eq!(f16_from_f64(d).to_bits(), reference(d).to_bits(), "{d:e}");
                }
            }
        }
    }

    #[test]
    fn from_f64_nan_as_half() {
        for bits in [
            0x7ff8_0000_0000_0000u64,
            0xfff8_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            0x7ff4_5678_9abc_def0,
            0xffff_ffff_ffff_ffff,
        ] {
            let x = f64::from_bits(bits);
            let want = f16::from_f64(x);
            assert_eq!(f16_from_f64(x).to_bits(), want.to_bits(), "{bits:#x}");
        }
    }
}
