//! The numeric constants of the standard library that the macro knows by value: the
//! associated constants of the primitive numbers (`u32::MAX`, `i8::BITS`,
//! `f32::MIN_POSITIVE`, `f64::NAN`, ...) and the float modules' mathematical constants
//! (`core::f32::consts::PI`, `std::f64::consts::LN_2`, ...). The macro evaluates them with
//! its own Rust, so the C gets the exact bits Rust has (floats as bit patterns: NaN and
//! infinities included), and the simulator body names the same constant, so rustc checks
//! the name and the type.

use crate::ir::ty::Scalar;

/// A constant's value, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstValue {
    Int(i128),
    F32(u32),
    F64(u64),
}

/// How the simulator body names the constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstPath {
    /// `<f32>::MIN_POSITIVE`: an associated constant of a primitive.
    Assoc(Scalar, &'static str),
    /// `::core::f32::consts::PI` (`core` or `std`, as written).
    Module {
        krate: &'static str,
        float: Scalar,
        name: &'static str,
    },
}

/// A known numeric constant: its type, value and Rust name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumConst {
    pub ty: Scalar,
    pub value: ConstValue,
    pub path: ConstPath,
}

/// `u32::MAX` (also `core::u32::MAX`), `f32::EPSILON`, `core::f64::consts::PI`, given
/// the path's segments; `None` for anything else.
pub fn lookup(segs: &[String]) -> Option<NumConst> {
    let n = segs.len();
    if n >= 4 && segs[n - 2] == "consts" {
        // `core::f32::consts::PI`: the module path must start at `core` or `std`.
        let krate = match segs[0].as_str() {
            "core" => "core",
            "std" => "std",
            _ => return None,
        };
        let float = Scalar::from_name(&segs[n - 3]).filter(|s| s.is_float())?;
        let (name, value) = math_const(float, &segs[n - 1])?;
        return Some(NumConst {
            ty: float,
            value,
            path: ConstPath::Module { krate, float, name },
        });
    }
    if n < 2 {
        return None;
    }
    let owner = Scalar::from_name(&segs[n - 2])
        .filter(|s| s.is_int() || s.is_float())
        .filter(|s| !s.is_library())?;
    let (name, ty, value) = if owner.is_float() {
        float_const(owner, &segs[n - 1])?
    } else {
        int_const(owner, &segs[n - 1])?
    };
    Some(NumConst {
        ty,
        value,
        path: ConstPath::Assoc(owner, name),
    })
}

/// `MAX`, `MIN`, `BITS` of an integer type.
fn int_const(s: Scalar, name: &str) -> Option<(&'static str, Scalar, ConstValue)> {
    let bits = s.bits();
    Some(match name {
        "MAX" if s.is_signed_int() => ("MAX", s, ConstValue::Int((1i128 << (bits - 1)) - 1)),
        "MIN" if s.is_signed_int() => ("MIN", s, ConstValue::Int(-(1i128 << (bits - 1)))),
        "MAX" => ("MAX", s, ConstValue::Int((1i128 << bits) - 1)),
        "MIN" => ("MIN", s, ConstValue::Int(0)),
        "BITS" => ("BITS", Scalar::U32, ConstValue::Int(i128::from(bits))),
        _ => return None,
    })
}

/// The associated constants of `f32`/`f64`, with the type each has (`DIGITS` is a `u32`,
/// `MAX_EXP` an `i32`).
fn float_const(s: Scalar, name: &str) -> Option<(&'static str, Scalar, ConstValue)> {
    macro_rules! table {
        ($($name:ident: $kind:ident),* $(,)?) => {
            match name {
                $(stringify!($name) => {
                    let (ty, value) = if s == Scalar::F32 {
                        table!(@value $kind, f32::$name)
                    } else {
                        table!(@value $kind, f64::$name)
                    };
                    (stringify!($name), ty, value)
                })*
                _ => return None,
            }
        };
        (@value float, $v:expr) => { (s, float_bits(s, $v.to_bits().into())) };
        (@value u32, $v:expr) => { (Scalar::U32, ConstValue::Int(i128::from($v))) };
        (@value i32, $v:expr) => { (Scalar::I32, ConstValue::Int(i128::from($v))) };
    }
    Some(table! {
        MAX: float, MIN: float, MIN_POSITIVE: float, EPSILON: float,
        INFINITY: float, NEG_INFINITY: float, NAN: float,
        DIGITS: u32, MANTISSA_DIGITS: u32, RADIX: u32,
        MAX_EXP: i32, MIN_EXP: i32, MAX_10_EXP: i32, MIN_10_EXP: i32,
    })
}

/// `core::{f32,f64}::consts::*`.
fn math_const(s: Scalar, name: &str) -> Option<(&'static str, ConstValue)> {
    macro_rules! table {
        ($($name:ident),* $(,)?) => {
            match name {
                $(stringify!($name) => (
                    stringify!($name),
                    if s == Scalar::F32 {
                        ConstValue::F32(core::f32::consts::$name.to_bits())
                    } else {
                        ConstValue::F64(core::f64::consts::$name.to_bits())
                    },
                ),)*
                _ => return None,
            }
        };
    }
    Some(table! {
        PI, TAU, E, SQRT_2, FRAC_1_SQRT_2, LN_2, LN_10, LOG2_E, LOG2_10, LOG10_E, LOG10_2,
        FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6, FRAC_PI_8, FRAC_1_PI, FRAC_2_PI,
        FRAC_2_SQRT_PI,
    })
}

/// A float constant's bits as the type's value (`bits` is `to_bits()` widened).
fn float_bits(s: Scalar, bits: u64) -> ConstValue {
    if s == Scalar::F32 {
        ConstValue::F32(bits as u32)
    } else {
        ConstValue::F64(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(p: &str) -> Vec<String> {
        p.split("::").map(String::from).collect()
    }

    #[test]
    fn values_are_rusts() {
        let c = |p: &str| lookup(&segs(p)).map(|c| (c.ty, c.value));
        assert_eq!(c("u32::BITS"), Some((Scalar::U32, ConstValue::Int(32))));
        assert_eq!(c("i8::BITS"), Some((Scalar::U32, ConstValue::Int(8))));
        assert_eq!(
            c("i64::MIN"),
            Some((Scalar::I64, ConstValue::Int(i64::MIN.into())))
        );
        assert_eq!(
            c("usize::MAX"),
            Some((Scalar::Usize, ConstValue::Int(u64::MAX.into())))
        );
        assert_eq!(
            c("f32::MIN_POSITIVE"),
            Some((Scalar::F32, ConstValue::F32(f32::MIN_POSITIVE.to_bits())))
        );
        assert_eq!(
            c("f64::NAN"),
            Some((Scalar::F64, ConstValue::F64(f64::NAN.to_bits())))
        );
        assert_eq!(
            c("f64::MAX_EXP"),
            Some((Scalar::I32, ConstValue::Int(1024)))
        );
        assert_eq!(
            c("std::f64::consts::PI"),
            Some((Scalar::F64, ConstValue::F64(std::f64::consts::PI.to_bits())))
        );
        assert_eq!(
            c("core::f32::consts::FRAC_1_SQRT_2"),
            Some((
                Scalar::F32,
                ConstValue::F32(std::f32::consts::FRAC_1_SQRT_2.to_bits())
            ))
        );
        // Not Rust: `f32::consts` is a module of `core`, and integers have no `NAN`.
        assert_eq!(c("f32::consts::PI"), None);
        assert_eq!(c("u32::NAN"), None);
        assert_eq!(c("bool::MAX"), None);
        assert_eq!(c("f16::MAX"), None);
    }
}
