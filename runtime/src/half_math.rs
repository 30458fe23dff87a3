//! `f16`'s [`Float`] methods (`h.sqrt()`, `h.min(o)`, ...), which the `half` crate lacks:
//! computed through `f32` exactly as the GPU's prelude helpers (`ws_f16_sqrt`, ...) compute
//! them. f32 holds every f16, so each result is exact or rounded once back to f16 (for
//! `sqrt`, rounding twice is innocuous: f32 has at least 2 * 11 + 2 bits). A concrete
//! kernel's simulator body calls them as `<f16 as Float>::sqrt(h)` too.

use crate::generic::Float;
use crate::half_types::f16;

/// `op` on the value as f32, rounded back.
fn via_f32(h: f16, op: impl FnOnce(f32) -> f32) -> f16 {
    f16::from_f32(op(h.to_f32()))
}

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
}
