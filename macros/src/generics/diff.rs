//! The types of the simulator body of a generic function. The function is type-checked
//! with a base instance (each parameter its bound's first representative) and, per type
//! parameter, once more with that parameter changed to its second representative. The
//! two instances parse alike (same expression and variable ids); where a type differs, it
//! is the parameter's, and the simulator body writes `T` there (`Scalar::Param`).

use crate::analysis::typeck::Types;
use crate::ir::ty::{Scalar, Ty};

/// The base instance's types as they were before any marking.
pub struct Snapshot {
    expr: Vec<Ty>,
    vars: Vec<Ty>,
    consts: Vec<Ty>,
}

pub fn snapshot(t: &Types) -> Snapshot {
    Snapshot {
        expr: t.expr.clone(),
        vars: t.vars.iter().map(|v| v.ty.clone()).collect(),
        consts: t.consts.iter().map(|c| c.ty.clone()).collect(),
    }
}

/// Marks in `cur` (the base instance's types) the places where `alt` differs from `base`
/// as the parameter `name`.
pub fn mark(cur: &mut Types, base: &Snapshot, alt: &Types, name: &'static str) {
    for ((c, b), a) in cur.expr.iter_mut().zip(&base.expr).zip(&alt.expr) {
        *c = merge(c, b, a, name);
    }
    for ((c, b), a) in cur.vars.iter_mut().zip(&base.vars).zip(&alt.vars) {
        c.ty = merge(&c.ty, b, &a.ty, name);
    }
    for ((c, b), a) in cur.consts.iter_mut().zip(&base.consts).zip(&alt.consts) {
        c.ty = merge(&c.ty, b, &a.ty, name);
    }
}

fn merge_scalar(c: Scalar, b: Scalar, a: Scalar, name: &'static str) -> Scalar {
    // Two instances of one generic struct (`Params<f32>`, `Params<f64>`): `Params<T>`.
    if let (Scalar::Struct(ci), Scalar::Struct(bi), Scalar::Struct(ai)) = (c, b, a) {
        if b != a && ci.args.len() == bi.args.len() && bi.args.len() == ai.args.len() {
            let args = (0..ci.args.len())
                .map(|k| merge_scalar(ci.args[k], bi.args[k], ai.args[k], name))
                .collect();
            return Scalar::Struct(ci.with_args(args));
        }
    }
    if b != a {
        Scalar::Param(name)
    } else {
        c
    }
}

/// `c` (a type of the base instance), with `T` where the base's `b` and the other
/// instance's `a` differ.
pub fn merge(c: &Ty, b: &Ty, a: &Ty, name: &'static str) -> Ty {
    let m = |c: Scalar, b: Scalar, a: Scalar| merge_scalar(c, b, a, name);
    match (c, b, a) {
        (Ty::Scalar(c), Ty::Scalar(b), Ty::Scalar(a)) => Ty::Scalar(m(*c, *b, *a)),
        (Ty::Slice(c, w), Ty::Slice(b, _), Ty::Slice(a, _)) => Ty::Slice(m(*c, *b, *a), *w),
        (Ty::Atomics(c), Ty::Atomics(b), Ty::Atomics(a)) => Ty::Atomics(m(*c, *b, *a)),
        (Ty::Rows(c, w), Ty::Rows(b, _), Ty::Rows(a, _)) => Ty::Rows(m(*c, *b, *a), w.clone()),
        (Ty::CasResult(c), Ty::CasResult(b), Ty::CasResult(a)) => Ty::CasResult(m(*c, *b, *a)),
        (Ty::Array(c, n), Ty::Array(b, _), Ty::Array(a, _)) => {
            Ty::Array(Box::new(merge(c, b, a, name)), n.clone())
        }
        (Ty::Tuple(c), Ty::Tuple(b), Ty::Tuple(a)) if c.len() == b.len() && b.len() == a.len() => {
            Ty::Tuple(
                c.iter()
                    .zip(b)
                    .zip(a)
                    .map(|((c, b), a)| merge(c, b, a, name))
                    .collect(),
            )
        }
        _ => c.clone(),
    }
}
