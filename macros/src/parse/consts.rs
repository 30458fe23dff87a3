//! Module-level constants where the parser meets them: array lengths (`[0u32; N]`,
//! `SharedArray::<f32, { 2 * N }>`), registered once each in the function's table, and
//! what counts as a constant (a capitalised name or path) or a constant expression.

use super::Parser;
use quote::ToTokens;
use syn::spanned::Spanned;

impl Parser<'_> {
    /// The function's entry for the constant expression `e` (a constant's path, or
    /// arithmetic on constants): one per expression.
    pub(super) fn const_ref(&mut self, e: &syn::Expr) -> crate::ir::ty::ConstRef {
        let text = expr_text(e);
        let id = match self.consts.iter().position(|c| expr_text(c) == text) {
            Some(id) => id,
            None => {
                self.consts.push(e.clone());
                self.consts.len() - 1
            }
        };
        crate::ir::ty::ConstRef {
            id,
            path: text,
            span: e.span(),
        }
    }

    /// An array length: an integer literal, or a module-level constant (`N`,
    /// `config::N`, also as `{ N }`), whose value rustc checks is a `usize`.
    pub(super) fn array_len(&mut self, e: &syn::Expr, what: &str) -> Option<crate::ir::ty::Len> {
        use crate::ir::ty::Len;
        match e {
            syn::Expr::Path(p) if p.qself.is_none() && is_const_name(&p.path) => {
                Some(Len::Const(self.const_ref(e)))
            }
            // `{ 2 * N }`: the value is Rust's; literals alone the macro computes.
            syn::Expr::Binary(_) | syn::Expr::Cast(_) if const_expr(e) => match const_eval(e) {
                Some(0) => {
                    self.cx
                        .error_spanned_by(e, format!("{what} needs at least one element"));
                    None
                }
                Some(n) => Some(Len::Lit(n)),
                None if mentions_const(e) => Some(Len::Const(self.const_ref(e))),
                None => self.array_len_error(e, what),
            },
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.array_len(inner, what),
                _ => self.array_len_error(e, what),
            },
            syn::Expr::Paren(p) => self.array_len(&p.expr, what),
            syn::Expr::Group(g) => self.array_len(&g.expr, what),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => match i.base10_parse::<u64>() {
                Ok(0) => {
                    self.cx
                        .error_spanned_by(i, format!("{what} needs at least one element"));
                    None
                }
                Ok(n) => Some(Len::Lit(n)),
                Err(err) => {
                    self.cx.syn_error(err);
                    None
                }
            },
            other => self.array_len_error(other, what),
        }
    }

    fn array_len_error(&self, e: &syn::Expr, what: &str) -> Option<crate::ir::ty::Len> {
        self.cx.error_spanned_by(
            e,
            format!("the length of {what} must be an integer literal or a constant (`N`, a module-level `const N: usize`)"),
        );
        None
    }
}

/// `N` as written, without spaces: the key of a constant expression.
pub fn expr_text(e: &syn::Expr) -> String {
    e.to_token_stream().to_string().replace(' ', "")
}

/// An expression Rust evaluates at compile time from integer literals and constants:
/// `+ - * / % << >> & | ^`, parentheses and `as`.
pub fn const_expr(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => true,
        syn::Expr::Path(p) => p.qself.is_none() && is_const_name(&p.path),
        syn::Expr::Paren(p) => const_expr(&p.expr),
        syn::Expr::Group(g) => const_expr(&g.expr),
        syn::Expr::Cast(c) => const_expr(&c.expr),
        syn::Expr::Binary(b) => {
            use syn::BinOp as B;
            matches!(
                b.op,
                B::Add(_)
                    | B::Sub(_)
                    | B::Mul(_)
                    | B::Div(_)
                    | B::Rem(_)
                    | B::Shl(_)
                    | B::Shr(_)
                    | B::BitAnd(_)
                    | B::BitOr(_)
                    | B::BitXor(_)
            ) && const_expr(&b.left)
                && const_expr(&b.right)
        }
        _ => false,
    }
}

fn mentions_const(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) => true,
        syn::Expr::Paren(p) => mentions_const(&p.expr),
        syn::Expr::Group(g) => mentions_const(&g.expr),
        syn::Expr::Cast(c) => mentions_const(&c.expr),
        syn::Expr::Binary(b) => mentions_const(&b.left) || mentions_const(&b.right),
        _ => false,
    }
}

/// The value of a [`const_expr`] of literals only (`16 * 16`), as `usize` arithmetic
/// (`None` where it names a constant or overflows, which rustc then reports).
fn const_eval(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Paren(p) => const_eval(&p.expr),
        syn::Expr::Group(g) => const_eval(&g.expr),
        syn::Expr::Binary(b) => {
            use syn::BinOp as B;
            let (l, r) = (const_eval(&b.left)?, const_eval(&b.right)?);
            match b.op {
                B::Add(_) => l.checked_add(r),
                B::Sub(_) => l.checked_sub(r),
                B::Mul(_) => l.checked_mul(r),
                B::Div(_) => l.checked_div(r),
                B::Rem(_) => l.checked_rem(r),
                B::Shl(_) => l.checked_shl(u32::try_from(r).ok()?),
                B::Shr(_) => l.checked_shr(u32::try_from(r).ok()?),
                B::BitAnd(_) => Some(l & r),
                B::BitOr(_) => Some(l | r),
                B::BitXor(_) => Some(l ^ r),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A path whose last name is capitalised (`N`, `config::BLOCK`): Rust's spelling of a
/// constant.
pub fn is_const_name(path: &syn::Path) -> bool {
    path.segments.iter().all(|s| s.arguments.is_none())
        && path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        })
}
