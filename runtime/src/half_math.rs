//! `f16`'s [`Float`] methods (`h.sqrt()`, `h.exp()`, `h.min(o)`, ...), which the `half`
//! crate lacks: computed as CUDA's half math computes them (`hexp`, `hsin`, ...) and as the
//! GPU's prelude helpers (`ws_f16_exp`, ...) do: the `f32` function (Rust's std, where the
//! GPU calls CUDA's `expf`, ...) of the widened value, rounded once to the nearest `f16`.
//! f32 holds every f16, so the exact methods are exact or rounded once (for `sqrt`, `recip`
//! and the other basic operations, rounding twice is innocuous: f32 has at least 2 * 11 + 2
//! bits). The predicates, `signum`, `copysign`, `next_up` and `next_down` read `f16`'s own
//! bits. A concrete kernel's simulator body calls them as `<f16 as Float>::exp(h)` too.
//! docs/semantics.md ("Half precision") gives the ulp bounds.

use crate::generic::Float;
use crate::half_types::f16;

/// `op` on the value as f32, rounded back.
fn via_f32(h: f16, op: impl FnOnce(f32) -> f32) -> f16 {
    f16::from_f32(op(h.to_f32()))
}

#[diagnostic::do_not_recommend]
impl Float for f16 {
    fn sqrt(self) -> Self {
        via_f32(self, f32::sqrt)
    }
    fn abs(self) -> Self {
        f16::from_bits(self.to_bits() & 0x7fff)
    }
    fn min(self, other: Self) -> Self {
        via_f32(self, |x| x.min(other.to_f32()))
    }
    fn max(self, other: Self) -> Self {
        via_f32(self, |x| x.max(other.to_f32()))
    }
    fn floor(self) -> Self {
        via_f32(self, f32::floor)
    }
    fn ceil(self) -> Self {
        via_f32(self, f32::ceil)
    }
    fn round(self) -> Self {
        via_f32(self, f32::round)
    }
    fn trunc(self) -> Self {
        via_f32(self, f32::trunc)
    }
    fn clamp(self, min: Self, max: Self) -> Self {
        via_f32(self, |x| x.clamp(min.to_f32(), max.to_f32()))
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        via_f32(self, |x| x.mul_add(a.to_f32(), b.to_f32()))
    }
    fn powi(self, n: i32) -> Self {
        via_f32(self, |x| x.powi(n))
    }
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = self.to_f32().sin_cos();
        (f16::from_f32(s), f16::from_f32(c))
    }
    // On f16's own bits: through f32 an f16 subnormal is normal, and the next f32 rounds
    // back to the same f16.
    fn signum(self) -> Self {
        f16::signum(self)
    }
    fn copysign(self, sign: Self) -> Self {
        f16::copysign(self, sign)
    }
    fn next_up(self) -> Self {
        let b = self.to_bits();
        if self.is_nan() || b == 0x7c00 {
            return self;
        }
        f16::from_bits(match b & 0x7fff {
            0 => 1,
            _ if b & 0x8000 == 0 => b + 1,
            _ => b - 1,
        })
    }
    fn next_down(self) -> Self {
        let b = self.to_bits();
        if self.is_nan() || b == 0xfc00 {
            return self;
        }
        f16::from_bits(match b & 0x7fff {
            0 => 0x8001,
            _ if b & 0x8000 == 0 => b - 1,
            _ => b + 1,
        })
    }
    fn is_nan(self) -> bool {
        f16::is_nan(self)
    }
    fn is_infinite(self) -> bool {
        f16::is_infinite(self)
    }
    fn is_finite(self) -> bool {
        f16::is_finite(self)
    }
    fn is_normal(self) -> bool {
        f16::is_normal(self)
    }
    fn is_subnormal(self) -> bool {
        let b = self.to_bits() & 0x7fff;
        b != 0 && b < 0x0400
    }
    fn is_sign_positive(self) -> bool {
        f16::is_sign_positive(self)
    }
    fn is_sign_negative(self) -> bool {
        f16::is_sign_negative(self)
    }
    fn recip(self) -> Self {
        via_f32(self, f32::recip)
    }
    fn round_ties_even(self) -> Self {
        via_f32(self, f32::round_ties_even)
    }
    fn fract(self) -> Self {
        via_f32(self, f32::fract)
    }
    fn to_degrees(self) -> Self {
        via_f32(self, f32::to_degrees)
    }
    fn to_radians(self) -> Self {
        via_f32(self, f32::to_radians)
    }
    fn exp(self) -> Self {
        via_f32(self, f32::exp)
    }
    fn exp2(self) -> Self {
        via_f32(self, f32::exp2)
    }
    fn exp_m1(self) -> Self {
        via_f32(self, f32::exp_m1)
    }
    fn ln(self) -> Self {
        via_f32(self, f32::ln)
    }
    fn log2(self) -> Self {
        via_f32(self, f32::log2)
    }
    fn log10(self) -> Self {
        via_f32(self, f32::log10)
    }
    fn ln_1p(self) -> Self {
        via_f32(self, f32::ln_1p)
    }
    fn cbrt(self) -> Self {
        via_f32(self, f32::cbrt)
    }
    fn sin(self) -> Self {
        via_f32(self, f32::sin)
    }
    fn cos(self) -> Self {
        via_f32(self, f32::cos)
    }
    fn tan(self) -> Self {
        via_f32(self, f32::tan)
    }
    fn asin(self) -> Self {
        via_f32(self, f32::asin)
    }
    fn acos(self) -> Self {
        via_f32(self, f32::acos)
    }
    fn atan(self) -> Self {
        via_f32(self, f32::atan)
    }
    fn sinh(self) -> Self {
        via_f32(self, f32::sinh)
    }
    fn cosh(self) -> Self {
        via_f32(self, f32::cosh)
    }
    fn tanh(self) -> Self {
        via_f32(self, f32::tanh)
    }
    fn asinh(self) -> Self {
        via_f32(self, f32::asinh)
    }
    fn acosh(self) -> Self {
        via_f32(self, f32::acosh)
    }
    fn atanh(self) -> Self {
        via_f32(self, f32::atanh)
    }
    fn div_euclid(self, rhs: Self) -> Self {
        via_f32(self, |x| x.div_euclid(rhs.to_f32()))
    }
    fn rem_euclid(self, rhs: Self) -> Self {
        via_f32(self, |x| x.rem_euclid(rhs.to_f32()))
    }
    fn log(self, base: Self) -> Self {
        via_f32(self, |x| x.log(base.to_f32()))
    }
    fn powf(self, n: Self) -> Self {
        via_f32(self, |x| x.powf(n.to_f32()))
    }
    fn hypot(self, other: Self) -> Self {
        via_f32(self, |x| x.hypot(other.to_f32()))
    }
    fn atan2(self, other: Self) -> Self {
        via_f32(self, |x| x.atan2(other.to_f32()))
    }
}

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
}
