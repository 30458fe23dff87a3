//! `f16`'s and `bf16`'s [`Float`] methods (`h.sqrt()`, `h.exp()`, `h.min(o)`, ...), which
//! the `half` crate lacks: computed as CUDA's half math computes them (`hexp`, `hsin`, ...)
//! and as the GPU's prelude helpers (`ws_f16_exp`, ...) do: the `f32` function (Rust's std,
//! where the GPU calls CUDA's `expf`, ...) of the widened value, rounded once to the
//! nearest `f16`. f32 holds every f16, so the exact methods are exact or rounded once (for
//! `sqrt`, `recip` and the other basic operations, rounding twice is innocuous: f32 has at
//! least 2 * 11 + 2 bits). The predicates, `signum`, `copysign`, `next_up` and `next_down`
//! read `f16`'s own bits. A concrete kernel's simulator body calls them as
//! `Float::exp(h)` too. `bf16` (8 significant bits, `f32`'s exponent) is computed the same
//! way, from the same macro: f32 has at least 2 * 8 + 2 bits, and holds every bf16 too.
//! docs/semantics.md ("Half precision") gives the ulp bounds.

use crate::bf16_types::bf16;
use crate::generic::Float;
use crate::half_types::f16;

/// `Float` for a 16-bit float held in `f32`'s range or a narrower one: `$inf` is its
/// infinity's bits, `$min_normal` its smallest normal's.
macro_rules! half_float {
    ($t:ident, inf = $inf:literal, min_normal = $min_normal:literal) => {
        #[diagnostic::do_not_recommend]
        impl Float for $t {
            fn sqrt(self) -> Self {
                via_f32::<$t>(self, f32::sqrt)
            }
            fn abs(self) -> Self {
                $t::from_bits(self.to_bits() & 0x7fff)
            }
            fn min(self, other: Self) -> Self {
                via_f32::<$t>(self, |x| x.min(other.to_f32()))
            }
            fn max(self, other: Self) -> Self {
                via_f32::<$t>(self, |x| x.max(other.to_f32()))
            }
            fn floor(self) -> Self {
                via_f32::<$t>(self, f32::floor)
            }
            fn ceil(self) -> Self {
                via_f32::<$t>(self, f32::ceil)
            }
            fn round(self) -> Self {
                via_f32::<$t>(self, f32::round)
            }
            fn trunc(self) -> Self {
                via_f32::<$t>(self, f32::trunc)
            }
            fn clamp(self, min: Self, max: Self) -> Self {
                via_f32::<$t>(self, |x| x.clamp(min.to_f32(), max.to_f32()))
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                via_f32::<$t>(self, |x| x.mul_add(a.to_f32(), b.to_f32()))
            }
            fn powi(self, n: i32) -> Self {
                via_f32::<$t>(self, |x| x.powi(n))
            }
            fn sin_cos(self) -> (Self, Self) {
                let (s, c) = self.to_f32().sin_cos();
                ($t::from_f32(s), $t::from_f32(c))
            }
            // On the type's own bits: through f32 an f16 subnormal is normal, and the next f32
            // rounds back to the same value.
            fn signum(self) -> Self {
                $t::signum(self)
            }
            fn copysign(self, sign: Self) -> Self {
                $t::copysign(self, sign)
            }
            fn next_up(self) -> Self {
                let b = self.to_bits();
                if self.is_nan() || b == $inf {
                    return self;
                }
                $t::from_bits(match b & 0x7fff {
                    0 => 1,
                    _ if b & 0x8000 == 0 => b + 1,
                    _ => b - 1,
                })
            }
            fn next_down(self) -> Self {
                let b = self.to_bits();
                if self.is_nan() || b == ($inf | 0x8000) {
                    return self;
                }
                $t::from_bits(match b & 0x7fff {
                    0 => 0x8001,
                    _ if b & 0x8000 == 0 => b - 1,
                    _ => b + 1,
                })
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                $t::is_infinite(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            fn is_normal(self) -> bool {
                $t::is_normal(self)
            }
            fn is_subnormal(self) -> bool {
                let b = self.to_bits() & 0x7fff;
                b != 0 && b < $min_normal
            }
            fn is_sign_positive(self) -> bool {
                $t::is_sign_positive(self)
            }
            fn is_sign_negative(self) -> bool {
                $t::is_sign_negative(self)
            }
            fn recip(self) -> Self {
                via_f32::<$t>(self, f32::recip)
            }
            fn round_ties_even(self) -> Self {
                via_f32::<$t>(self, f32::round_ties_even)
            }
            fn fract(self) -> Self {
                via_f32::<$t>(self, f32::fract)
            }
            fn to_degrees(self) -> Self {
                via_f32::<$t>(self, f32::to_degrees)
            }
            fn to_radians(self) -> Self {
                via_f32::<$t>(self, f32::to_radians)
            }
            fn exp(self) -> Self {
                via_f32::<$t>(self, f32::exp)
            }
            fn exp2(self) -> Self {
                via_f32::<$t>(self, f32::exp2)
            }
            fn exp_m1(self) -> Self {
                via_f32::<$t>(self, f32::exp_m1)
            }
            fn ln(self) -> Self {
                via_f32::<$t>(self, f32::ln)
            }
            fn log2(self) -> Self {
                via_f32::<$t>(self, f32::log2)
            }
            fn log10(self) -> Self {
                via_f32::<$t>(self, f32::log10)
            }
            fn ln_1p(self) -> Self {
                via_f32::<$t>(self, f32::ln_1p)
            }
            fn cbrt(self) -> Self {
                via_f32::<$t>(self, f32::cbrt)
            }
            fn sin(self) -> Self {
                via_f32::<$t>(self, f32::sin)
            }
            fn cos(self) -> Self {
                via_f32::<$t>(self, f32::cos)
            }
            fn tan(self) -> Self {
                via_f32::<$t>(self, f32::tan)
            }
            fn asin(self) -> Self {
                via_f32::<$t>(self, f32::asin)
            }
            fn acos(self) -> Self {
                via_f32::<$t>(self, f32::acos)
            }
            fn atan(self) -> Self {
                via_f32::<$t>(self, f32::atan)
            }
            fn sinh(self) -> Self {
                via_f32::<$t>(self, f32::sinh)
            }
            fn cosh(self) -> Self {
                via_f32::<$t>(self, f32::cosh)
            }
            fn tanh(self) -> Self {
                via_f32::<$t>(self, f32::tanh)
            }
            fn asinh(self) -> Self {
                via_f32::<$t>(self, asinh_f32)
            }
            fn acosh(self) -> Self {
                via_f32::<$t>(self, acosh_f32)
            }
            fn atanh(self) -> Self {
                via_f32::<$t>(self, f32::atanh)
            }
            fn div_euclid(self, rhs: Self) -> Self {
                via_f32::<$t>(self, |x| x.div_euclid(rhs.to_f32()))
            }
            fn rem_euclid(self, rhs: Self) -> Self {
                via_f32::<$t>(self, |x| x.rem_euclid(rhs.to_f32()))
            }
            fn log(self, base: Self) -> Self {
                via_f32::<$t>(self, |x| x.log(base.to_f32()))
            }
            fn powf(self, n: Self) -> Self {
                via_f32::<$t>(self, |x| x.powf(n.to_f32()))
            }
            fn hypot(self, other: Self) -> Self {
                via_f32::<$t>(self, |x| x.hypot(other.to_f32()))
            }
            fn atan2(self, other: Self) -> Self {
                via_f32::<$t>(self, |x| x.atan2(other.to_f32()))
            }
        }
    };
}

/// The two 16-bit floats' conversions, for [`via_f32`].
trait ViaF32: Copy {
    fn widen(self) -> f32;
    fn narrow(x: f32) -> Self;
}

impl ViaF32 for f16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
    fn narrow(x: f32) -> Self {
        f16::from_f32(x)
    }
}

impl ViaF32 for bf16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
    fn narrow(x: f32) -> Self {
        bf16::from_f32(x)
    }
}

/// f32's `asinh`, without std's overflow above about 1.7e38 (`Float for f32`'s).
fn asinh_f32(x: f32) -> f32 {
    <f32 as crate::generic::Float>::asinh(x)
}

/// f32's `acosh`, as [`asinh_f32`].
fn acosh_f32(x: f32) -> f32 {
    <f32 as crate::generic::Float>::acosh(x)
}

/// `op` on the value as f32, rounded back.
fn via_f32<T: ViaF32>(h: T, op: impl FnOnce(f32) -> f32) -> T {
    T::narrow(op(h.widen()))
}

half_float!(f16, inf = 0x7c00, min_normal = 0x0400);
half_float!(bf16, inf = 0x7f80, min_normal = 0x0080);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn through_f32_is_exact_where_it_should_be() {
        let h = |v: f32| f16::from_f32(v);
        assert_eq!(Float::sqrt(h(2.25)), h(1.5));
        assert_eq!(Float::abs(h(-0.0)).to_bits(), 0);
        assert_eq!(Float::min(h(f32::NAN), h(3.0)), h(3.0));
        assert_eq!(Float::round(h(-2.5)), h(-3.0));
        assert_eq!(Float::trunc(h(-2.75)), h(-2.0));
        assert_eq!(Float::floor(h(65504.0)), h(65504.0));
    }

    #[test]
    fn math_is_the_f32_function_rounded_once() {
        let h = |v: f32| f16::from_f32(v);
        for v in [-3.5f32, -0.75, 0.0, 0.1, 1.0, 2.5, 11.0, 60000.0] {
            let bits = |x: f16| x.to_bits();
            assert_eq!(bits(Float::exp(h(v))), bits(h(h(v).to_f32().exp())));
            assert_eq!(bits(Float::sin(h(v))), bits(h(h(v).to_f32().sin())));
            let p = h(h(v).to_f32().powf(1.5));
            assert_eq!(bits(Float::powf(h(v), h(1.5))), bits(p));
        }
        assert_eq!(Float::exp(h(12.0)), f16::INFINITY);
        assert!(Float::ln(h(-1.0)).is_nan());
    }

    #[test]
    fn bit_methods_read_f16_bits() {
        let b = f16::from_bits;
        assert_eq!(Float::next_up(b(0)).to_bits(), 1);
        assert_eq!(Float::next_up(b(0x8000)).to_bits(), 1);
        assert_eq!(Float::next_down(b(0)).to_bits(), 0x8001);
        assert_eq!(Float::next_up(b(0x7bff)), f16::INFINITY);
        assert_eq!(Float::next_up(f16::INFINITY), f16::INFINITY);
        assert_eq!(Float::next_down(f16::NEG_INFINITY), f16::NEG_INFINITY);
        assert_eq!(Float::next_up(b(0x8001)).to_bits(), 0x8000);
        assert!(Float::is_subnormal(b(0x03ff)) && !Float::is_subnormal(b(0x0400)));
        assert!(!Float::is_normal(b(0x0001)) && Float::is_normal(b(0x0400)));
        assert_eq!(Float::signum(b(0x8000)), f16::NEG_ONE);
        assert_eq!(Float::copysign(f16::ONE, b(0xfe00)), f16::NEG_ONE);
    }

    #[test]
    fn bf16_bit_methods_read_bf16_bits() {
        let b = bf16::from_bits;
        assert_eq!(Float::next_up(b(0)).to_bits(), 1);
        assert_eq!(Float::next_down(b(0)).to_bits(), 0x8001);
        assert_eq!(Float::next_up(b(0x7f7f)), bf16::INFINITY);
        assert_eq!(Float::next_down(bf16::NEG_INFINITY), bf16::NEG_INFINITY);
        assert!(Float::is_subnormal(b(0x007f)) && !Float::is_subnormal(b(0x0080)));
        assert!(!Float::is_normal(b(0x0001)) && Float::is_normal(b(0x0080)));
        assert_eq!(Float::signum(b(0x8000)), bf16::NEG_ONE);
        assert_eq!(Float::abs(b(0xbf80)), bf16::ONE);
        // 1.0078125 is 1 + 2^-7, the next bf16 above 1: its square root ties in f32.
        let x = bf16::from_f32(2.25);
        assert_eq!(Float::sqrt(x), bf16::from_f32(1.5));
        assert_eq!(Float::exp(bf16::from_f32(89.0)), bf16::INFINITY);
        // Past std's f32 overflow (about 1.7e38): ln(2x), about 89.
        let big = bf16::from_f32(3.0e38);
        assert_eq!(Float::asinh(big), bf16::from_f64(3.0e38f64.asinh()));
        assert_eq!(Float::asinh(-big), bf16::from_f64(-(3.0e38f64.asinh())));
        assert_eq!(Float::acosh(big), bf16::from_f64(3.0e38f64.acosh()));
        assert_eq!(Float::asinh(bf16::INFINITY), bf16::INFINITY);
    }
}
