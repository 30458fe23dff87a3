//! The bounds of generic kernels: [`Scalar`], [`Float`] and [`Int`].
//!
//! `#[gpu_kernel] fn axpy<T: Float>(..)` is compiled once per type of the bound (its C is
//! emitted for `f16`, `bf16`, `f32` and `f64`), and its simulator body is generic Rust over `T`, so
//! rustc checks it against these traits. The traits are sealed: their type sets are the
//! instances the macro emits, and no other type can be launched.
//!
//! What the traits offer is what every type of the bound has on the GPU and the simulator
//! alike; docs/language.md ("Generics") lists it. The hidden supertraits `GpuOps`,
//! `GpuBits`, `AsNum` and `GpuPrint` are what the generated simulator body calls for
//! operators, conversions and printing on a `T` (with the GPU's semantics: integer
//! arithmetic wraps).

use crate::bf16_types::{bf16, bf16_from_f64};
use crate::half_types::{f16, f16_from_f64};
use crate::scalar::KernelScalar;
use std::fmt::Debug;

mod sealed {
    pub trait Sealed {}
}

/// Any scalar a kernel may be generic over: `bool`, the integers (`i8`..`i64`, `isize`,
/// `u8`..`u64`, `usize`) and the floats (`f16`, `bf16`, `f32`, `f64`).
///
/// A kernel generic over `T: Scalar` may copy `T` values, load and store them, and compare
/// them (`==`, `!=`, `<`, ..., as `PartialEq`/`PartialOrd`); it has no arithmetic (`bool`
/// has none). The macro compiles such a kernel for each of the 15 types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel scalar: `Scalar` covers bool, the integers, f16, bf16, f32 and f64",
    label = "not one of `Scalar`'s types"
)]
pub trait Scalar:
    KernelScalar + PartialEq + PartialOrd + Debug + GpuPrint + ScalarName + sealed::Sealed
{
}

/// A scalar's Rust name (`"f32"`): how a generic `#[gpu_struct]`'s impls pick the instance
/// of their type arguments (`Params<f32>` is C's `ws_s_Params_f32`). Not an API.
#[doc(hidden)]
pub trait ScalarName {
    /// The type's name as Rust writes it.
    const RUST_NAME: &'static str;
}

macro_rules! scalar_names {
    ($($t:ident)*) => {$(
        impl ScalarName for $t {
            const RUST_NAME: &'static str = stringify!($t);
        }
    )*};
}
scalar_names!(bool i8 i16 i32 i64 isize u8 u16 u32 u64 usize f16 bf16 f32 f64);

/// A value as `gpu_print!("{:w}", x)` / `("{:0w}", x)` prints it on the GPU: a float as
/// C's `%g` right-aligned in `width` (`0` ignored, as for a concrete float), an integer
/// right-aligned or zero-padded, a bool as text, left-aligned. Not an API: the generic
/// simulator body calls it.
#[doc(hidden)]
pub trait GpuPrint: Copy {
    fn ws_display(self, width: usize, zero: bool) -> String;
}

/// The numbers' conversions, with Rust's `as` semantics, shared by [`Float`] and [`Int`]:
/// in a generic kernel they stand in for literals (`T::from_f32(0.5)`, `T::one()`) and for
/// `as` (`x.to_usize()`), which Rust has not for a type parameter.
macro_rules! conversions {
    () => {
        /// `0` of this type.
        fn zero() -> Self {
            cast(0i32)
        }
        /// `1` of this type.
        fn one() -> Self {
            cast(1i32)
        }
        /// `v as Self`.
        fn from_f32(v: f32) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_f64(v: f64) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_i32(v: i32) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_u32(v: u32) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_i64(v: i64) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_u64(v: u64) -> Self {
            cast(v)
        }
        /// `v as Self`.
        fn from_usize(v: usize) -> Self {
            cast(v)
        }
        /// `self as f32`.
        fn to_f32(self) -> f32 {
            cast(self)
        }
        /// `self as f64`.
        fn to_f64(self) -> f64 {
            cast(self)
        }
        /// `self as i32`.
        fn to_i32(self) -> i32 {
            cast(self)
        }
        /// `self as u32`.
        fn to_u32(self) -> u32 {
            cast(self)
        }
        /// `self as i64`.
        fn to_i64(self) -> i64 {
            cast(self)
        }
        /// `self as u64`.
        fn to_u64(self) -> u64 {
            cast(self)
        }
        /// `self as usize`.
        fn to_usize(self) -> usize {
            cast(self)
        }
    };
}

/// The floats a kernel may be generic over: `f16`, `bf16`, `f32`, `f64`.
///
/// A kernel generic over `T: Float` has `+ - * / %` and unary `-` on `T` (exactly as the
/// concrete kernels: IEEE, no contraction), comparisons, the conversions (`T::zero()`,
/// `T::one()`, `T::from_f32(v)`, ..., `x.to_f32()`, ..., each Rust's `as`) and every float
/// method a concrete kernel has (docs/methods.md), except `to_bits`, whose result type
/// differs per type. For `f32` and `f64` each is the std method; for `f16` it is CUDA's half
/// math: the `f32` function of the widened value, rounded once to the nearest `f16` (ties
/// to even). The predicates, `abs`, `signum`, `copysign`, `next_up` and `next_down` work on
/// `f16`'s own bits. docs/semantics.md ("Half precision") gives the ulp bounds: an `f16`
/// transcendental is within 1 ulp of the correctly rounded result, and the GPU's and the
/// simulator's agree except, rarely, by 1 ulp next to a halfway point between two `f16`s.
/// `bf16` is computed the same way (through `f32`, rounded once to `bf16`), with the same
/// bounds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float: `Float` covers f16, bf16, f32 and f64",
    label = "not one of `Float`'s types"
)]
pub trait Float:
    Scalar
    + GpuOps
    + AsNum
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    conversions!();
    /// `self.sqrt()`: correctly rounded.
    fn sqrt(self) -> Self;
    /// `self.abs()`: the sign bit cleared.
    fn abs(self) -> Self;
    /// `self.min(other)`: a NaN operand loses.
    fn min(self, other: Self) -> Self;
    /// `self.max(other)`: a NaN operand loses.
    fn max(self, other: Self) -> Self;
    /// `self.floor()`.
    fn floor(self) -> Self;
    /// `self.ceil()`.
    fn ceil(self) -> Self;
    /// `self.round()`: ties away from zero.
    fn round(self) -> Self;
    /// `self.trunc()`.
    fn trunc(self) -> Self;
    /// `self.clamp(min, max)`: panics when `min > max` or a bound is NaN, as std.
    fn clamp(self, min: Self, max: Self) -> Self;
    /// `self.mul_add(a, b)`: `self * a + b` with one rounding (`f16`: in `f32`, then
    /// rounded to `f16`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `self.powi(n)`: by squaring, in LLVM's order.
    fn powi(self, n: i32) -> Self;
    /// `self.sin_cos()`: `(self.sin(), self.cos())`.
    fn sin_cos(self) -> (Self, Self);
    /// `self.signum()`: 1.0 or -1.0 with the sign of `self`; NaN for NaN.
    fn signum(self) -> Self;
    /// `self.recip()`: `1.0 / self`.
    fn recip(self) -> Self;
    /// `self.round_ties_even()`: rounded to nearest, ties to even.
    fn round_ties_even(self) -> Self;
    /// `self.fract()`: `self - self.trunc()`.
    fn fract(self) -> Self;
    /// `self.to_degrees()`: radians to degrees.
    fn to_degrees(self) -> Self;
    /// `self.to_radians()`: degrees to radians.
    fn to_radians(self) -> Self;
    /// `self.next_up()`: the next larger value of the type.
    fn next_up(self) -> Self;
    /// `self.next_down()`: the next smaller value of the type.
    fn next_down(self) -> Self;
    /// `self.exp()`: `e^self`.
    fn exp(self) -> Self;
    /// `self.exp2()`: `2^self`.
    fn exp2(self) -> Self;
    /// `self.exp_m1()`: `e^self - 1`, accurate near 0.
    fn exp_m1(self) -> Self;
    /// `self.ln()`: natural logarithm.
    fn ln(self) -> Self;
    /// `self.log2()`: base-2 logarithm.
    fn log2(self) -> Self;
    /// `self.log10()`: base-10 logarithm.
    fn log10(self) -> Self;
    /// `self.ln_1p()`: `ln(1 + self)`, accurate near 0.
    fn ln_1p(self) -> Self;
    /// `self.cbrt()`: cube root.
    fn cbrt(self) -> Self;
    /// `self.sin()`: sine.
    fn sin(self) -> Self;
    /// `self.cos()`: cosine.
    fn cos(self) -> Self;
    /// `self.tan()`: tangent.
    fn tan(self) -> Self;
    /// `self.asin()`: arcsine.
    fn asin(self) -> Self;
    /// `self.acos()`: arccosine.
    fn acos(self) -> Self;
    /// `self.atan()`: arctangent.
    fn atan(self) -> Self;
    /// `self.sinh()`: hyperbolic sine.
    fn sinh(self) -> Self;
    /// `self.cosh()`: hyperbolic cosine.
    fn cosh(self) -> Self;
    /// `self.tanh()`: hyperbolic tangent.
    fn tanh(self) -> Self;
    /// `self.asinh()`: inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// `self.acosh()`: inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// `self.atanh()`: inverse hyperbolic tangent.
    fn atanh(self) -> Self;
    /// `self.copysign(sign)`: `|self|` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// `self.div_euclid(rhs)`: quotient of Euclidean division.
    fn div_euclid(self, rhs: Self) -> Self;
    /// `self.rem_euclid(rhs)`: remainder of Euclidean division.
    fn rem_euclid(self, rhs: Self) -> Self;
    /// `self.log(base)`: logarithm to `base`.
    fn log(self, base: Self) -> Self;
    /// `self.powf(n)`: `self^n`.
    fn powf(self, n: Self) -> Self;
    /// `self.hypot(other)`: `sqrt(self² + other²)` without overflow.
    fn hypot(self, other: Self) -> Self;
    /// `self.atan2(other)`: four-quadrant arctangent of `self / other`.
    fn atan2(self, other: Self) -> Self;
    /// `self.is_nan()`: NaN.
    fn is_nan(self) -> bool;
    /// `self.is_infinite()`: ±infinity.
    fn is_infinite(self) -> bool;
    /// `self.is_finite()`: neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// `self.is_normal()`: not zero, subnormal, infinite or NaN.
    fn is_normal(self) -> bool;
    /// `self.is_subnormal()`: subnormal.
    fn is_subnormal(self) -> bool;
    /// `self.is_sign_positive()`: sign bit clear.
    fn is_sign_positive(self) -> bool;
    /// `self.is_sign_negative()`: sign bit set.
    fn is_sign_negative(self) -> bool;
}

/// The integers a kernel may be generic over: `i8`, `i16`, `i32`, `i64`, `isize`, `u8`,
/// `u16`, `u32`, `u64`, `usize`.
///
/// A kernel generic over `T: Int` has `+ - * / %` (wrapping, as the release build and the
/// concrete kernels), `& | ^ !`, `<< >>` (the amount masked to the width), comparisons,
/// `min`/`max`/`clamp` (from `Ord`), the methods below (Rust's, bit-exact on the GPU) and
/// the conversions (`T::zero()`, `T::from_u32(v)`, `x.to_usize()`, ..., each Rust's `as`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an integer: `Int` covers i8, i16, i32, i64, isize, u8, u16, u32, u64 and usize",
    label = "not one of `Int`'s types"
)]
pub trait Int:
    Scalar + Ord + std::fmt::LowerHex + std::fmt::UpperHex + GpuOps + GpuBits + AsNum
{
    conversions!();
    /// `self.wrapping_add(rhs)`.
    fn wrapping_add(self, rhs: Self) -> Self;
    /// `self.wrapping_sub(rhs)`.
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// `self.wrapping_mul(rhs)`.
    fn wrapping_mul(self, rhs: Self) -> Self;
    /// `self.wrapping_div(rhs)` (panics on a zero divisor, as Rust).
    fn wrapping_div(self, rhs: Self) -> Self;
    /// `self.wrapping_rem(rhs)` (panics on a zero divisor, as Rust).
    fn wrapping_rem(self, rhs: Self) -> Self;
    /// `self.wrapping_neg()`.
    fn wrapping_neg(self) -> Self;
    /// `self.wrapping_shl(n)`: the amount masked to the width.
    fn wrapping_shl(self, n: u32) -> Self;
    /// `self.wrapping_shr(n)`: the amount masked to the width.
    fn wrapping_shr(self, n: u32) -> Self;
    /// `self.wrapping_pow(n)` (what `pow` computes in a kernel).
    fn wrapping_pow(self, n: u32) -> Self;
    /// `self.wrapping_div_euclid(rhs)` (what `div_euclid` computes in a kernel).
    fn wrapping_div_euclid(self, rhs: Self) -> Self;
    /// `self.wrapping_rem_euclid(rhs)` (what `rem_euclid` computes in a kernel).
    fn wrapping_rem_euclid(self, rhs: Self) -> Self;
    /// `self.saturating_add(rhs)`.
    fn saturating_add(self, rhs: Self) -> Self;
    /// `self.saturating_sub(rhs)`.
    fn saturating_sub(self, rhs: Self) -> Self;
    /// `self.saturating_mul(rhs)`.
    fn saturating_mul(self, rhs: Self) -> Self;
    /// `self.rotate_left(n)`.
    fn rotate_left(self, n: u32) -> Self;
    /// `self.rotate_right(n)`.
    fn rotate_right(self, n: u32) -> Self;
    /// `self.swap_bytes()`.
    fn swap_bytes(self) -> Self;
    /// `self.reverse_bits()`.
    fn reverse_bits(self) -> Self;
    /// `self.count_ones()`.
    fn count_ones(self) -> u32;
    /// `self.count_zeros()`.
    fn count_zeros(self) -> u32;
    /// `self.leading_zeros()`.
    fn leading_zeros(self) -> u32;
    /// `self.trailing_zeros()`.
    fn trailing_zeros(self) -> u32;
    /// `self.leading_ones()`.
    fn leading_ones(self) -> u32;
    /// `self.trailing_ones()`.
    fn trailing_ones(self) -> u32;
}

/// The operators of a generic kernel's simulator body, with the GPU's semantics (integers
/// wrap). Not an API: the generated code calls it.
#[doc(hidden)]
pub trait GpuOps: Copy {
    fn ws_add(self, r: Self) -> Self;
    fn ws_sub(self, r: Self) -> Self;
    fn ws_mul(self, r: Self) -> Self;
    fn ws_div(self, r: Self) -> Self;
    fn ws_rem(self, r: Self) -> Self;
    fn ws_neg(self) -> Self;
}

/// The integer-only operators of a generic kernel's simulator body (shifts mask the
/// amount, as on the GPU). Not an API.
#[doc(hidden)]
pub trait GpuBits: Copy {
    fn ws_and(self, r: Self) -> Self;
    fn ws_or(self, r: Self) -> Self;
    fn ws_xor(self, r: Self) -> Self;
    fn ws_not(self) -> Self;
    fn ws_shl(self, n: u32) -> Self;
    fn ws_shr(self, n: u32) -> Self;
}

/// A number as an integer or a float, wide enough that every `as` between the kernel
/// scalars goes through it exactly. Not an API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum NumVal {
    Int(i128),
    Float(f64),
}

/// Conversion through [`NumVal`] with `as` semantics. Not an API.
#[doc(hidden)]
pub trait AsNum: Copy {
    fn to_num(self) -> NumVal;
    fn from_num(v: NumVal) -> Self;
}

/// `s as D` for any two kernel numbers, as Rust's `as`: integers truncate (wrap), floats to
/// integers saturate (NaN to 0), integers to floats and f64 to f32 round to nearest. The
/// generated simulator body calls it where a `T` is converted.
#[doc(hidden)]
pub fn cast<S: AsNum, D: AsNum>(s: S) -> D {
    D::from_num(s.to_num())
}

macro_rules! int_impls {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        // `do_not_recommend` on each impl of `Scalar`, `Int` and `Float`: rustc's error for
        // a type outside a bound then lists no impls, whose spans are these macros' (the
        // bound's message already names its types).
        #[diagnostic::do_not_recommend]
        impl Scalar for $t {}
        impl AsNum for $t {
            fn to_num(self) -> NumVal {
                NumVal::Int(self as i128)
            }
            fn from_num(v: NumVal) -> Self {
                match v {
                    NumVal::Int(i) => i as $t,
                    NumVal::Float(f) => f as $t,
                }
            }
        }
        impl GpuOps for $t {
            fn ws_add(self, r: Self) -> Self { <$t>::wrapping_add(self, r) }
            fn ws_sub(self, r: Self) -> Self { <$t>::wrapping_sub(self, r) }
            fn ws_mul(self, r: Self) -> Self { <$t>::wrapping_mul(self, r) }
            fn ws_div(self, r: Self) -> Self { <$t>::wrapping_div(self, r) }
            fn ws_rem(self, r: Self) -> Self { <$t>::wrapping_rem(self, r) }
            fn ws_neg(self) -> Self { <$t>::wrapping_neg(self) }
        }
        impl GpuBits for $t {
            fn ws_and(self, r: Self) -> Self { self & r }
            fn ws_or(self, r: Self) -> Self { self | r }
            fn ws_xor(self, r: Self) -> Self { self ^ r }
            fn ws_not(self) -> Self { !self }
            fn ws_shl(self, n: u32) -> Self { <$t>::wrapping_shl(self, n) }
            fn ws_shr(self, n: u32) -> Self { <$t>::wrapping_shr(self, n) }
        }
        #[diagnostic::do_not_recommend]
        impl Int for $t {
            fn wrapping_add(self, rhs: Self) -> Self { <$t>::wrapping_add(self, rhs) }
            fn wrapping_sub(self, rhs: Self) -> Self { <$t>::wrapping_sub(self, rhs) }
            fn wrapping_mul(self, rhs: Self) -> Self { <$t>::wrapping_mul(self, rhs) }
            fn wrapping_div(self, rhs: Self) -> Self { <$t>::wrapping_div(self, rhs) }
            fn wrapping_rem(self, rhs: Self) -> Self { <$t>::wrapping_rem(self, rhs) }
            fn wrapping_neg(self) -> Self { <$t>::wrapping_neg(self) }
            fn wrapping_shl(self, n: u32) -> Self { <$t>::wrapping_shl(self, n) }
            fn wrapping_shr(self, n: u32) -> Self { <$t>::wrapping_shr(self, n) }
            fn wrapping_pow(self, n: u32) -> Self { <$t>::wrapping_pow(self, n) }
            fn wrapping_div_euclid(self, rhs: Self) -> Self { <$t>::wrapping_div_euclid(self, rhs) }
            fn wrapping_rem_euclid(self, rhs: Self) -> Self { <$t>::wrapping_rem_euclid(self, rhs) }
            fn saturating_add(self, rhs: Self) -> Self { <$t>::saturating_add(self, rhs) }
            fn saturating_sub(self, rhs: Self) -> Self { <$t>::saturating_sub(self, rhs) }
            fn saturating_mul(self, rhs: Self) -> Self { <$t>::saturating_mul(self, rhs) }
            fn rotate_left(self, n: u32) -> Self { <$t>::rotate_left(self, n) }
            fn rotate_right(self, n: u32) -> Self { <$t>::rotate_right(self, n) }
            fn swap_bytes(self) -> Self { <$t>::swap_bytes(self) }
            fn reverse_bits(self) -> Self { <$t>::reverse_bits(self) }
            fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            fn count_zeros(self) -> u32 { <$t>::count_zeros(self) }
            fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
            fn leading_ones(self) -> u32 { <$t>::leading_ones(self) }
            fn trailing_ones(self) -> u32 { <$t>::trailing_ones(self) }
        }
    )*};
}
int_impls!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! print_ints {
    ($($t:ty),*) => {$(
        impl GpuPrint for $t {
            fn ws_display(self, width: usize, zero: bool) -> String {
                if zero {
                    format!("{self:0width$}")
                } else {
                    format!("{self:width$}")
                }
            }
        }
    )*};
}
print_ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! print_floats {
    ($($t:ty => |$v:ident| $e:expr;)*) => {$(
        impl GpuPrint for $t {
            fn ws_display(self, width: usize, _zero: bool) -> String {
                let $v = self;
                format!("{:>width$}", crate::sim::format_g($e))
            }
        }
    )*};
}
print_floats! {
    f32 => |v| v as f64;
    f64 => |v| v;
    f16 => |v| v.to_f64();
    bf16 => |v| v.to_f64();
}

impl GpuPrint for bool {
    fn ws_display(self, width: usize, _zero: bool) -> String {
        format!("{self:width$}")
    }
}

macro_rules! float_impls {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        #[diagnostic::do_not_recommend]
        impl Scalar for $t {}
        impl AsNum for $t {
            fn to_num(self) -> NumVal {
                NumVal::Float(self as f64)
            }
            fn from_num(v: NumVal) -> Self {
                match v {
                    NumVal::Int(i) => i as $t,
                    NumVal::Float(f) => f as $t,
                }
            }
        }
        impl GpuOps for $t {
            fn ws_add(self, r: Self) -> Self { self + r }
            fn ws_sub(self, r: Self) -> Self { self - r }
            fn ws_mul(self, r: Self) -> Self { self * r }
            fn ws_div(self, r: Self) -> Self { self / r }
            fn ws_rem(self, r: Self) -> Self { self % r }
            fn ws_neg(self) -> Self { -self }
        }
        #[diagnostic::do_not_recommend]
        impl Float for $t {
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn abs(self) -> Self { <$t>::abs(self) }
            fn min(self, other: Self) -> Self { <$t>::min(self, other) }
            fn max(self, other: Self) -> Self { <$t>::max(self, other) }
            fn floor(self) -> Self { <$t>::floor(self) }
            fn ceil(self) -> Self { <$t>::ceil(self) }
            fn round(self) -> Self { <$t>::round(self) }
            fn trunc(self) -> Self { <$t>::trunc(self) }
            fn clamp(self, min: Self, max: Self) -> Self { <$t>::clamp(self, min, max) }
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
            fn powi(self, n: i32) -> Self { <$t>::powi(self, n) }
            fn sin_cos(self) -> (Self, Self) { <$t>::sin_cos(self) }
            fn signum(self) -> Self { <$t>::signum(self) }
            fn recip(self) -> Self { <$t>::recip(self) }
            fn round_ties_even(self) -> Self { <$t>::round_ties_even(self) }
            fn fract(self) -> Self { <$t>::fract(self) }
            fn to_degrees(self) -> Self { <$t>::to_degrees(self) }
            fn to_radians(self) -> Self { <$t>::to_radians(self) }
            fn next_up(self) -> Self { <$t>::next_up(self) }
            fn next_down(self) -> Self { <$t>::next_down(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn exp2(self) -> Self { <$t>::exp2(self) }
            fn exp_m1(self) -> Self { <$t>::exp_m1(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn log2(self) -> Self { <$t>::log2(self) }
            fn log10(self) -> Self { <$t>::log10(self) }
            fn ln_1p(self) -> Self { <$t>::ln_1p(self) }
            fn cbrt(self) -> Self { <$t>::cbrt(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn asin(self) -> Self { <$t>::asin(self) }
            fn acos(self) -> Self { <$t>::acos(self) }
            fn atan(self) -> Self { <$t>::atan(self) }
            fn sinh(self) -> Self { <$t>::sinh(self) }
            fn cosh(self) -> Self { <$t>::cosh(self) }
            fn tanh(self) -> Self { <$t>::tanh(self) }
            // std computes `|x| + |x| / (..)`, infinite above about 1.7e38 (f32) although
            // the result is about 89; CUDA's does not overflow. From 2^64 on both are
            // `ln(2|x|)` within the type's precision (the neglected term is < 1 / (4x²)).
            fn asinh(self) -> Self {
                if self.abs() >= 18446744073709551616.0 {
                    (self.abs().ln() + std::f64::consts::LN_2 as $t).copysign(self)
                } else {
                    <$t>::asinh(self)
                }
            }
            fn acosh(self) -> Self {
                if self >= 18446744073709551616.0 {
                    self.ln() + std::f64::consts::LN_2 as $t
                } else {
                    <$t>::acosh(self)
                }
            }
            fn atanh(self) -> Self { <$t>::atanh(self) }
            fn copysign(self, sign: Self) -> Self { <$t>::copysign(self, sign) }
            fn div_euclid(self, rhs: Self) -> Self { <$t>::div_euclid(self, rhs) }
            fn rem_euclid(self, rhs: Self) -> Self { <$t>::rem_euclid(self, rhs) }
            fn log(self, base: Self) -> Self { <$t>::log(self, base) }
            fn powf(self, n: Self) -> Self { <$t>::powf(self, n) }
            fn hypot(self, other: Self) -> Self { <$t>::hypot(self, other) }
            fn atan2(self, other: Self) -> Self { <$t>::atan2(self, other) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn is_infinite(self) -> bool { <$t>::is_infinite(self) }
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_normal(self) -> bool { <$t>::is_normal(self) }
            fn is_subnormal(self) -> bool { <$t>::is_subnormal(self) }
            fn is_sign_positive(self) -> bool { <$t>::is_sign_positive(self) }
            fn is_sign_negative(self) -> bool { <$t>::is_sign_negative(self) }
        }
    )*};
}
float_impls!(f32, f64);

/// `Scalar`, `AsNum` and `GpuOps` for the 16-bit floats, whose arithmetic is the `half`
/// crate's (through f32, rounded once).
macro_rules! half_impls {
    ($($t:ident => $from_f64:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        #[diagnostic::do_not_recommend]
        impl Scalar for $t {}
        impl AsNum for $t {
            fn to_num(self) -> NumVal {
                NumVal::Float(self.to_f64())
            }
            /// From f64, one rounding; from an integer through f64, which is exact for every
            /// integer `f16` does not overflow on (above 2^53 the result is infinity either way);
            /// for `bf16`, the integer rounded to f64 and then to bf16, as the GPU converts it.
            fn from_num(v: NumVal) -> Self {
                match v {
                    NumVal::Int(i) => $from_f64(i as f64),
                    NumVal::Float(f) => $from_f64(f),
                }
            }
        }
        impl GpuOps for $t {
            fn ws_add(self, r: Self) -> Self {
                self + r
            }
            fn ws_sub(self, r: Self) -> Self {
                self - r
            }
            fn ws_mul(self, r: Self) -> Self {
                self * r
            }
            fn ws_div(self, r: Self) -> Self {
                self / r
            }
            fn ws_rem(self, r: Self) -> Self {
                self % r
            }
            fn ws_neg(self) -> Self {
                -self
            }
        }
    )*};
}
half_impls! {
    f16 => f16_from_f64;
    bf16 => bf16_from_f64;
}
// `impl Float for f16` and `for bf16`: half_math.rs (its methods go through f32).

impl sealed::Sealed for bool {}
#[diagnostic::do_not_recommend]
impl Scalar for bool {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_is_as() {
        assert_eq!(cast::<f32, i32>(f32::NAN), 0);
        assert_eq!(cast::<f64, u8>(300.7), 255);
        assert_eq!(cast::<i32, u8>(-1), 255);
        assert_eq!(cast::<u64, f32>(u64::MAX), u64::MAX as f32);
        assert_eq!(cast::<f64, f32>(0.1), 0.1f64 as f32);
        assert_eq!(cast::<i64, f16>(3), f16::from_f32(3.0));
        assert_eq!(<i64 as Int>::from_f32(-2.5), -2);
        assert_eq!(<f16 as Float>::one(), f16::from_f32(1.0));
        assert_eq!(<u32 as Int>::to_usize(7), 7usize);
    }
}
