//! `#[gpu_struct]`s in a function: their names in types (`p: Params`, `&[Params]`,
//! `let q: geo::Vec3`) and their literals (`Params { dt: 0.1, n: 3 }`).

use super::Parser;
use crate::ir::ast::{ExprKind, StructLit};
use crate::ir::structs::{self, StructDef};
use crate::ir::ty::Scalar;

/// The struct a type path names (by its last name; a generic struct's instance by its
/// arguments, `Params<f32>`, `Params::<f32>`), recording the path for the emitted Rust. A
/// generic struct without arguments is found as itself: a literal's instance is the type
/// checker's to infer, and a type must name its arguments (`parse_scalar` says so).
pub fn struct_scalar(defs: &mut [StructDef], path: &syn::Path) -> Option<Scalar> {
    let n = path.segments.len();
    if path
        .segments
        .iter()
        .take(n.saturating_sub(1))
        .any(|s| !s.arguments.is_none())
    {
        return None;
    }
    let last = path.segments.last()?;
    let leaf = last.ident.to_string();
    let s = if last.arguments.is_none() {
        structs::lookup(defs, &leaf)?
    } else {
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return None;
        };
        let args = a
            .args
            .iter()
            .map(|arg| match arg {
                syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                    arg_scalar(&p.path)
                }
                _ => None,
            })
            .collect::<Option<Vec<Scalar>>>()?;
        structs::instance(defs, &leaf, &args)?
    };
    structs::named_by(defs, s, path);
    Some(s)
}

/// A generic struct's argument: a scalar (`f32`, `warpspeed::f16`).
fn arg_scalar(path: &syn::Path) -> Option<Scalar> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [name] => Scalar::from_name(name),
        [krate, name] if krate == "warpspeed" || krate == "half" => {
            Scalar::from_name(name).filter(|s| s.is_library())
        }
        _ => None,
    }
}

/// Whether `ty` names a generic struct in a way rustc refuses itself where the type is
/// emitted as written (a device function's signature, which is its host function's): a
/// number of arguments other than its parameters' (none included; E0107), or a scalar
/// argument its bound does not allow (E0277). `type_params`: the function's own, which
/// rustc checks against their bounds.
pub fn rustc_refuses(defs: &[StructDef], ty: &syn::Type, type_params: &[String]) -> bool {
    let inner = |t: &syn::Type| rustc_refuses(defs, t, type_params);
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let leaf = last.ident.to_string();
            let Some(Scalar::Struct(id)) = structs::lookup(defs, &leaf) else {
                return false;
            };
            let Some(g) = structs::def(defs, id).and_then(|d| d.generic.as_ref()) else {
                return false;
            };
            let args: Vec<&syn::GenericArgument> = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                _ => Vec::new(),
            };
            if args.len() != g.params.len() {
                return true;
            }
            let mut scalars = Vec::new();
            for a in args {
                let syn::GenericArgument::Type(syn::Type::Path(tp)) = a else {
                    return false;
                };
                if tp
                    .path
                    .get_ident()
                    .is_some_and(|i| type_params.contains(&i.to_string()))
                {
                    return false;
                }
                match arg_scalar(&tp.path) {
                    Some(s) => scalars.push(s),
                    None => return false,
                }
            }
            structs::instance(defs, &leaf, &scalars).is_none()
        }
        syn::Type::Reference(r) => inner(&r.elem),
        syn::Type::Slice(s) => inner(&s.elem),
        syn::Type::Array(a) => inner(&a.elem),
        syn::Type::Paren(p) => inner(&p.elem),
        syn::Type::Group(g) => inner(&g.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(inner),
        _ => false,
    }
}

/// Where `path` names a generic struct without the arguments it needs (or with ones it
/// has no instance of), what to write instead.
pub fn generic_misuse(defs: &[StructDef], path: &syn::Path, literal: bool) -> Option<String> {
    let last = path.segments.last()?;
    let leaf = last.ident.to_string();
    let s = structs::lookup(defs, &leaf).filter(|s| structs::is_generic(defs, *s))?;
    let Scalar::Struct(id) = s else { return None };
    let g = structs::def(defs, id)?.generic.as_ref()?;
    let params: Vec<&str> = g.params.iter().map(|p| p.0.as_str()).collect();
    let params = params.join(", ");
    let bounds: Vec<String> = g
        .params
        .iter()
        .map(|p| format!("`{}: {}`", p.0, p.1))
        .collect();
    Some(if last.arguments.is_none() && !literal {
        format!("`{leaf}` is a generic #[gpu_struct]: write its arguments, `{leaf}<{params}>` (a type parameter of the function, or a type such as `f32`)")
    } else {
        format!("the arguments of `{leaf}` are types its bounds allow ({}): a type parameter of the function, or a type such as `f32`", bounds.join(", "))
    })
}

impl Parser<'_> {
    /// `Params { dt: 0.1, n }`: every field named once (the type checker checks them
    /// against the definition); no `..base`.
    pub(super) fn struct_lit(&mut self, e: &syn::ExprStruct) -> Option<ExprKind> {
        let Some(ty) = struct_scalar(&mut self.structs, &e.path).filter(|_| e.qself.is_none())
        else {
            let name = super::path_text(&e.path);
            let msg = generic_misuse(&self.structs, &e.path, true).unwrap_or_else(|| {
                format!("`{name}` is not a #[gpu_struct]: add #[gpu_struct] to its definition")
            });
            self.cx.error_spanned_by(&e.path, msg);
            return None;
        };
        // Refused, and the literal is dropped: its missing fields would be a second error
        // about what `..base` was meant to give.
        let mut ok = true;
        if let Some(rest) = &e.rest {
            self.cx.error_spanned_by(rest, "`..base` is not supported in kernels: copy the value (`let mut p = base;`) and assign its fields");
            ok = false;
        }
        let mut fields = Vec::new();
        for fv in &e.fields {
            let syn::Member::Named(name) = &fv.member else {
                self.cx
                    .error_spanned_by(&fv.member, "a #[gpu_struct] has named fields");
                ok = false;
                continue;
            };
            match self.expr_of(&fv.expr) {
                Some(v) => fields.push((name.clone(), v)),
                None => ok = false,
            }
        }
        ok.then(|| {
            ExprKind::StructLit(StructLit {
                ty,
                path: e.path.clone(),
                fields,
            })
        })
    }
}
