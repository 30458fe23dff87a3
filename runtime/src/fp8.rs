//! The fp8 storage types [`e4m3`] and [`e5m2`] (CUDA's `__nv_fp8_e4m3` and
//! `__nv_fp8_e5m2`, the OCP 8-bit float formats), and their conversions to and from
//! [`f32`] and [`f16`](struct@f16), in integer arithmetic on the bits.
//!
//! They are storage types: a kernel loads, stores and converts them, and computes in `f32`
//! or `f16`, or multiplies them on the tensor cores (`mma_sync` of `M16N8K32` fragments into
//! an `f32` accumulator, sm_89 and later; docs/tensor-cores.md). The conversions are the GPU's (`cvt.rn.satfinite.e4m3x2.f32` and friends,
//! sm_89 and later; docs/semantics.md, "fp8"):
//!
//! - to fp8, round to nearest, ties to even, then saturate: a finite value beyond the
//!   largest finite fp8, and an infinity, become the largest finite fp8 of its sign
//!   (`e4m3`: 448, `e5m2`: 57344); a value below half the smallest subnormal becomes a zero
//!   of its sign;
//! - from fp8, exact (every `e4m3` and `e5m2` is an `f16` and an `f32`);
//! - a NaN stays a NaN of its sign, quiet, keeping the top payload bit that fits
//!   (`e4m3` has one NaN per sign, `S.1111.111`; `e5m2`'s are `S.11111.1x`), as this
//!   crate's `f16` conversions keep theirs.
//!
//! The simulator calls these functions; the C prelude (`prelude_fp8.cuh`) gives the same
//! bits, through `cvt` on sm_89 and later and through the same integer arithmetic before.

use crate::bf16_types::bf16;
use crate::half_types::f16;
use std::cmp::Ordering;
use std::fmt;

/// An fp8 format: its mantissa bits, exponent bias and largest finite code.
#[derive(Clone, Copy)]
struct Format {
    man: u32,
    bias: i32,
    max: u32,
    /// Whether it has infinities (`e5m2`), so that `S.11111.00` is not a NaN.
    inf: bool,
}

const E4M3: Format = Format {
    man: 3,
    bias: 7,
    max: 0x7e,
    inf: false,
};
const E5M2: Format = Format {
    man: 2,
    bias: 15,
    max: 0x7b,
    inf: true,
};

impl Format {
    /// Whether code `b` is a NaN.
    const fn is_nan(self, b: u8) -> bool {
        if self.inf {
            b & 0x7f > 0x7c
        } else {
            b & 0x7f == 0x7f
        }
    }

    /// The NaN for an `f32` NaN of bits `u`: its sign, quiet, and (`e5m2`) the payload's
    /// top bit below the quiet bit.
    const fn nan_of_f32(self, u: u32) -> u8 {
        let sign = ((u >> 24) & 0x80) as u8;
        if self.inf {
            sign | 0x7e | ((u >> 21) & 1) as u8
        } else {
            sign | 0x7f
        }
    }

    /// `f32` bits `u` rounded to nearest (ties to even), then saturated to the largest
    /// finite code; a NaN as [`Format::nan_of_f32`].
    const fn round_f32_bits(self, u: u32) -> u8 {
        let sign = ((u >> 24) & 0x80) as u8;
        let a = u & 0x7fff_ffff;
        if a > 0x7f80_0000 {
            return self.nan_of_f32(u);
        }
        // The value is m * 2^(e - 23) (an infinity: e = 128, and saturates below).
        let (e, m) = if a >= 0x0080_0000 {
            ((a >> 23) as i32 - 127, (a & 0x007f_ffff) | 0x0080_0000)
        } else {
            (-126, a)
        };
        // The fp8 quantum at this exponent is 2^(max(e, emin) - man): shift m right by
        // the difference, rounding to nearest even.
        let emin = 1 - self.bias;
        let below = if e < emin { emin - e } else { 0 };
        let shift = 23 - self.man as i32 + below;
        if shift > 25 {
            // m < 2^24 <= half a quantum: a zero of the sign.
            return sign;
        }
        let shift = shift as u32;
        let n = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        let n = if rem > half || (rem == half && n & 1 == 1) {
            n + 1
        } else {
            n
        };
        // A normal is n * 2^(e - man) with 2^man <= n <= 2^(man+1) (the top carries into
        // the exponent); a subnormal's code is n itself (n = 2^man: the smallest normal).
        let code = if e >= emin {
            (((e + self.bias) as u32) << self.man) + n - (1 << self.man)
        } else {
            n
        };
        let code = if code > self.max { self.max } else { code };
        sign | code as u8
    }

    /// The `f16` bits of code `b`: exact; a NaN quiet, with its sign and payload.
    const fn to_f16_bits(self, b: u8) -> u16 {
        let sign = (b as u16 & 0x80) << 8;
        if self.inf {
            // e5m2 is the top byte of an f16.
            let h = (b as u16) << 8;
            return if self.is_nan(b) { h | 0x0200 } else { h };
        }
        let a = (b & 0x7f) as u16;
        if a == 0x7f {
            return sign | 0x7e00;
        }
        let (e, m) = (a >> 3, a & 7);
        if e == 0 {
            if m == 0 {
                return sign;
            }
            // m * 2^-9, normal in f16: the leading bit p of m gives the exponent.
            let p = 15 - m.leading_zeros() as u16;
            return sign | (p + 6) << 10 | (m - (1 << p)) << (10 - p);
        }
        sign | (e + 8) << 10 | m << 7
    }
}

/// The `f32` of `f16` bits `h`: exact; a NaN quiet, with its sign and payload (as
/// `ws_f16_to_f32` in the C prelude).
const fn f16_bits_to_f32_bits(h: u16) -> u32 {
    let sign = (h as u32 & 0x8000) << 16;
    let e = ((h >> 10) & 0x1f) as u32;
    let m = (h & 0x3ff) as u32;
    if e == 0x1f {
        return sign | 0x7f80_0000 | if m != 0 { 0x0040_0000 | m << 13 } else { 0 };
    }
    if e == 0 {
        if m == 0 {
            return sign;
        }
        // m * 2^-24.
        let p = 31 - m.leading_zeros();
        return sign | (p + 103) << 23 | (m - (1 << p)) << (23 - p);
    }
    sign | (e + 112) << 23 | m << 13
}

macro_rules! fp8_type {
    ($(#[$doc:meta])* $t:ident, $fmt:ident, $c:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Default)]
        #[allow(non_camel_case_types)]
        pub struct $t(u8);

        impl $t {
            /// The value with these bits.
            pub const fn from_bits(bits: u8) -> $t {
                $t(bits)
            }

            /// The bits.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// `x` rounded to the nearest value, ties to even, then saturated: beyond the
            /// largest finite value, and for an infinity, the largest finite value of `x`'s
            /// sign. A NaN gives a NaN of its sign. The GPU's
            #[doc = concat!("`cvt.rn.satfinite.", $c, "x2.f32`.")]
            pub const fn from_f32(x: f32) -> $t {
                $t($fmt.round_f32_bits(x.to_bits()))
            }

            /// `x` rounded as [`from_f32`](Self::from_f32) rounds (every `f16` is an
            /// `f32`). The GPU's
            #[doc = concat!("`cvt.rn.satfinite.", $c, "x2.f16x2`.")]
            pub const fn from_f16(x: f16) -> $t {
                $t($fmt.round_f32_bits(f16_bits_to_f32_bits(x.to_bits())))
            }

            /// The value as an `f32`, exactly (a NaN: quiet, with its sign).
            pub const fn to_f32(self) -> f32 {
                f32::from_bits(f16_bits_to_f32_bits($fmt.to_f16_bits(self.0)))
            }

            /// The value as an `f16`, exactly (a NaN: quiet, with its sign). The GPU's
            #[doc = concat!("`cvt.rn.f16x2.", $c, "x2`.")]
            pub const fn to_f16(self) -> f16 {
                f16::from_bits($fmt.to_f16_bits(self.0))
            }

            /// `x` rounded as [`from_f32`](Self::from_f32) rounds (every `bf16` is an
            /// `f32`).
            pub fn from_bf16(x: bf16) -> $t {
                $t::from_f32(x.to_f32())
            }

            /// The value as a `bf16`, exactly (every fp8 value is one; a NaN: quiet, with
            /// its sign).
            pub fn to_bf16(self) -> bf16 {
                bf16::from_f32(self.to_f32())
            }

            /// Whether this is a NaN.
            pub const fn is_nan(self) -> bool {
                $fmt.is_nan(self.0)
            }
        }

        impl PartialEq for $t {
            /// As floats compare: a NaN equals nothing, `-0.0 == 0.0`.
            fn eq(&self, other: &$t) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        impl PartialOrd for $t {
            /// As floats order: `None` when either is a NaN.
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl From<$t> for f32 {
            fn from(x: $t) -> f32 {
                x.to_f32()
            }
        }

        impl From<$t> for f16 {
            fn from(x: $t) -> f16 {
                x.to_f16()
            }
        }
    };
}

fp8_type! {
    /// The OCP fp8 format E4M3 (CUDA's `__nv_fp8_e4m3`): 1 sign, 4 exponent (bias 7) and 3
    /// mantissa bits, no infinities, one NaN per sign (`S.1111.111`); largest finite 448,
    /// smallest normal 2^-6, smallest subnormal 2^-9. A storage type: kernels load, store
    /// and convert it (`e4m3::from_f32`, `x.to_f32()`), and compute in `f32` or `f16`. The
    /// module documentation says how it rounds.
    e4m3, E4M3, "e4m3"
}

fp8_type! {
    /// The OCP fp8 format E5M2 (CUDA's `__nv_fp8_e5m2`): 1 sign, 5 exponent (bias 15) and 2
    /// mantissa bits, IEEE-like (infinities `S.11111.00`, NaNs `S.11111.xx`); largest
    /// finite 57344, smallest normal 2^-14, smallest subnormal 2^-16. The top byte of an
    /// `f16`. A storage type, as [`e4m3`]; conversions to it saturate, so an infinity
    /// comes only from its bits.
    e5m2, E5M2, "e5m2"
}

impl e4m3 {
    /// The largest finite value, 448.
    pub const MAX: e4m3 = e4m3(0x7e);
    /// The smallest finite value, -448.
    pub const MIN: e4m3 = e4m3(0xfe);
    /// The smallest positive normal value, 2^-6.
    pub const MIN_POSITIVE: e4m3 = e4m3(0x08);
    /// The NaN `0.1111.111`.
    pub const NAN: e4m3 = e4m3(0x7f);
}

impl e5m2 {
    /// The largest finite value, 57344.
    pub const MAX: e5m2 = e5m2(0x7b);
    /// The smallest finite value, -57344.
    pub const MIN: e5m2 = e5m2(0xfb);
    /// The smallest positive normal value, 2^-14.
    pub const MIN_POSITIVE: e5m2 = e5m2(0x04);
    /// The quiet NaN `0.11111.10`.
    pub const NAN: e5m2 = e5m2(0x7e);
    /// Positive infinity.
    pub const INFINITY: e5m2 = e5m2(0x7c);
    /// Negative infinity.
    pub const NEG_INFINITY: e5m2 = e5m2(0xfc);
}

#[cfg(test)]
#[path = "fp8_tests.rs"]
mod tests;
