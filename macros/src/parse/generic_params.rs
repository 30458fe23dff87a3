//! The generic parameters of a kernel or device function: type parameters bounded by one
//! of warpspeed's traits (`T: Float`, `T: Int`, `T: Scalar`) and const parameters
//! (`const B: usize`). Every other form gets a spanned error here.

use crate::ctxt::Ctxt;
use crate::ir::ty::Scalar;
use proc_macro2::Ident;

/// The most instances one function may have (the product of its bounds' type counts):
/// each is type-checked, emitted as C and compiled by NVRTC when launched.
pub const MAX_INSTANCES: usize = 64;

/// Which trait bounds a type parameter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Float,
    Int,
    Scalar,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Float => "Float",
            Bound::Int => "Int",
            Bound::Scalar => "Scalar",
        }
    }

    /// The types the bound admits: one instance each.
    pub fn types(self) -> Vec<Scalar> {
        use Scalar::*;
        let ints = [I8, I16, I32, I64, Isize, U8, U16, U32, U64, Usize];
        let floats = [F16, Bf16, F32, F64];
        match self {
            Bound::Float => floats.to_vec(),
            Bound::Int => ints.to_vec(),
            Bound::Scalar => [Bool].into_iter().chain(ints).chain(floats).collect(),
        }
    }

    /// Two types of the bound that the type checker treats alike: the function is checked
    /// with each, and where the types differ, the type is the parameter (the simulator body
    /// writes `T` there).
    pub fn representatives(self) -> (Scalar, Scalar) {
        match self {
            Bound::Float => (Scalar::F32, Scalar::F64),
            Bound::Int => (Scalar::I32, Scalar::U64),
            Bound::Scalar => (Scalar::I32, Scalar::F32),
        }
    }
}

pub struct TypeParam {
    pub name: Ident,
    pub bound: Bound,
}

pub struct ConstParam {
    pub name: Ident,
    pub ty: syn::Type,
    /// `ty` as a kernel scalar (an integer or `bool`).
    pub scalar: Scalar,
}

/// The generic parameters, in the order written (type and const parameters may mix).
pub struct Generics {
    pub types: Vec<TypeParam>,
    pub consts: Vec<ConstParam>,
    /// The parameter list as written, for the generated `launch::<..>` (bounds replaced by
    /// warpspeed's paths).
    pub order: Vec<GenericRef>,
}

#[derive(Clone, Copy)]
pub enum GenericRef {
    Type(usize),
    Const(usize),
}

/// Reads `<T: Float, const B: usize>`; `None` after an error (reported).
pub fn parse(cx: &Ctxt, g: &syn::Generics) -> Option<Generics> {
    let mut out = Generics {
        types: Vec::new(),
        consts: Vec::new(),
        order: Vec::new(),
    };
    let mut ok = true;
    // A parameter bounded in the refused `where` clause has its bound there: the one
    // error is the clause's.
    let mut in_where = Vec::new();
    if let Some(w) = &g.where_clause {
        for p in &w.predicates {
            if let syn::WherePredicate::Type(t) = p {
                if let syn::Type::Path(tp) = &t.bounded_ty {
                    if let Some(id) = tp.path.get_ident() {
                        in_where.push(id.to_string());
                    }
                }
            }
        }
        cx.error_spanned_by(
            w,
            "`where` clauses are not supported on kernels: write the bound in the parameter list (`<T: Float>`)",
        );
        ok = false;
    }
    for p in &g.params {
        match p {
            syn::GenericParam::Lifetime(l) => {
                cx.error_spanned_by(
                    l,
                    "a kernel has no lifetime parameters: slices are device memory that outlives the launch",
                );
                ok = false;
            }
            syn::GenericParam::Type(t)
                if t.bounds.is_empty() && in_where.contains(&t.ident.to_string()) => {}
            syn::GenericParam::Type(t) => match type_param(cx, t) {
                Some(tp) => {
                    out.order.push(GenericRef::Type(out.types.len()));
                    out.types.push(tp);
                }
                None => ok = false,
            },
            syn::GenericParam::Const(c) => {
                if let Some(d) = &c.default {
                    cx.error_spanned_by(d, "a kernel's const parameter has no default: the launch names it (`launch::<256>(..)`)");
                    ok = false;
                    continue;
                }
                let Some(scalar) = const_type(&c.ty) else {
                    cx.error_spanned_by(
                        &c.ty,
                        "a kernel's const parameter is an integer or a bool (`const B: usize`)",
                    );
                    ok = false;
                    continue;
                };
                let name = c.ident.to_string();
                if !name.starts_with(|ch: char| ch.is_ascii_uppercase()) {
                    cx.error_spanned_by(
                        &c.ident,
                        "name a const parameter in capitals (`const B: usize`): kernels read capitalised names as constants",
                    );
                    ok = false;
                    continue;
                }
                out.order.push(GenericRef::Const(out.consts.len()));
                out.consts.push(ConstParam {
                    name: c.ident.clone(),
                    ty: c.ty.clone(),
                    scalar,
                });
            }
        }
    }
    let count: usize = out
        .types
        .iter()
        .map(|t| t.bound.types().len())
        .try_fold(1usize, |a, n| a.checked_mul(n))
        .unwrap_or(usize::MAX);
    if ok && count > MAX_INSTANCES {
        cx.error_spanned_by(
            &g.params,
            format!("these bounds give {count} instances, each compiled on its own: at most {MAX_INSTANCES} are allowed; bound a parameter more narrowly (`Float` or `Int` rather than `Scalar`)"),
        );
        ok = false;
    }
    ok.then_some(out)
}

fn type_param(cx: &Ctxt, t: &syn::TypeParam) -> Option<TypeParam> {
    let need = || {
        format!(
            "a kernel's type parameter needs exactly one of warpspeed's bounds: `{0}: Float` (f16, bf16, f32, f64), `{0}: Int` (the integers) or `{0}: Scalar` (any kernel scalar)",
            t.ident
        )
    };
    if let Some(d) = &t.default {
        cx.error_spanned_by(
            d,
            "a kernel's type parameter has no default: the launch infers or names it",
        );
        return None;
    }
    let bounds: Vec<&syn::TypeParamBound> = t.bounds.iter().collect();
    let [syn::TypeParamBound::Trait(tb)] = bounds.as_slice() else {
        if bounds.is_empty() {
            cx.error_spanned_by(&t.ident, need());
        } else {
            cx.error_spanned_by(&t.bounds, need());
        }
        return None;
    };
    let last = tb.path.segments.last();
    let bound = match last.map(|s| s.ident.to_string()).as_deref() {
        _ if tb.lifetimes.is_some() || !matches!(tb.modifier, syn::TraitBoundModifier::None) => {
            None
        }
        _ if last.is_some_and(|s| !s.arguments.is_empty()) => None,
        Some("Float") => Some(Bound::Float),
        Some("Int") => Some(Bound::Int),
        Some("Scalar") => Some(Bound::Scalar),
        _ => None,
    };
    let Some(bound) = bound else {
        cx.error_spanned_by(tb, need());
        return None;
    };
    Some(TypeParam {
        name: t.ident.clone(),
        bound,
    })
}

/// The scalar a const parameter's type names: an integer or `bool`.
fn const_type(t: &syn::Type) -> Option<Scalar> {
    let syn::Type::Path(p) = t else {
        return None;
    };
    let id = p.path.get_ident().filter(|_| p.qself.is_none())?;
    Scalar::from_name(&id.to_string()).filter(|s| s.is_int() || *s == Scalar::Bool)
}
