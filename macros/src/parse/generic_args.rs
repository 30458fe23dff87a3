//! The turbofish of a device function's call (`lerp::<f32>(..)`, `tile_sum::<256>(..)`,
//! `scale::<T, B>(..)`): which arguments are types (the C picks the overload from the
//! call's arguments, so they need no C) and which are const arguments (the C template's,
//! [`ConstArg`]). The simulator body passes the turbofish on as written, and rustc checks
//! it against the callee's parameters.

use super::consts::const_expr;
use super::{is_const_name, Parser};
use crate::ir::ast::ConstArg;
use crate::ir::ty::Scalar;
use syn::GenericArgument as G;

impl Parser<'_> {
    /// The const arguments of a call's turbofish, in order; `None` after an error.
    pub(super) fn generic_args_of(
        &mut self,
        g: &syn::AngleBracketedGenericArguments,
    ) -> Option<Vec<ConstArg>> {
        let mut out = Vec::new();
        let mut ok = true;
        for a in &g.args {
            let arg = match a {
                // `f32`, the caller's `T`: a type; a capitalised path: a constant (Rust
                // parses `f::<B>` as a type until it resolves the name).
                G::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                    if let Some(id) = p.path.get_ident() {
                        if Scalar::from_name(&id.to_string()).is_some()
                            || self.type_params.contains(id)
                        {
                            continue;
                        }
                    }
                    if is_const_name(&p.path) {
                        Some(self.const_path_arg(&p.path))
                    } else {
                        None
                    }
                }
                G::Const(e) => self.const_arg(e),
                _ => None,
            };
            match arg {
                Some(Some(arg)) => out.push(arg),
                Some(None) => ok = false,
                None => {
                    self.cx.error_spanned_by(
                        a,
                        "a device function's generic argument is a kernel scalar type (`f32`), a type parameter, or a const argument: an integer or bool literal, a constant (`TILE`, `B`), or arithmetic on literals and module-level constants (`{ 2 * TILE }`)",
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// A const argument written as an expression (`4`, `true`, `-1`, `{ 2 * TILE }`):
    /// `None` if it is not one (the caller reports it), `Some(None)` after an error.
    fn const_arg(&mut self, e: &syn::Expr) -> Option<Option<ConstArg>> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Some(Some(ConstArg::Int {
                digits: i.base10_digits().to_string(),
                negative: false,
            })),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) => Some(Some(ConstArg::Bool(b.value))),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => Some(Some(ConstArg::Int {
                    digits: i.base10_digits().to_string(),
                    negative: true,
                })),
                _ => None,
            },
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.const_arg(inner),
                _ => None,
            },
            syn::Expr::Paren(p) => self.const_arg(&p.expr),
            syn::Expr::Group(g) => self.const_arg(&g.expr),
            syn::Expr::Path(p) if p.qself.is_none() && is_const_name(&p.path) => {
                Some(self.const_path_arg(&p.path))
            }
            e if const_expr(e) => {
                if let Some(c) = self.mentioned_param(e) {
                    self.cx.error_spanned_by(
                        e,
                        format!("Rust allows a const parameter as a const argument only by itself (`{c}`, not an expression of it): compute the value inside the callee"),
                    );
                    return Some(None);
                }
                Some(Some(self.value_arg(e)))
            }
            _ => None,
        }
    }

    /// A constant named as a const argument: in a const-generic device function its own
    /// const parameter is its template's; anything else Rust evaluates.
    fn const_path_arg(&mut self, path: &syn::Path) -> Option<ConstArg> {
        if let Some(id) = path.get_ident() {
            if self.device && self.const_params.iter().any(|(c, _)| c == id) {
                return Some(ConstArg::Param(id.clone()));
            }
        }
        let e = syn::Expr::Path(syn::ExprPath {
            attrs: Vec::new(),
            qself: None,
            path: path.clone(),
        });
        Some(self.value_arg(&e))
    }

    /// The entry of `e` in [`Function::generic_args`](crate::ir::ast::Function), one per
    /// expression.
    fn value_arg(&mut self, e: &syn::Expr) -> ConstArg {
        let text = super::expr_text(e);
        let i = match self
            .generic_args
            .iter()
            .position(|c| super::expr_text(c) == text)
        {
            Some(i) => i,
            None => {
                self.generic_args.push(e.clone());
                self.generic_args.len() - 1
            }
        };
        ConstArg::Value(i)
    }

    /// A const parameter of the function that the constant expression `e` names.
    fn mentioned_param(&self, e: &syn::Expr) -> Option<String> {
        struct Find<'a>(&'a [(proc_macro2::Ident, Scalar)], Option<String>);
        impl syn::visit::Visit<'_> for Find<'_> {
            fn visit_path(&mut self, p: &syn::Path) {
                if let Some(id) = p.get_ident() {
                    if self.0.iter().any(|(c, _)| c == id) {
                        self.1 = Some(id.to_string());
                    }
                }
            }
        }
        let mut f = Find(&self.const_params, None);
        syn::visit::Visit::visit_expr(&mut f, e);
        f.1
    }
}
