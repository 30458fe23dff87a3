//! Generic `#[gpu_struct]`s (`struct Params<T: Float> { alpha: T, n: u32 }`): each
//! instance (`Params<f32>`) is an entry of the struct table of its own, with its fields'
//! types substituted, its C name (`ws_s_Params_f32`) and its layout, so the rest of the
//! pipeline sees plain structs. Every instance the bounds allow is made as soon as the
//! generic struct is known: a generic kernel's instances and the type checker find them
//! in the table without adding to it.

use crate::ir::structs::{self, FieldDef, StructDef};
use crate::ir::ty::{Len, Scalar, Ty};
use crate::parse::generic_params::Bound;

/// The most entries a table grows to by instantiation (a struct holding itself is
/// rustc's error; the macro stops here instead of looping).
const MAX_DEFS: usize = 4096;

/// The types bound `name` allows (`Float`: f16, bf16, f32, f64).
pub fn bound_types(name: &str) -> Option<Vec<Scalar>> {
    let b = match name {
        "Float" => Bound::Float,
        "Int" => Bound::Int,
        "Scalar" => Bound::Scalar,
        _ => return None,
    };
    Some(b.types())
}

/// Every combination of the types of `params` (the first varying slowest).
pub fn combos(params: &[(String, String, Vec<Scalar>)]) -> Vec<Vec<Scalar>> {
    let mut out: Vec<Vec<Scalar>> = vec![Vec::new()];
    for (_, _, types) in params {
        out = out
            .into_iter()
            .flat_map(|c| {
                types.iter().map(move |t| {
                    let mut c = c.clone();
                    c.push(*t);
                    c
                })
            })
            .collect();
    }
    out
}

/// Makes every instance of every generic struct of `defs`. `None` when a field type
/// cannot be read.
pub fn instantiate_all(defs: &mut Vec<StructDef>) -> Option<()> {
    let mut g = 0;
    while g < defs.len() {
        if let Some(generic) = defs[g].generic.clone() {
            for args in combos(&generic.params) {
                instantiate(defs, g, &args)?;
            }
        }
        g += 1;
    }
    Some(())
}

/// The index of instance `args` of generic struct `g`, made if new.
pub fn instantiate(defs: &mut Vec<StructDef>, g: usize, args: &[Scalar]) -> Option<usize> {
    let found = defs.iter().position(|d| {
        d.instance
            .as_ref()
            .is_some_and(|(gi, a)| *gi == g && a == args)
    });
    if let Some(i) = found {
        return Some(i);
    }
    let generic = defs.get(g)?.generic.clone()?;
    if generic.params.len() != args.len() || defs.len() >= MAX_DEFS {
        return None;
    }
    let subst: Vec<(&str, Scalar)> = generic
        .params
        .iter()
        .map(|p| p.0.as_str())
        .zip(args.iter().copied())
        .collect();
    let mut fields = Vec::new();
    for (name, ty) in &generic.fields {
        fields.push(FieldDef {
            name: name.clone(),
            ty: field_ty(ty, defs, &subst)?,
        });
    }
    let name = structs::instance_rust_name(&defs[g].names[0], args);
    defs.push(StructDef {
        names: vec![name],
        fields,
        instance: Some((g, args.to_vec())),
        ..Default::default()
    });
    Some(defs.len() - 1)
}

/// A scalar type's name: `f32`, `warpspeed::f16`.
pub fn scalar_name(path: &syn::Path) -> Option<Scalar> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [name] => Scalar::from_name(name),
        [krate, name] if krate == "warpspeed" || krate == "half" => {
            Scalar::from_name(name).filter(|s| s.is_library())
        }
        _ => None,
    }
}

/// The arguments of a path's last segment (`Params<f32>`, `Params::<T>`), as scalars
/// (`subst` replacing type parameters); `Some(vec![])` where it has none.
pub fn path_args(
    path: &syn::Path,
    subst: &[(&str, Scalar)],
    mut other: impl FnMut(&syn::Type) -> Option<Scalar>,
) -> Option<Vec<Scalar>> {
    let last = path.segments.last()?;
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return last.arguments.is_none().then(Vec::new);
    };
    a.args
        .iter()
        .map(|arg| match arg {
            syn::GenericArgument::Type(t) => {
                if let syn::Type::Path(p) = t {
                    if let Some(id) = p.path.get_ident() {
                        if let Some((_, s)) = subst.iter().find(|(n, _)| id == n) {
                            return Some(*s);
                        }
                    }
                    if let Some(s) = scalar_name(&p.path) {
                        return Some(s);
                    }
                }
                other(t)
            }
            _ => None,
        })
        .collect()
}

/// A field type as written in a generic struct (or in a payload), with its type
/// parameters replaced by `subst`; a generic struct it holds is instantiated.
pub fn field_ty(t: &syn::Type, defs: &mut Vec<StructDef>, subst: &[(&str, Scalar)]) -> Option<Ty> {
    match t {
        syn::Type::Paren(p) => field_ty(&p.elem, defs, subst),
        syn::Type::Group(g) => field_ty(&g.elem, defs, subst),
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(id) = p.path.get_ident() {
                if let Some((_, s)) = subst.iter().find(|(n, _)| id == n) {
                    return Some(Ty::Scalar(*s));
                }
            }
            if let Some(s) = scalar_name(&p.path) {
                return Some(Ty::Scalar(s));
            }
            let leaf = p.path.segments.last()?.ident.to_string();
            let args = path_args(&p.path, subst, |_| None)?;
            let id = defs.iter().position(|d| d.names.contains(&leaf))?;
            match (&defs[id].generic, args.is_empty()) {
                (None, true) => Some(Ty::Scalar(structs::scalar(defs, id))),
                (Some(_), false) => {
                    let i = instantiate(defs, id, &args)?;
                    Some(Ty::Scalar(structs::scalar(defs, i)))
                }
                _ => None,
            }
        }
        syn::Type::Array(a) => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) = &a.len
            else {
                return None;
            };
            Some(Ty::Array(
                Box::new(field_ty(&a.elem, defs, subst)?),
                Len::Lit(n.base10_parse().ok()?),
            ))
        }
        _ => None,
    }
}
