//! Numeric methods kernels may call (`x.min(y)`, `x.sqrt()`, `x.count_ones()`, ...):
//! which receivers take them, what their arguments and results are.

use crate::ir::ty::Scalar;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    Min,
    Max,
    Abs,
    Sqrt,
    Powi,
    Powf,
    Exp,
    Ln,
    Sin,
    Cos,
    Atan2,
    Floor,
    Ceil,
    MulAdd,
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    /// `h.to_f32()`, `h.to_f64()` on an `f16`.
    ToF32,
    ToF64,
    /// `p.lo()`, `p.hi()` on an `f16x2`.
    Lo,
    Hi,
    /// `s.len()` on a slice.
    Len,
    IsEmpty,
}

/// What a method's arguments must be.
pub enum Args {
    None,
    /// Each argument has the receiver's type.
    SameAsRecv(usize),
    /// One `i32` (powi).
    I32,
}

impl Method {
    pub fn from_name(name: &str) -> Option<Method> {
        Some(match name {
            "min" => Method::Min,
            "max" => Method::Max,
            "abs" => Method::Abs,
            "sqrt" => Method::Sqrt,
            "powi" => Method::Powi,
            "powf" => Method::Powf,
            "exp" => Method::Exp,
            "ln" => Method::Ln,
            "sin" => Method::Sin,
            "cos" => Method::Cos,
            "atan2" => Method::Atan2,
            "floor" => Method::Floor,
            "ceil" => Method::Ceil,
            "mul_add" => Method::MulAdd,
            "count_ones" => Method::CountOnes,
            "leading_zeros" => Method::LeadingZeros,
            "trailing_zeros" => Method::TrailingZeros,
            "wrapping_add" => Method::WrappingAdd,
            "wrapping_sub" => Method::WrappingSub,
            "wrapping_mul" => Method::WrappingMul,
            "to_f32" => Method::ToF32,
            "to_f64" => Method::ToF64,
            "lo" => Method::Lo,
            "hi" => Method::Hi,
            "len" => Method::Len,
            "is_empty" => Method::IsEmpty,
            _ => return None,
        })
    }

    pub fn args(self) -> Args {
        match self {
            Method::Min | Method::Max | Method::Powf | Method::Atan2 => Args::SameAsRecv(1),
            Method::WrappingAdd | Method::WrappingSub | Method::WrappingMul => Args::SameAsRecv(1),
            Method::MulAdd => Args::SameAsRecv(2),
            Method::Powi => Args::I32,
            _ => Args::None,
        }
    }

    /// Whether a scalar receiver of type `s` has this method; `Err` says which do.
    pub fn accepts(self, s: Scalar) -> Result<(), &'static str> {
        let ok = match self {
            Method::Min | Method::Max => s.is_int() || s.is_float(),
            Method::Abs => s.is_signed_int() || s.is_float(),
            Method::Sqrt
            | Method::Powi
            | Method::Powf
            | Method::Exp
            | Method::Ln
            | Method::Sin
            | Method::Cos
            | Method::Atan2
            | Method::Floor
            | Method::Ceil
            | Method::MulAdd => s.is_float(),
            Method::CountOnes
            | Method::LeadingZeros
            | Method::TrailingZeros
            | Method::WrappingAdd
            | Method::WrappingSub
            | Method::WrappingMul => s.is_int(),
            Method::ToF32 | Method::ToF64 => s == Scalar::F16,
            Method::Lo | Method::Hi => s == Scalar::F16x2,
            Method::Len | Method::IsEmpty => false,
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Method::Abs => "signed integers and floats",
            Method::Min | Method::Max => "integers and floats",
            Method::Len | Method::IsEmpty => "slices",
            Method::ToF32 | Method::ToF64 => "`f16`",
            Method::Lo | Method::Hi => "`f16x2`",
            Method::CountOnes
            | Method::LeadingZeros
            | Method::TrailingZeros
            | Method::WrappingAdd
            | Method::WrappingSub
            | Method::WrappingMul => "integers",
            _ => "f32 and f64",
        })
    }

    /// The result type for receiver `s`.
    pub fn result(self, s: Scalar) -> Scalar {
        match self {
            Method::CountOnes | Method::LeadingZeros | Method::TrailingZeros => Scalar::U32,
            Method::Len => Scalar::Usize,
            Method::ToF32 => Scalar::F32,
            Method::ToF64 => Scalar::F64,
            Method::Lo | Method::Hi => Scalar::F16,
            Method::IsEmpty => Scalar::Bool,
            _ => s,
        }
    }
}
