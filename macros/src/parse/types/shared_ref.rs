//! `&SharedArray<T, N>` and `&mut SharedArray<T, N>` (also `SharedArray<[T; W], H>`, a 2-D
//! tile, and `SharedArray<AtomicU32, N>`) as a `#[gpu_device]` function's parameter: the
//! caller's shared array, passed as `&mut tile`. The callee sees a slice (a row-indexed
//! one for a tile) whose memory is shared; a literal `N` is its declared length, checked
//! at the function's entry as a `#[len(N)]` is.

use super::{atomic_elem, parse_scalar};
use crate::ctxt::Ctxt;
use crate::ir::ast::ParamTy;
use crate::ir::structs::StructDef;

/// A shared-array parameter: its type, and `N` where it is a literal.
pub struct SharedParam {
    pub ty: ParamTy,
    pub len: Option<u64>,
}

const USAGE: &str = "a shared array is passed as `&mut SharedArray<T, N>` or `&SharedArray<T, N>` (rows: `&mut SharedArray<[T; W], H>` with a literal `W`)";

/// `Some(..)` when `ty` is a reference to a `SharedArray` (`Some(None)` after an error),
/// `None` when it is something else.
pub fn shared_param(
    cx: &Ctxt,
    structs: &mut [StructDef],
    ty: &syn::Type,
) -> Option<Option<SharedParam>> {
    let (seg, mutable) = match ty {
        syn::Type::Reference(r) => (shared_segment(&r.elem)?, r.mutability.is_some()),
        other => {
            shared_segment(other)?;
            cx.error_spanned_by(
                ty,
                "a shared array is borrowed, never moved: take `&mut SharedArray<T, N>` (or `&SharedArray<T, N>` to read it)",
            );
            return Some(None);
        }
    };
    let args: Vec<&syn::GenericArgument> = match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    };
    let [syn::GenericArgument::Type(elem), n] = args.as_slice() else {
        cx.error_spanned_by(seg, USAGE);
        return Some(None);
    };
    let len = literal(n);
    let ty = match elem {
        syn::Type::Array(a) => {
            let Some(width) = literal_expr(&a.len) else {
                cx.error_spanned_by(&a.len, USAGE);
                return Some(None);
            };
            let Some(elem) = parse_scalar(cx, structs, &a.elem) else {
                return Some(None);
            };
            if !mutable {
                cx.error_spanned_by(
                    ty,
                    "a 2-D shared tile is passed as `&mut SharedArray<[T; W], H>` (its rows are writable)",
                );
                return Some(None);
            }
            ParamTy::Rows { elem, width }
        }
        other => match atomic_elem(other) {
            Some(elem) if mutable => {
                cx.error_spanned_by(
                    ty,
                    format!(
                        "atomics are updated through a shared reference: write `&SharedArray<{}, N>`, not `&mut`",
                        elem.atomic_name().unwrap_or_default()
                    ),
                );
                return Some(None);
            }
            Some(elem) => ParamTy::Atomics(elem),
            None => {
                let elem = parse_scalar(cx, structs, other)?;
                ParamTy::Slice { elem, mutable }
            }
        },
    };
    // A 2-D tile's `H` is rows, not elements: its declared length stays unknown.
    let len = len.filter(|_| !matches!(ty, ParamTy::Rows { .. }));
    Some(Some(SharedParam { ty, len }))
}

/// The `SharedArray<..>` path segment of `ty`, if it names one.
fn shared_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            (last.ident == "SharedArray").then_some(last)
        }
        syn::Type::Paren(p) => shared_segment(&p.elem),
        syn::Type::Group(g) => shared_segment(&g.elem),
        _ => None,
    }
}

/// An integer-literal generic argument (`1024`); `N` and `{ 2 * N }` are not.
fn literal(arg: &syn::GenericArgument) -> Option<u64> {
    match arg {
        syn::GenericArgument::Const(e) => literal_expr(e),
        _ => None,
    }
}

fn literal_expr(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => literal_expr(e),
            _ => None,
        },
        _ => None,
    }
}
