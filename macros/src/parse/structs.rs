//! `#[gpu_struct]`s in a function: their names in types (`p: Params`, `&[Params]`,
//! `let q: geo::Vec3`) and their literals (`Params { dt: 0.1, n: 3 }`).

use super::Parser;
use crate::ir::ast::{ExprKind, StructLit};
use crate::ir::structs::{self, StructDef};
use crate::ir::ty::Scalar;

/// The struct a type path names (by its last name), recording the path for the emitted
/// Rust.
pub fn struct_scalar(defs: &mut [StructDef], path: &syn::Path) -> Option<Scalar> {
    if path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let s = structs::lookup(defs, &path.segments.last()?.ident.to_string())?;
    structs::named_by(defs, s, path);
    Some(s)
}

impl Parser<'_> {
    /// `Params { dt: 0.1, n }`: every field named once (the type checker checks them
    /// against the definition); no `..base`.
    pub(super) fn struct_lit(&mut self, e: &syn::ExprStruct) -> Option<ExprKind> {
        let Some(ty) = struct_scalar(&mut self.structs, &e.path).filter(|_| e.qself.is_none())
        else {
            let name = super::path_text(&e.path);
            self.cx.error_spanned_by(
                &e.path,
                format!("`{name}` is not a #[gpu_struct]: add #[gpu_struct] to its definition"),
            );
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
