//! The numeric methods kernels may call (`x.min(y)`, `x.rotate_left(3)`, `f.to_bits()`,
//! ...), one row each: which receivers take it, its arguments and result, its CUDA C
//! spelling, the simulator's call and the line docs/methods.md shows. The type checker,
//! both emitters and the docs read this table and nothing else, so a method is added by
//! adding a row (and its prelude helper, where it needs one).

use crate::ir::ty::{Scalar, Ty};

/// The receivers a row takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recv {
    Int,
    Signed,
    Unsigned,
    Float,
    F16,
    F16x2,
    /// The fp8 storage types, one each (each row names its own C helper).
    E4m3,
    E5m2,
    Bf16,
    Bf16x2,
    Slice,
}

impl Recv {
    pub fn accepts(self, s: Scalar) -> bool {
        match self {
            Recv::Int => s.is_int(),
            Recv::Signed => s.is_signed_int(),
            Recv::Unsigned => s.is_int() && !s.is_signed_int(),
            Recv::Float => s.is_float(),
            Recv::F16 => s == Scalar::F16,
            Recv::F16x2 => s == Scalar::F16x2,
            Recv::E4m3 => s == Scalar::E4m3,
            Recv::E5m2 => s == Scalar::E5m2,
            Recv::Bf16 => s == Scalar::Bf16,
            Recv::Bf16x2 => s == Scalar::Bf16x2,
            Recv::Slice => false,
        }
    }

    /// For messages and the docs: "signed integers".
    pub fn text(self) -> &'static str {
        match self {
            Recv::Int => "integers",
            Recv::Signed => "signed integers",
            Recv::Unsigned => "unsigned integers",
            Recv::Float => "floats",
            Recv::F16 => "`f16`",
            Recv::F16x2 => "`f16x2`",
            Recv::E4m3 => "`e4m3`",
            Recv::E5m2 => "`e5m2`",
            Recv::Bf16 => "`bf16`",
            Recv::Bf16x2 => "`bf16x2`",
            Recv::Slice => "slices",
        }
    }
}

/// What a row's arguments are (after the receiver).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Args {
    None,
    /// This many arguments of the receiver's type.
    Same(usize),
    /// One `u32` (shift amounts, rotations, integer exponents).
    U32,
    /// One `i32` (`powi`).
    I32,
}

impl Args {
    pub fn want(self, s: Scalar) -> Vec<Scalar> {
        match self {
            Args::None => vec![],
            Args::Same(n) => vec![s; n],
            Args::U32 => vec![Scalar::U32],
            Args::I32 => vec![Scalar::I32],
        }
    }

    fn text(self) -> &'static str {
        match self {
            Args::None => "",
            Args::Same(1) => "Self",
            Args::Same(2) => "Self, Self",
            Args::Same(_) => "Self, ..",
            Args::U32 => "u32",
            Args::I32 => "i32",
        }
    }
}

/// What a row gives, for receiver type `Self`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Res {
    Same,
    U32,
    /// `f16`'s bits (`to_bits`).
    U16,
    /// An fp8 value's bits (`to_bits`).
    U8,
    Bool,
    Usize,
    F32,
    F64,
    /// The unsigned type of the receiver's width (`abs_diff`, `unsigned_abs`).
    Unsigned,
    /// The signed type of the receiver's width (`cast_signed`).
    Signed,
    /// The unsigned integer holding a float's bits (`to_bits`: u32 for f32, u64 for f64).
    Bits,
    /// An `f16`: a half of an `f16x2`, an fp8 value converted.
    F16,
    /// A half of a `bf16x2`.
    Bf16,
    /// `(Self, Self)` (`sin_cos`).
    Pair,
}

impl Res {
    pub fn of(self, s: Scalar) -> Scalar {
        match self {
            Res::Same => s,
            Res::U32 => Scalar::U32,
            Res::U16 => Scalar::U16,
            Res::U8 => Scalar::U8,
            Res::Bool => Scalar::Bool,
            Res::Usize => Scalar::Usize,
            Res::F32 => Scalar::F32,
            Res::F64 => Scalar::F64,
            Res::Unsigned => s.twin(false),
            Res::Signed => s.twin(true),
            Res::Bits if s == Scalar::F32 => Scalar::U32,
            Res::Bits => Scalar::U64,
            Res::F16 => Scalar::F16,
            Res::Bf16 => Scalar::Bf16,
            Res::Pair => s,
        }
    }

    /// The result's type: [`Res::of`], or a tuple of two for [`Res::Pair`].
    pub fn ty(self, s: Scalar) -> Ty {
        match self {
            Res::Pair => Ty::Tuple(vec![Ty::Scalar(s); 2]),
            r => Ty::Scalar(r.of(s)),
        }
    }

    fn text(self) -> &'static str {
        match self {
            Res::Same => "Self",
            Res::U32 => "u32",
            Res::U16 => "u16",
            Res::U8 => "u8",
            Res::Bool => "bool",
            Res::Usize => "usize",
            Res::F32 => "f32",
            Res::F64 => "f64",
            Res::Unsigned => "unsigned Self",
            Res::Signed => "signed Self",
            Res::Bits => "u32 / u64",
            Res::F16 => "f16",
            Res::Bf16 => "bf16",
            Res::Pair => "(Self, Self)",
        }
    }
}

/// How a row is written in CUDA C (every operand appears once: no operand is evaluated
/// twice).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum C {
    /// A prelude template over the receiver's C type: `ws_rotate_left<int>(a, n)`.
    Tmpl(&'static str),
    /// A function taking the operands as they are: a prelude helper overloaded on float
    /// and double (`ws_is_nan`), or one of a fixed type (`ws_f16_to_f32`).
    Func(&'static str),
    /// CUDA's math library: the name with `f` for f32 (`tanhf`), without for f64 (`tanh`).
    Math(&'static str),
    /// Nothing to call: the slice's length, which the C writer knows.
    Len,
}

/// How the simulator computes a row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sim {
    /// `(recv).name(args)`: the std method the user would call on the CPU (or its
    /// `wrapping_` twin, which is what a release build computes, in debug builds too).
    Std(&'static str),
    /// `::warpspeed::__private::ReleaseInt::name(recv, args)`: a std method whose release
    /// result has no std spelling that works in debug builds (`next_power_of_two`).
    Release(&'static str),
    /// `::warpspeed::Float::name(recv, args)`: an `f16` or `bf16` method the `half` crate
    /// lacks, computed through `f32` as the GPU does; and `asinh`/`acosh` of f32 and f64,
    /// whose std versions overflow where CUDA's do not.
    Half(&'static str),
}

/// How exactly the GPU follows Rust for a row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exact {
    /// Bit for bit.
    Bits,
    /// Within CUDA's documented bound, in ulps, for f32 and for f64.
    Ulps(u32, u32),
    /// An `f16` or `bf16` transcendental: the `f32` function rounded once to the type, on
    /// the GPU (CUDA's) and the simulator (Rust's) alike; within 1 ulp of the correctly
    /// rounded result, and the two backends' equal except, rarely, 1 ulp apart next to a
    /// halfway point (docs/semantics.md, "Half precision").
    HalfUlp,
}

/// One method.
#[derive(Debug)]
pub struct Method {
    pub name: &'static str,
    pub recv: Recv,
    pub args: Args,
    pub result: Res,
    pub c: C,
    pub sim: Sim,
    pub exact: Exact,
    /// Where Rust panics, and what the GPU gives there (docs/methods.md).
    pub panics: Option<&'static str>,
    /// The line docs/methods.md shows (read by its generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub doc: &'static str,
}

const fn row(
    name: &'static str,
    recv: Recv,
    args: Args,
    result: Res,
    c: C,
    sim: Sim,
    doc: &'static str,
) -> Method {
    Method {
        name,
        recv,
        args,
        result,
        c,
        sim,
        exact: Exact::Bits,
        panics: None,
        doc,
    }
}

impl Method {
    const fn ulps(mut self, f32_ulps: u32, f64_ulps: u32) -> Method {
        self.exact = Exact::Ulps(f32_ulps, f64_ulps);
        self
    }
    const fn half_ulp(mut self) -> Method {
        self.exact = Exact::HalfUlp;
        self
    }
    const fn panics(mut self, what: &'static str) -> Method {
        self.panics = Some(what);
        self
    }

    /// The row for `name` on a receiver of type `s`; `Err` lists the receivers the
    /// method has (`None`: no method has this name).
    pub fn lookup(name: &str, s: Option<Scalar>) -> Result<&'static Method, Option<String>> {
        let rows: Vec<&'static Method> = METHODS.iter().filter(|m| m.name == name).collect();
        if rows.is_empty() {
            return Err(None);
        }
        if let Some(m) = rows.iter().find(|m| s.is_some_and(|s| m.recv.accepts(s))) {
            return Ok(m);
        }
        if s.is_none() {
            if let Some(m) = rows.iter().find(|m| m.recv == Recv::Slice) {
                return Ok(m);
            }
        }
        let mut which: Vec<&str> = rows.iter().map(|m| m.recv.text()).collect();
        which.dedup();
        // "integers", "integers and floats", "signed integers, floats and `f16`".
        let text = match which.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => which.join(""),
        };
        Err(Some(text))
    }

    /// Whether some row has this name.
    pub fn exists(name: &str) -> bool {
        METHODS.iter().any(|m| m.name == name)
    }

    pub fn is_len(&self) -> bool {
        self.c == C::Len
    }

    /// The signature docs/methods.md shows: `rotate_left(self, u32) -> Self`.
    pub fn signature(&self) -> String {
        let args = self.args.text();
        let sep = if args.is_empty() { "" } else { ", " };
        format!("{}(self{sep}{args}) -> {}", self.name, self.result.text())
    }
}

use Args::{None as A0, Same, I32, U32 as Au32};
use Recv::{Bf16, Bf16x2, E4m3, E5m2, F16x2, Float, Int, Signed, Slice, Unsigned, F16};
use Res::{Bool, Same as R, U32 as Ru32};
use Sim::{Half, Release, Std};
use C::{Func, Math, Tmpl};

/// Where an integer divisor of 0 panics in Rust.
const DIV0: &str = "Rust panics on a zero divisor (a reported error on the simulator); the GPU gives what its division gives";
/// ilog of a value that has none.
const LOG0: &str = "Rust panics on a value <= 0 (or a base < 2); the GPU gives `u32::MAX`";
/// Rust's clamp asserts its bounds.
const CLAMP: &str = "Rust panics when `min > max` (or a float bound is NaN); the GPU gives `if x < min { min } else if x > max { max } else { x }`";

/// Every method kernels know, grouped as docs/methods.md shows them.
#[rustfmt::skip]
pub static METHODS: &[Method] = &[
    // ---- slices
    row("len", Slice, A0, Res::Usize, C::Len, Std("len"), "the number of elements"),
    row("is_empty", Slice, A0, Bool, C::Len, Std("is_empty"), "`len() == 0`"),
    // ---- integers: order and sign
    row("min", Int, Same(1), R, Tmpl("ws_min"), Std("min"), "the smaller value"),
    row("max", Int, Same(1), R, Tmpl("ws_max"), Std("max"), "the larger value"),
    row("clamp", Int, Same(2), R, Tmpl("ws_clamp"), Std("clamp"), "`x` limited to `min..=max`").panics(CLAMP),
    row("abs", Signed, A0, R, Tmpl("ws_abs"), Std("wrapping_abs"), "absolute value, wrapping (`MIN.abs()` is `MIN`, as in release builds)"),
    row("wrapping_abs", Signed, A0, R, Tmpl("ws_abs"), Std("wrapping_abs"), "absolute value, `MIN` stays `MIN`"),
    row("saturating_abs", Signed, A0, R, Tmpl("ws_saturating_abs"), Std("saturating_abs"), "absolute value, `MIN` gives `MAX`"),
    row("unsigned_abs", Signed, A0, Res::Unsigned, Tmpl("ws_unsigned_abs"), Std("unsigned_abs"), "absolute value as the unsigned type (exact)"),
    row("abs_diff", Int, Same(1), Res::Unsigned, Tmpl("ws_abs_diff"), Std("abs_diff"), "the distance between `x` and `y`, as the unsigned type (exact)"),
    row("signum", Signed, A0, R, Tmpl("ws_signum"), Std("signum"), "-1, 0 or 1"),
    row("is_positive", Signed, A0, Bool, Tmpl("ws_is_positive"), Std("is_positive"), "`x > 0`"),
    row("is_negative", Signed, A0, Bool, Tmpl("ws_is_neg"), Std("is_negative"), "`x < 0`"),
    row("midpoint", Int, Same(1), R, Tmpl("ws_midpoint"), Std("midpoint"), "`(x + y) / 2` without overflow, rounded toward zero (down for unsigned)"),
    row("cast_signed", Unsigned, A0, Res::Signed, Tmpl("ws_cast_signed"), Std("cast_signed"), "the same bits as the signed type"),
    row("cast_unsigned", Signed, A0, Res::Unsigned, Tmpl("ws_cast_unsigned"), Std("cast_unsigned"), "the same bits as the unsigned type"),
    // ---- integers: arithmetic
    row("wrapping_add", Int, Same(1), R, Tmpl("ws_add"), Std("wrapping_add"), "`x + y` modulo 2^bits"),
    row("wrapping_sub", Int, Same(1), R, Tmpl("ws_sub"), Std("wrapping_sub"), "`x - y` modulo 2^bits"),
    row("wrapping_mul", Int, Same(1), R, Tmpl("ws_mul"), Std("wrapping_mul"), "`x * y` modulo 2^bits"),
    row("wrapping_neg", Int, A0, R, Tmpl("ws_neg"), Std("wrapping_neg"), "`-x` modulo 2^bits"),
    row("wrapping_div", Int, Same(1), R, Tmpl("ws_div"), Std("wrapping_div"), "`x / y`, `MIN / -1` is `MIN`").panics(DIV0),
    row("wrapping_rem", Int, Same(1), R, Tmpl("ws_rem"), Std("wrapping_rem"), "`x % y`, `MIN % -1` is 0").panics(DIV0),
    row("wrapping_shl", Int, Au32, R, Tmpl("ws_shl"), Std("wrapping_shl"), "`x << (n % bits)`"),
    row("wrapping_shr", Int, Au32, R, Tmpl("ws_shr"), Std("wrapping_shr"), "`x >> (n % bits)` (arithmetic for signed)"),
    row("unbounded_shl", Int, Au32, R, Tmpl("ws_unbounded_shl"), Std("unbounded_shl"), "`x << n`, 0 when `n >= bits`"),
    row("unbounded_shr", Int, Au32, R, Tmpl("ws_unbounded_shr"), Std("unbounded_shr"), "`x >> n`, 0 (or -1 for negative `x`) when `n >= bits`"),
    row("pow", Int, Au32, R, Tmpl("ws_pow"), Std("wrapping_pow"), "`x` to the power `n`, wrapping (as in release builds)"),
    row("wrapping_pow", Int, Au32, R, Tmpl("ws_pow"), Std("wrapping_pow"), "`x` to the power `n` modulo 2^bits"),
    row("saturating_add", Int, Same(1), R, Tmpl("ws_saturating_add"), Std("saturating_add"), "`x + y`, held at `MIN`/`MAX`"),
    row("saturating_sub", Int, Same(1), R, Tmpl("ws_saturating_sub"), Std("saturating_sub"), "`x - y`, held at `MIN`/`MAX`"),
    row("saturating_mul", Int, Same(1), R, Tmpl("ws_saturating_mul"), Std("saturating_mul"), "`x * y`, held at `MIN`/`MAX`"),
    row("saturating_pow", Int, Au32, R, Tmpl("ws_saturating_pow"), Std("saturating_pow"), "`x` to the power `n`, held at `MIN`/`MAX`"),
    row("saturating_neg", Signed, A0, R, Tmpl("ws_saturating_neg"), Std("saturating_neg"), "`-x`, `MIN` gives `MAX`"),
    row("saturating_div", Int, Same(1), R, Tmpl("ws_saturating_div"), Std("saturating_div"), "`x / y`, `MIN / -1` gives `MAX`").panics(DIV0),
    row("div_euclid", Int, Same(1), R, Tmpl("ws_div_euclid"), Std("wrapping_div_euclid"), "quotient of Euclidean division (`MIN.div_euclid(-1)` is `MIN`)").panics(DIV0),
    row("rem_euclid", Int, Same(1), R, Tmpl("ws_rem_euclid"), Std("wrapping_rem_euclid"), "remainder of Euclidean division, never negative").panics(DIV0),
    row("wrapping_div_euclid", Int, Same(1), R, Tmpl("ws_div_euclid"), Std("wrapping_div_euclid"), "`div_euclid`, `MIN.wrapping_div_euclid(-1)` is `MIN`").panics(DIV0),
    row("wrapping_rem_euclid", Int, Same(1), R, Tmpl("ws_rem_euclid"), Std("wrapping_rem_euclid"), "`rem_euclid`, `MIN.wrapping_rem_euclid(-1)` is 0").panics(DIV0),
    row("div_ceil", Unsigned, Same(1), R, Tmpl("ws_div_ceil"), Std("div_ceil"), "`x / y` rounded up").panics(DIV0),
    row("next_multiple_of", Unsigned, Same(1), R, Tmpl("ws_next_multiple_of"), Release("next_multiple_of"), "the smallest multiple of `y` that is `>= x`, wrapping (as in release builds)").panics(DIV0),
    row("is_multiple_of", Unsigned, Same(1), Bool, Tmpl("ws_is_multiple_of"), Std("is_multiple_of"), "`x % y == 0` (`y == 0`: whether `x == 0`)"),
    row("isqrt", Int, A0, R, Tmpl("ws_isqrt"), Std("isqrt"), "`floor(sqrt(x))`, exact").panics("Rust panics on a negative value; the GPU gives -1"),
    row("ilog2", Int, A0, Ru32, Tmpl("ws_ilog2"), Std("ilog2"), "`floor(log2(x))`").panics(LOG0),
    row("ilog10", Int, A0, Ru32, Tmpl("ws_ilog10"), Std("ilog10"), "`floor(log10(x))`").panics(LOG0),
    row("ilog", Int, Same(1), Ru32, Tmpl("ws_ilog"), Std("ilog"), "`floor(log_base(x))`").panics(LOG0),
    // ---- integers: bits
    row("count_ones", Int, A0, Ru32, Tmpl("ws_count_ones"), Std("count_ones"), "the number of 1 bits"),
    row("count_zeros", Int, A0, Ru32, Tmpl("ws_count_zeros"), Std("count_zeros"), "the number of 0 bits"),
    row("leading_zeros", Int, A0, Ru32, Tmpl("ws_leading_zeros"), Std("leading_zeros"), "0 bits above the highest 1"),
    row("trailing_zeros", Int, A0, Ru32, Tmpl("ws_trailing_zeros"), Std("trailing_zeros"), "0 bits below the lowest 1"),
    row("leading_ones", Int, A0, Ru32, Tmpl("ws_leading_ones"), Std("leading_ones"), "1 bits above the highest 0"),
    row("trailing_ones", Int, A0, Ru32, Tmpl("ws_trailing_ones"), Std("trailing_ones"), "1 bits below the lowest 0"),
    row("rotate_left", Int, Au32, R, Tmpl("ws_rotate_left"), Std("rotate_left"), "bits rotated left by `n % bits`"),
    row("rotate_right", Int, Au32, R, Tmpl("ws_rotate_right"), Std("rotate_right"), "bits rotated right by `n % bits`"),
    row("swap_bytes", Int, A0, R, Tmpl("ws_swap_bytes"), Std("swap_bytes"), "bytes in reverse order"),
    row("to_be", Int, A0, R, Tmpl("ws_swap_bytes"), Std("to_be"), "big-endian bytes (the GPU and the CPUs warpspeed runs on are little-endian)"),
    row("to_le", Int, A0, R, Tmpl("ws_to_le"), Std("to_le"), "little-endian bytes: `x` itself"),
    row("reverse_bits", Int, A0, R, Tmpl("ws_reverse_bits"), Std("reverse_bits"), "bits in reverse order"),
    row("is_power_of_two", Unsigned, A0, Bool, Tmpl("ws_is_power_of_two"), Std("is_power_of_two"), "exactly one bit set"),
    row("next_power_of_two", Unsigned, A0, R, Tmpl("ws_next_power_of_two"), Release("next_power_of_two"), "the smallest power of two `>= x`; 0 past `MAX` (as in release builds)"),
    // ---- floats: exact
    row("min", Float, Same(1), R, Math("fmin"), Std("min"), "the smaller value; a NaN operand loses (`fminf`)"),
    row("max", Float, Same(1), R, Math("fmax"), Std("max"), "the larger value; a NaN operand loses (`fmaxf`)"),
    row("clamp", Float, Same(2), R, Tmpl("ws_clamp"), Std("clamp"), "`x` limited to `min..=max`; NaN stays NaN").panics(CLAMP),
    row("abs", Float, A0, R, Math("fabs"), Std("abs"), "absolute value (clears the sign bit)"),
    row("signum", Float, A0, R, Func("ws_fsignum"), Std("signum"), "1.0 or -1.0 with `x`'s sign (of -0.0: -1.0); NaN for NaN"),
    row("copysign", Float, Same(1), R, Math("copysign"), Std("copysign"), "`|x|` with `y`'s sign"),
    row("sqrt", Float, A0, R, Math("sqrt"), Std("sqrt"), "square root, correctly rounded (`--prec-sqrt=true`)"),
    row("mul_add", Float, Same(2), R, Math("fma"), Std("mul_add"), "`x * a + b` with one rounding"),
    row("recip", Float, A0, R, Func("ws_recip"), Std("recip"), "`1.0 / x`"),
    row("powi", Float, I32, R, Func("ws_powi"), Std("powi"), "`x` to an integer power, by squaring in LLVM's order"),
    row("floor", Float, A0, R, Math("floor"), Std("floor"), "rounded down"),
    row("ceil", Float, A0, R, Math("ceil"), Std("ceil"), "rounded up"),
    row("round", Float, A0, R, Math("round"), Std("round"), "rounded to nearest, ties away from zero (`roundf`)"),
    row("round_ties_even", Float, A0, R, Math("rint"), Std("round_ties_even"), "rounded to nearest, ties to even (`rintf`)"),
    row("trunc", Float, A0, R, Math("trunc"), Std("trunc"), "rounded toward zero"),
    row("fract", Float, A0, R, Func("ws_fract"), Std("fract"), "`x - x.trunc()`"),
    row("div_euclid", Float, Same(1), R, Func("ws_fdiv_euclid"), Std("div_euclid"), "quotient of Euclidean division, as std computes it"),
    row("rem_euclid", Float, Same(1), R, Func("ws_frem_euclid"), Std("rem_euclid"), "remainder of Euclidean division, as std computes it"),
    row("to_degrees", Float, A0, R, Func("ws_to_degrees"), Std("to_degrees"), "radians to degrees, with std's constant"),
    row("to_radians", Float, A0, R, Func("ws_to_radians"), Std("to_radians"), "degrees to radians, with std's constant"),
    row("next_up", Float, A0, R, Func("ws_next_up"), Std("next_up"), "the next larger float"),
    row("next_down", Float, A0, R, Func("ws_next_down"), Std("next_down"), "the next smaller float"),
    row("is_nan", Float, A0, Bool, Func("ws_is_nan"), Std("is_nan"), "NaN (read from the bits: holds under `fast_math` too)"),
    row("is_infinite", Float, A0, Bool, Func("ws_is_infinite"), Std("is_infinite"), "±infinity"),
    row("is_finite", Float, A0, Bool, Func("ws_is_finite"), Std("is_finite"), "neither infinite nor NaN"),
    row("is_normal", Float, A0, Bool, Func("ws_is_normal"), Std("is_normal"), "not zero, subnormal, infinite or NaN"),
    row("is_subnormal", Float, A0, Bool, Func("ws_is_subnormal"), Std("is_subnormal"), "subnormal"),
    row("is_sign_positive", Float, A0, Bool, Func("ws_is_sign_positive"), Std("is_sign_positive"), "sign bit clear (also for +0.0 and NaN)"),
    row("is_sign_negative", Float, A0, Bool, Func("ws_is_sign_negative"), Std("is_sign_negative"), "sign bit set (also for -0.0)"),
    row("to_bits", Float, A0, Res::Bits, Func("ws_to_bits"), Std("to_bits"), "the IEEE bits (`u32` for f32, `u64` for f64); `f32::from_bits(b)` goes back"),
    // ---- floats: CUDA's math library (bounds: CUDA C++ Programming Guide, "Mathematical
    // Functions", maximum ulp error over the full range)
    row("exp", Float, A0, R, Math("exp"), Std("exp"), "`e^x`").ulps(2, 1),
    row("exp2", Float, A0, R, Math("exp2"), Std("exp2"), "`2^x`").ulps(2, 1),
    row("exp_m1", Float, A0, R, Math("expm1"), Std("exp_m1"), "`e^x - 1`, accurate near 0").ulps(1, 1),
    row("ln", Float, A0, R, Math("log"), Std("ln"), "natural logarithm").ulps(1, 1),
    row("log2", Float, A0, R, Math("log2"), Std("log2"), "base-2 logarithm").ulps(1, 1),
    row("log10", Float, A0, R, Math("log10"), Std("log10"), "base-10 logarithm").ulps(2, 1),
    row("ln_1p", Float, A0, R, Math("log1p"), Std("ln_1p"), "`ln(1 + x)`, accurate near 0").ulps(1, 1),
    row("log", Float, Same(1), R, Func("ws_flog"), Std("log"), "logarithm to a base, `x.ln() / base.ln()` as std").ulps(3, 3),
    row("powf", Float, Same(1), R, Math("pow"), Std("powf"), "`x^y`").ulps(4, 2),
    row("cbrt", Float, A0, R, Math("cbrt"), Std("cbrt"), "cube root").ulps(1, 1),
    row("hypot", Float, Same(1), R, Math("hypot"), Std("hypot"), "`sqrt(x² + y²)` without overflow").ulps(3, 2),
    row("sin", Float, A0, R, Math("sin"), Std("sin"), "sine").ulps(2, 2),
    row("cos", Float, A0, R, Math("cos"), Std("cos"), "cosine").ulps(2, 2),
    row("sin_cos", Float, A0, Res::Pair, Func("ws_sin_cos"), Std("sin_cos"), "`(x.sin(), x.cos())` (`sincosf`); `let (s, c) = x.sin_cos();`").ulps(2, 2),
    row("tan", Float, A0, R, Math("tan"), Std("tan"), "tangent").ulps(4, 2),
    row("asin", Float, A0, R, Math("asin"), Std("asin"), "arcsine").ulps(2, 2),
    row("acos", Float, A0, R, Math("acos"), Std("acos"), "arccosine").ulps(2, 2),
    row("atan", Float, A0, R, Math("atan"), Std("atan"), "arctangent").ulps(2, 2),
    row("atan2", Float, Same(1), R, Math("atan2"), Std("atan2"), "four-quadrant arctangent of `x / y`").ulps(3, 2),
    row("sinh", Float, A0, R, Math("sinh"), Std("sinh"), "hyperbolic sine").ulps(3, 2),
    row("cosh", Float, A0, R, Math("cosh"), Std("cosh"), "hyperbolic cosine").ulps(2, 1),
    row("tanh", Float, A0, R, Math("tanh"), Std("tanh"), "hyperbolic tangent").ulps(2, 1),
    row("asinh", Float, A0, R, Math("asinh"), Half("asinh"), "inverse hyperbolic sine").ulps(3, 3),
    row("acosh", Float, A0, R, Math("acosh"), Half("acosh"), "inverse hyperbolic cosine").ulps(4, 3),
    row("atanh", Float, A0, R, Math("atanh"), Std("atanh"), "inverse hyperbolic tangent").ulps(3, 2),
    // ---- half precision
    row("sqrt", F16, A0, R, Func("ws_f16_sqrt"), Half("sqrt"), "square root through `f32`, correctly rounded"),
    row("abs", F16, A0, R, Func("ws_f16_abs"), Half("abs"), "absolute value (clears the sign bit)"),
    row("min", F16, Same(1), R, Func("ws_f16_min"), Half("min"), "the smaller value; a NaN operand loses"),
    row("max", F16, Same(1), R, Func("ws_f16_max"), Half("max"), "the larger value; a NaN operand loses"),
    row("floor", F16, A0, R, Func("ws_f16_floor"), Half("floor"), "rounded down"),
    row("ceil", F16, A0, R, Func("ws_f16_ceil"), Half("ceil"), "rounded up"),
    row("round", F16, A0, R, Func("ws_f16_round"), Half("round"), "rounded to nearest, ties away from zero"),
    row("trunc", F16, A0, R, Func("ws_f16_trunc"), Half("trunc"), "rounded toward zero"),
    row("clamp", F16, Same(2), R, Func("ws_f16_clamp"), Half("clamp"), "`x` limited to `min..=max` through `f32`; NaN stays NaN").panics(CLAMP),
    row("signum", F16, A0, R, Func("ws_f16_signum"), Half("signum"), "1.0 or -1.0 with `x`'s sign; NaN for NaN (on the bits)"),
    row("copysign", F16, Same(1), R, Func("ws_f16_copysign"), Half("copysign"), "`|x|` with `y`'s sign (on the bits)"),
    row("mul_add", F16, Same(2), R, Func("ws_f16_mul_add"), Half("mul_add"), "`x * a + b` with one rounding in `f32` (`fmaf`), then rounded to `f16`"),
    row("recip", F16, A0, R, Func("ws_f16_recip"), Half("recip"), "`1.0 / x` through `f32`, correctly rounded"),
    row("powi", F16, I32, R, Func("ws_f16_powi"), Half("powi"), "`x` to an integer power: `f32`'s `powi`, then rounded"),
    row("round_ties_even", F16, A0, R, Func("ws_f16_round_ties_even"), Half("round_ties_even"), "rounded to nearest, ties to even"),
    row("fract", F16, A0, R, Func("ws_f16_fract"), Half("fract"), "`x - x.trunc()`"),
    row("div_euclid", F16, Same(1), R, Func("ws_f16_div_euclid"), Half("div_euclid"), "quotient of Euclidean division, `f32`'s then rounded"),
    row("rem_euclid", F16, Same(1), R, Func("ws_f16_rem_euclid"), Half("rem_euclid"), "remainder of Euclidean division, `f32`'s then rounded"),
    row("to_degrees", F16, A0, R, Func("ws_f16_to_degrees"), Half("to_degrees"), "radians to degrees: `f32`'s, then rounded"),
    row("to_radians", F16, A0, R, Func("ws_f16_to_radians"), Half("to_radians"), "degrees to radians: `f32`'s, then rounded"),
    row("next_up", F16, A0, R, Func("ws_f16_next_up"), Half("next_up"), "the next larger `f16` (on the bits)"),
    row("next_down", F16, A0, R, Func("ws_f16_next_down"), Half("next_down"), "the next smaller `f16` (on the bits)"),
    row("is_nan", F16, A0, Bool, Func("ws_f16_is_nan"), Half("is_nan"), "NaN"),
    row("is_infinite", F16, A0, Bool, Func("ws_f16_is_infinite"), Half("is_infinite"), "±infinity"),
    row("is_finite", F16, A0, Bool, Func("ws_f16_is_finite"), Half("is_finite"), "neither infinite nor NaN"),
    row("is_normal", F16, A0, Bool, Func("ws_f16_is_normal"), Half("is_normal"), "not zero, subnormal, infinite or NaN (`f16`'s own range)"),
    row("is_subnormal", F16, A0, Bool, Func("ws_f16_is_subnormal"), Half("is_subnormal"), "subnormal (`f16`'s own range: below 2^-14)"),
    row("is_sign_positive", F16, A0, Bool, Func("ws_f16_is_sign_positive"), Half("is_sign_positive"), "sign bit clear"),
    row("is_sign_negative", F16, A0, Bool, Func("ws_f16_is_sign_negative"), Half("is_sign_negative"), "sign bit set"),
    row("to_bits", F16, A0, Res::U16, Func("ws_f16_to_bits"), Std("to_bits"), "the IEEE bits as `u16`; `f16::from_bits(b)` goes back"),
    // f16 transcendentals: CUDA's half math, the f32 function rounded once (`hexp`, ...)
    row("exp", F16, A0, R, Func("ws_f16_exp"), Half("exp"), "`e^x` through `f32`").half_ulp(),
    row("exp2", F16, A0, R, Func("ws_f16_exp2"), Half("exp2"), "`2^x` through `f32`").half_ulp(),
    row("exp_m1", F16, A0, R, Func("ws_f16_exp_m1"), Half("exp_m1"), "`e^x - 1` through `f32`").half_ulp(),
    row("ln", F16, A0, R, Func("ws_f16_ln"), Half("ln"), "natural logarithm through `f32`").half_ulp(),
    row("log2", F16, A0, R, Func("ws_f16_log2"), Half("log2"), "base-2 logarithm through `f32`").half_ulp(),
    row("log10", F16, A0, R, Func("ws_f16_log10"), Half("log10"), "base-10 logarithm through `f32`").half_ulp(),
    row("ln_1p", F16, A0, R, Func("ws_f16_ln_1p"), Half("ln_1p"), "`ln(1 + x)` through `f32`").half_ulp(),
    row("log", F16, Same(1), R, Func("ws_f16_log"), Half("log"), "logarithm to a base (`f32`'s `log`) through `f32`").half_ulp(),
    row("powf", F16, Same(1), R, Func("ws_f16_powf"), Half("powf"), "`x^y` through `f32`").half_ulp(),
    row("cbrt", F16, A0, R, Func("ws_f16_cbrt"), Half("cbrt"), "cube root through `f32`").half_ulp(),
    row("hypot", F16, Same(1), R, Func("ws_f16_hypot"), Half("hypot"), "`sqrt(x² + y²)` through `f32`").half_ulp(),
    row("sin", F16, A0, R, Func("ws_f16_sin"), Half("sin"), "sine through `f32`").half_ulp(),
    row("cos", F16, A0, R, Func("ws_f16_cos"), Half("cos"), "cosine through `f32`").half_ulp(),
    row("sin_cos", F16, A0, Res::Pair, Func("ws_f16_sin_cos"), Half("sin_cos"), "`(x.sin(), x.cos())` through `f32`").half_ulp(),
    row("tan", F16, A0, R, Func("ws_f16_tan"), Half("tan"), "tangent through `f32`").half_ulp(),
    row("asin", F16, A0, R, Func("ws_f16_asin"), Half("asin"), "arcsine through `f32`").half_ulp(),
    row("acos", F16, A0, R, Func("ws_f16_acos"), Half("acos"), "arccosine through `f32`").half_ulp(),
    row("atan", F16, A0, R, Func("ws_f16_atan"), Half("atan"), "arctangent through `f32`").half_ulp(),
    row("atan2", F16, Same(1), R, Func("ws_f16_atan2"), Half("atan2"), "four-quadrant arctangent of `x / y` through `f32`").half_ulp(),
    row("sinh", F16, A0, R, Func("ws_f16_sinh"), Half("sinh"), "hyperbolic sine through `f32`").half_ulp(),
    row("cosh", F16, A0, R, Func("ws_f16_cosh"), Half("cosh"), "hyperbolic cosine through `f32`").half_ulp(),
    row("tanh", F16, A0, R, Func("ws_f16_tanh"), Half("tanh"), "hyperbolic tangent through `f32`").half_ulp(),
    row("asinh", F16, A0, R, Func("ws_f16_asinh"), Half("asinh"), "inverse hyperbolic sine through `f32`").half_ulp(),
    row("acosh", F16, A0, R, Func("ws_f16_acosh"), Half("acosh"), "inverse hyperbolic cosine through `f32`").half_ulp(),
    row("atanh", F16, A0, R, Func("ws_f16_atanh"), Half("atanh"), "inverse hyperbolic tangent through `f32`").half_ulp(),
    row("to_f32", F16, A0, Res::F32, Func("ws_f16_to_f32"), Std("to_f32"), "exact conversion"),
    row("to_f64", F16, A0, Res::F64, Func("ws_f16_to_f64"), Std("to_f64"), "exact conversion"),
    row("lo", F16x2, A0, Res::F16, Func("ws_f16x2_lo"), Std("lo"), "the low half (an `f16`)"),
    row("hi", F16x2, A0, Res::F16, Func("ws_f16x2_hi"), Std("hi"), "the high half (an `f16`)"),
    // fp8: conversions only (runtime/src/fp8.rs, prelude_fp8.cuh); each exact.
    row("to_f32", E4m3, A0, Res::F32, Func("ws_e4m3_to_f32"), Std("to_f32"), "exact conversion (a NaN: quiet, with its sign)"),
    row("to_f16", E4m3, A0, Res::F16, Func("ws_e4m3_to_f16"), Std("to_f16"), "exact conversion (`cvt.rn.f16x2.e4m3x2`; a NaN: quiet, with its sign)"),
    row("to_bf16", E4m3, A0, Res::Bf16, Func("ws_e4m3_to_bf16"), Std("to_bf16"), "exact conversion (a NaN: quiet, with its sign)"),
    row("to_bits", E4m3, A0, Res::U8, Func("ws_e4m3_to_bits"), Std("to_bits"), "the bits as `u8`; `e4m3::from_bits(b)` goes back"),
    row("to_f32", E5m2, A0, Res::F32, Func("ws_e5m2_to_f32"), Std("to_f32"), "exact conversion (a NaN: quiet, with its sign and payload)"),
    row("to_f16", E5m2, A0, Res::F16, Func("ws_e5m2_to_f16"), Std("to_f16"), "exact conversion (`cvt.rn.f16x2.e5m2x2`; a NaN: quiet, with its sign and payload)"),
    row("to_bf16", E5m2, A0, Res::Bf16, Func("ws_e5m2_to_bf16"), Std("to_bf16"), "exact conversion (a NaN: quiet, with its sign)"),
    row("to_bits", E5m2, A0, Res::U8, Func("ws_e5m2_to_bits"), Std("to_bits"), "the bits as `u8`; `e5m2::from_bits(b)` goes back"),
    // ---- bfloat16: f16's rows, through f32 alike (docs/semantics.md, "Half precision")
    row("sqrt", Bf16, A0, R, Func("ws_bf16_sqrt"), Half("sqrt"), "square root through `f32`, correctly rounded"),
    row("abs", Bf16, A0, R, Func("ws_bf16_abs"), Half("abs"), "absolute value (clears the sign bit)"),
    row("min", Bf16, Same(1), R, Func("ws_bf16_min"), Half("min"), "the smaller value; a NaN operand loses"),
    row("max", Bf16, Same(1), R, Func("ws_bf16_max"), Half("max"), "the larger value; a NaN operand loses"),
    row("floor", Bf16, A0, R, Func("ws_bf16_floor"), Half("floor"), "rounded down"),
    row("ceil", Bf16, A0, R, Func("ws_bf16_ceil"), Half("ceil"), "rounded up"),
    row("round", Bf16, A0, R, Func("ws_bf16_round"), Half("round"), "rounded to nearest, ties away from zero"),
    row("trunc", Bf16, A0, R, Func("ws_bf16_trunc"), Half("trunc"), "rounded toward zero"),
    row("clamp", Bf16, Same(2), R, Func("ws_bf16_clamp"), Half("clamp"), "`x` limited to `min..=max` through `f32`; NaN stays NaN").panics(CLAMP),
    row("signum", Bf16, A0, R, Func("ws_bf16_signum"), Half("signum"), "1.0 or -1.0 with `x`'s sign; NaN for NaN (on the bits)"),
    row("copysign", Bf16, Same(1), R, Func("ws_bf16_copysign"), Half("copysign"), "`|x|` with `y`'s sign (on the bits)"),
    row("mul_add", Bf16, Same(2), R, Func("ws_bf16_mul_add"), Half("mul_add"), "`x * a + b` with one rounding in `f32` (`fmaf`), then rounded to `bf16`"),
    row("recip", Bf16, A0, R, Func("ws_bf16_recip"), Half("recip"), "`1.0 / x` through `f32`, correctly rounded"),
    row("powi", Bf16, I32, R, Func("ws_bf16_powi"), Half("powi"), "`x` to an integer power: `f32`'s `powi`, then rounded"),
    row("round_ties_even", Bf16, A0, R, Func("ws_bf16_round_ties_even"), Half("round_ties_even"), "rounded to nearest, ties to even"),
    row("fract", Bf16, A0, R, Func("ws_bf16_fract"), Half("fract"), "`x - x.trunc()`"),
    row("div_euclid", Bf16, Same(1), R, Func("ws_bf16_div_euclid"), Half("div_euclid"), "quotient of Euclidean division, `f32`'s then rounded"),
    row("rem_euclid", Bf16, Same(1), R, Func("ws_bf16_rem_euclid"), Half("rem_euclid"), "remainder of Euclidean division, `f32`'s then rounded"),
    row("to_degrees", Bf16, A0, R, Func("ws_bf16_to_degrees"), Half("to_degrees"), "radians to degrees: `f32`'s, then rounded"),
    row("to_radians", Bf16, A0, R, Func("ws_bf16_to_radians"), Half("to_radians"), "degrees to radians: `f32`'s, then rounded"),
    row("next_up", Bf16, A0, R, Func("ws_bf16_next_up"), Half("next_up"), "the next larger `bf16` (on the bits)"),
    row("next_down", Bf16, A0, R, Func("ws_bf16_next_down"), Half("next_down"), "the next smaller `bf16` (on the bits)"),
    row("is_nan", Bf16, A0, Bool, Func("ws_bf16_is_nan"), Half("is_nan"), "NaN"),
    row("is_infinite", Bf16, A0, Bool, Func("ws_bf16_is_infinite"), Half("is_infinite"), "±infinity"),
    row("is_finite", Bf16, A0, Bool, Func("ws_bf16_is_finite"), Half("is_finite"), "neither infinite nor NaN"),
    row("is_normal", Bf16, A0, Bool, Func("ws_bf16_is_normal"), Half("is_normal"), "not zero, subnormal, infinite or NaN (`bf16`'s own range, `f32`'s)"),
    row("is_subnormal", Bf16, A0, Bool, Func("ws_bf16_is_subnormal"), Half("is_subnormal"), "subnormal (`bf16`'s own range, `f32`'s: below 2^-126)"),
    row("is_sign_positive", Bf16, A0, Bool, Func("ws_bf16_is_sign_positive"), Half("is_sign_positive"), "sign bit clear"),
    row("is_sign_negative", Bf16, A0, Bool, Func("ws_bf16_is_sign_negative"), Half("is_sign_negative"), "sign bit set"),
    row("to_bits", Bf16, A0, Res::U16, Func("ws_bf16_to_bits"), Std("to_bits"), "the IEEE bits as `u16`; `bf16::from_bits(b)` goes back on the host"),
    row("exp", Bf16, A0, R, Func("ws_bf16_exp"), Half("exp"), "`e^x` through `f32`").half_ulp(),
    row("exp2", Bf16, A0, R, Func("ws_bf16_exp2"), Half("exp2"), "`2^x` through `f32`").half_ulp(),
    row("exp_m1", Bf16, A0, R, Func("ws_bf16_exp_m1"), Half("exp_m1"), "`e^x - 1` through `f32`").half_ulp(),
    row("ln", Bf16, A0, R, Func("ws_bf16_ln"), Half("ln"), "natural logarithm through `f32`").half_ulp(),
    row("log2", Bf16, A0, R, Func("ws_bf16_log2"), Half("log2"), "base-2 logarithm through `f32`").half_ulp(),
    row("log10", Bf16, A0, R, Func("ws_bf16_log10"), Half("log10"), "base-10 logarithm through `f32`").half_ulp(),
    row("ln_1p", Bf16, A0, R, Func("ws_bf16_ln_1p"), Half("ln_1p"), "`ln(1 + x)` through `f32`").half_ulp(),
    row("log", Bf16, Same(1), R, Func("ws_bf16_log"), Half("log"), "logarithm to a base (`f32`'s `log`) through `f32`").half_ulp(),
    row("powf", Bf16, Same(1), R, Func("ws_bf16_powf"), Half("powf"), "`x^y` through `f32`").half_ulp(),
    row("cbrt", Bf16, A0, R, Func("ws_bf16_cbrt"), Half("cbrt"), "cube root through `f32`").half_ulp(),
    row("hypot", Bf16, Same(1), R, Func("ws_bf16_hypot"), Half("hypot"), "`sqrt(x² + y²)` through `f32`").half_ulp(),
    row("sin", Bf16, A0, R, Func("ws_bf16_sin"), Half("sin"), "sine through `f32`").half_ulp(),
    row("cos", Bf16, A0, R, Func("ws_bf16_cos"), Half("cos"), "cosine through `f32`").half_ulp(),
    row("sin_cos", Bf16, A0, Res::Pair, Func("ws_bf16_sin_cos"), Half("sin_cos"), "`(x.sin(), x.cos())` through `f32`").half_ulp(),
    row("tan", Bf16, A0, R, Func("ws_bf16_tan"), Half("tan"), "tangent through `f32`").half_ulp(),
    row("asin", Bf16, A0, R, Func("ws_bf16_asin"), Half("asin"), "arcsine through `f32`").half_ulp(),
    row("acos", Bf16, A0, R, Func("ws_bf16_acos"), Half("acos"), "arccosine through `f32`").half_ulp(),
    row("atan", Bf16, A0, R, Func("ws_bf16_atan"), Half("atan"), "arctangent through `f32`").half_ulp(),
    row("atan2", Bf16, Same(1), R, Func("ws_bf16_atan2"), Half("atan2"), "four-quadrant arctangent of `x / y` through `f32`").half_ulp(),
    row("sinh", Bf16, A0, R, Func("ws_bf16_sinh"), Half("sinh"), "hyperbolic sine through `f32`").half_ulp(),
    row("cosh", Bf16, A0, R, Func("ws_bf16_cosh"), Half("cosh"), "hyperbolic cosine through `f32`").half_ulp(),
    row("tanh", Bf16, A0, R, Func("ws_bf16_tanh"), Half("tanh"), "hyperbolic tangent through `f32`").half_ulp(),
    row("asinh", Bf16, A0, R, Func("ws_bf16_asinh"), Half("asinh"), "inverse hyperbolic sine through `f32`").half_ulp(),
    row("acosh", Bf16, A0, R, Func("ws_bf16_acosh"), Half("acosh"), "inverse hyperbolic cosine through `f32`").half_ulp(),
    row("atanh", Bf16, A0, R, Func("ws_bf16_atanh"), Half("atanh"), "inverse hyperbolic tangent through `f32`").half_ulp(),
    row("to_f32", Bf16, A0, Res::F32, Func("ws_bf16_to_f32"), Std("to_f32"), "exact conversion"),
    row("to_f64", Bf16, A0, Res::F64, Func("ws_bf16_to_f64"), Std("to_f64"), "exact conversion"),
    row("lo", Bf16x2, A0, Res::Bf16, Func("ws_bf16x2_lo"), Std("lo"), "the low half (a `bf16`)"),
    row("hi", Bf16x2, A0, Res::Bf16, Func("ws_bf16x2_hi"), Std("hi"), "the high half (a `bf16`)"),
];

/// Methods Rust has that kernels refuse on purpose, with what to write instead.
pub fn refused(name: &str) -> Option<&'static str> {
    Some(match name {
        n if n.starts_with("checked_") => "kernels have no `Option`: test the operands first, or use the `wrapping_`/`saturating_` method",
        n if n.starts_with("overflowing_") => "kernels do not give `(value, overflowed)` pairs: use the `wrapping_` method, and test for overflow on the operands",
        "total_cmp" | "cmp" | "partial_cmp" => "kernels have no `Ordering` values: compare with `<`, `==`, `>`",
        "classify" => "kernels have no enums: use `is_nan()`, `is_infinite()`, `is_normal()`, `is_subnormal()`",
        "to_string" | "to_owned" | "clone" | "into" | "try_into" => "kernels compute on scalars: use the value itself, or `as` to convert",
        _ => return None,
    })
}

/// The supported method whose name is nearest to `name`, among those a receiver of type
/// `s` has (`None`: a slice), for "unknown method" errors.
pub fn nearest(name: &str, s: Option<Scalar>) -> Option<&'static str> {
    METHODS
        .iter()
        .filter(|m| match s {
            Some(s) => m.recv.accepts(s),
            None => m.recv == Recv::Slice,
        })
        .map(|m| (distance(name, m.name), m.name))
        .min()
        .map(|(_, n)| n)
}

/// Levenshtein distance, except that a name that begins the other is 1 away
/// (`pow` -> `powi`, `abs` -> `abs_diff`).
pub fn distance(a: &str, b: &str) -> usize {
    if a != b && (a.starts_with(b) || b.starts_with(a)) {
        return 1;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
