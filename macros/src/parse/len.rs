//! `#[len(n * n)] cells: &[i32]`: a slice parameter's declared least length. The
//! expression is integer literals and the function's unsigned integer parameters under `+`
//! and `*` (so the host, the simulator and the C compute it alike, overflow checked).

use crate::ctxt::Ctxt;
use crate::ir::ast::{LenDecl, LenExpr, Param, ParamTy};
use quote::ToTokens;
use syn::spanned::Spanned;

const HOW: &str = "write the least length with `+`, `*`, integer literals and the function's unsigned integer parameters, e.g. `#[len(n * n)]`";

/// Whether `attr` is a `#[len(..)]` (the only attribute a parameter takes).
pub fn is_len(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("len")
}

/// Resolves each parameter's `#[len(..)]` attributes (`attrs[i]` belongs to `params[i]`)
/// against `params`, reporting what is not a length.
pub fn resolve(cx: &Ctxt, params: &mut [Param], attrs: &[Vec<syn::Attribute>]) {
    let mut decls = Vec::new();
    for (p, attrs) in params.iter().zip(attrs) {
        let mut decl = None;
        for attr in attrs {
            if decl.is_some() {
                cx.error_spanned_by(
                    attr,
                    format!("`{}` has two #[len(..)] attributes: keep one", p.name),
                );
                continue;
            }
            if matches!(
                p.ty,
                ParamTy::Scalar(_) | ParamTy::Array { .. } | ParamTy::Texture2D(_)
            ) {
                cx.error_spanned_by(
                    attr,
                    format!(
                        "#[len(..)] declares a slice's least length, and `{}` is not a slice",
                        p.name
                    ),
                );
                continue;
            }
            decl = parse(cx, attr, params);
        }
        decls.push(decl);
    }
    for (p, d) in params.iter_mut().zip(decls) {
        p.len = d;
    }
}

fn parse(cx: &Ctxt, attr: &syn::Attribute, params: &[Param]) -> Option<LenDecl> {
    let list = match &attr.meta {
        syn::Meta::List(list) => list,
        other => {
            cx.error_spanned_by(
                other,
                format!("#[len] needs the length in parentheses: {HOW}"),
            );
            return None;
        }
    };
    let expr: syn::Expr = match syn::parse2(list.tokens.clone()) {
        Ok(e) => e,
        Err(e) => {
            cx.error_at(e.span(), format!("this is not a length: {HOW}"));
            return None;
        }
    };
    let text = expr.to_token_stream().to_string();
    let expr = lower(cx, &expr, params)?;
    Some(LenDecl {
        expr,
        text,
        line: attr.span().start().line,
    })
}

fn lower(cx: &Ctxt, e: &syn::Expr, params: &[Param]) -> Option<LenExpr> {
    match e {
        syn::Expr::Paren(p) => lower(cx, &p.expr, params),
        syn::Expr::Group(g) => lower(cx, &g.expr, params),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => match i.base10_parse::<u64>() {
            Ok(v) => Some(LenExpr::Lit(v)),
            Err(_) => {
                cx.error_spanned_by(i, "this length does not fit in a u64");
                None
            }
        },
        syn::Expr::Binary(b) => {
            let (l, r) = (lower(cx, &b.left, params), lower(cx, &b.right, params));
            let (l, r) = (Box::new(l?), Box::new(r?));
            match b.op {
                syn::BinOp::Add(_) => Some(LenExpr::Add(l, r)),
                syn::BinOp::Mul(_) => Some(LenExpr::Mul(l, r)),
                op => {
                    cx.error_spanned_by(op, format!("a #[len(..)] takes `+` and `*` only: {HOW}"));
                    None
                }
            }
        }
        syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            let name = p.path.get_ident()?;
            let Some(param) = params.iter().find(|q| &q.name == name) else {
                cx.error_spanned_by(
                    name,
                    format!("`{name}` is not a parameter of this function: {HOW}"),
                );
                return None;
            };
            match param.ty {
                ParamTy::Scalar(s) if s.is_int() && !s.is_signed_int() && !param.mutable => {
                    // The parameter's own name: the generated Rust reads the parameter
                    // (a `macro_rules!` caller's `n` may carry other hygiene).
                    Some(LenExpr::Param(param.var, param.name.clone()))
                }
                ParamTy::Scalar(_) if param.mutable => {
                    cx.error_spanned_by(
                        name,
                        format!("`{name}` is declared `mut`, so its value at an index is not the one the length was checked with: drop the `mut` (copy it into a local to change it)"),
                    );
                    None
                }
                _ => {
                    cx.error_spanned_by(
                        name,
                        format!("`{name}` is not an unsigned integer parameter: {HOW}"),
                    );
                    None
                }
            }
        }
        other => {
            cx.error_spanned_by(other, format!("this is not a length: {HOW}"));
            None
        }
    }
}
