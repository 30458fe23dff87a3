//! `match` on integers and bools: arms with literal, range, `|` and `_` patterns, an
//! optional binding (`n`, `n @ 1..=9`) and an optional guard. Anything else in a pattern
//! (floats, tuples, named constants, ...) is a spanned error that says what to write.

use super::{last_span, Parser};
use crate::ir::ast::*;
use crate::ir::numeric_consts::{self, ConstValue};
use quote::ToTokens;
use syn::spanned::Spanned;

impl Parser<'_> {
    /// `match scrutinee { arms }`.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Option<ExprKind> {
        let scrutinee = self.boxed(&m.expr);
        let mut arms = Vec::new();
        let mut ok = true;
        for arm in &m.arms {
            match self.arm(arm) {
                Some(a) => arms.push(a),
                None => ok = false,
            }
        }
        let scrutinee = scrutinee?;
        ok.then_some(ExprKind::Match(scrutinee, arms))
    }

    fn arm(&mut self, arm: &syn::Arm) -> Option<Arm> {
        let (binding, pat) = match &arm.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && !is_capitalised(&pi.ident) => {
                let binding = Binding {
                    name: pi.ident.clone(),
                    mutable: pi.mutability.is_some(),
                    var: self.var(),
                };
                (Some(binding), pi.subpat.as_ref().map(|(_, p)| &**p))
            }
            p => (None, Some(p)),
        };
        let pats = match pat {
            None => vec![MatchPat::Any],
            Some(p) => self.alternatives(p)?,
        };
        let guard = match &arm.guard {
            Some((_, g)) => Some(self.expr_of(g)?),
            None => None,
        };
        let body = self.expr_of(&arm.body)?;
        Some(Arm {
            pats,
            binding,
            guard,
            body,
        })
    }

    /// `a | b | c` (also in parentheses).
    fn alternatives(&mut self, p: &syn::Pat) -> Option<Vec<MatchPat>> {
        match p {
            syn::Pat::Or(or) => {
                let alts: Vec<Option<Vec<MatchPat>>> =
                    or.cases.iter().map(|c| self.alternatives(c)).collect();
                let alts: Vec<Vec<MatchPat>> = alts.into_iter().collect::<Option<_>>()?;
                Some(alts.into_iter().flatten().collect())
            }
            syn::Pat::Paren(inner) => self.alternatives(&inner.pat),
            p => Some(vec![self.single_pat(p)?]),
        }
    }

    fn single_pat(&mut self, p: &syn::Pat) -> Option<MatchPat> {
        match p {
            syn::Pat::Wild(_) => Some(MatchPat::Any),
            syn::Pat::Lit(l) => match &l.lit {
                syn::Lit::Bool(b) => Some(MatchPat::Bool(b.value, b.span)),
                lit => Some(MatchPat::Int(self.pat_int_lit(lit)?)),
            },
            syn::Pat::Path(path) if path.qself.is_none() => self.pat_path(&path.path),
            // `OP_ADD =>`: rustc reads a capitalised name as the constant in scope (and
            // would bind it only where none is: then the simulator's read of the constant
            // fails to compile, so the two never differ silently).
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && is_capitalised(&pi.ident) =>
            {
                self.pat_path(&syn::Path::from(pi.ident.clone()))
            }
            syn::Pat::Range(r) => {
                let lo = match &r.start {
                    Some(e) => Some(self.pat_bound(e)?),
                    None => None,
                };
                let hi = match &r.end {
                    Some(e) => Some(self.pat_bound(e)?),
                    None => None,
                };
                Some(MatchPat::Range {
                    lo,
                    hi,
                    inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                    span: (r.span(), last_span(r)),
                })
            }
            syn::Pat::Ident(pi) => {
                // A binding below an alternative or `@`.
                self.cx.error_spanned_by(
                    pi,
                    "a binding in a kernel's `match` names the whole arm: `n => ..` or `n @ 1..=9 => ..`",
                );
                None
            }
            other => {
                self.cx.error_spanned_by(
                    other,
                    "this pattern is not supported in kernels: a `match` takes integer and bool literals, constants, ranges (`1..=9`, `10..`), `|` and `_`",
                );
                None
            }
        }
    }

    /// A range bound: a literal, a numeric constant or a module-level constant.
    fn pat_bound(&mut self, e: &syn::Expr) -> Option<PatInt> {
        match e {
            syn::Expr::Lit(l) => self.pat_int_lit(&l.lit),
            syn::Expr::Path(p)
                if p.qself.is_none()
                    && super::is_const_name(&p.path)
                    && numeric_consts::lookup(&segments(&p.path)).is_none() =>
            {
                Some(PatInt {
                    value: 0,
                    konst: Some(p.path.clone()),
                    ty: None,
                    span: p.span(),
                })
            }
            syn::Expr::Path(p) if p.qself.is_none() => self.pat_int_path(&p.path),
            other => {
                self.cx.error_spanned_by(
                    other,
                    "a range pattern's ends are integer literals or constants such as `i32::MIN`",
                );
                None
            }
        }
    }

    fn pat_int_lit(&mut self, lit: &syn::Lit) -> Option<PatInt> {
        match lit {
            syn::Lit::Int(i) => {
                let ty = match i.suffix() {
                    "" => None,
                    s => Some(super::scalar_suffix(self.cx, i, s)?),
                };
                match i.base10_parse::<i128>() {
                    Ok(value) => Some(PatInt {
                        value,
                        konst: None,
                        ty,
                        span: i.span(),
                    }),
                    Err(_) => {
                        self.cx.error_spanned_by(
                            i,
                            "integer literal too large: the widest kernel integers are 64-bit",
                        );
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                self.cx.error_spanned_by(
                    f,
                    "a kernel's `match` takes integers and bools, not floats: compare with `if` (`if x < 0.5 { .. } else { .. }`)",
                );
                None
            }
            other => {
                self.cx
                    .error_spanned_by(other, "a kernel's `match` takes integer and bool literals");
                None
            }
        }
    }

    /// A path pattern: a numeric constant (`i32::MIN`) or a module-level one.
    fn pat_path(&mut self, path: &syn::Path) -> Option<MatchPat> {
        if numeric_consts::lookup(&segments(path)).is_none() && super::is_const_name(path) {
            return Some(MatchPat::Const(path.clone()));
        }
        Some(MatchPat::Int(self.pat_int_path(path)?))
    }

    /// `i32::MIN`, `u8::MAX` in a pattern.
    fn pat_int_path(&mut self, path: &syn::Path) -> Option<PatInt> {
        if let Some(c) = numeric_consts::lookup(&segments(path)) {
            if let ConstValue::Int(value) = c.value {
                return Some(PatInt {
                    value,
                    konst: None,
                    ty: Some(c.ty),
                    span: path.span(),
                });
            }
        }
        let at: &dyn ToTokens = path;
        self.cx.error_spanned_by(
            at,
            "this path is no constant: a pattern takes integer and bool literals, numeric constants such as `i32::MIN` and module-level constants (capitalised names)",
        );
        None
    }
}

fn is_capitalised(name: &proc_macro2::Ident) -> bool {
    name.to_string()
        .starts_with(|c: char| c.is_ascii_uppercase())
}

fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}
