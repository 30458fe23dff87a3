//! `match` in the type checker: the scrutinee's type from the patterns, the arms' values
//! met as branches, and (once the scrutinee's type is final) the patterns' own checks and
//! exhaustiveness (analysis/exhaustive.rs).

use super::*;
use syn::spanned::Spanned;

/// A `match` whose patterns are checked against its scrutinee's type at the end.
pub(super) struct PendingMatch {
    scrutinee: Ty,
    at: ErrSpan,
    /// Each arm's patterns, and whether the arm has a guard (so covers nothing for sure).
    arms: Vec<(Vec<MatchPat>, bool)>,
}

impl Typeck<'_> {
    /// `match`: the patterns give the scrutinee's type where it has none yet (`1u8`); the
    /// arms' values meet as `if`/`else` branches do. Patterns and exhaustiveness are checked
    /// in [`Typeck::finish`], when the scrutinee's type is final.
    pub(super) fn match_expr(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        expected: Option<&Ty>,
    ) -> Ty {
        let st = self.infer(scrutinee, None);
        for p in arms.iter().flat_map(|a| &a.pats) {
            let (want, at) = match p {
                MatchPat::Any => continue,
                MatchPat::Const(path) => {
                    // The constant has the scrutinee's type (rustc checks the pattern).
                    let t = self.const_ty(path);
                    (t, path.span())
                }
                MatchPat::Bool(_, span) => (Ty::BOOL, *span),
                MatchPat::Int(i) => (self.pat_int_ty(i), i.span),
                MatchPat::Range { lo, hi, span, .. } => {
                    let t = lo.iter().chain(hi).fold(None, |t: Option<Ty>, i| {
                        let it = self.pat_int_ty(i);
                        if let Some(t) = &t {
                            let _ = self.unify(t, &it);
                        }
                        t.or(Some(it))
                    });
                    (t.unwrap_or(Ty::Never), span.0)
                }
            };
            if self.unify(&st, &want).is_err() {
                let msg = format!(
                    "mismatched types: this pattern is `{}`, the value matched is `{}`",
                    self.show(&want),
                    self.show(&st)
                );
                self.cx.error_at(at, msg);
            }
        }
        let mut result: Option<Ty> = None;
        for arm in arms {
            self.scopes.push(Vec::new());
            if let Some(b) = &arm.binding {
                self.bind(&b.name, b.var, st.clone(), b.mutable);
            }
            if let Some(g) = &arm.guard {
                let gt = self.infer(g, Some(&Ty::BOOL));
                self.expect(&gt, &Ty::BOOL, g.range());
            }
            let hint = expected.cloned().or_else(|| result.clone());
            let t = self.infer(&arm.body, hint.as_ref());
            self.scopes.pop();
            match &result {
                _ if self.shallow(&t) == Ty::Never => {}
                None => result = Some(t),
                Some(r) => {
                    if self.unify(&t, r).is_err() {
                        let msg = format!(
                            "`match` arms have incompatible types: expected `{}`, found `{}`",
                            self.show(r),
                            self.show(&t)
                        );
                        self.cx.error_at(arm.body.range(), msg);
                    }
                }
            }
        }
        self.matches.push(PendingMatch {
            scrutinee: st,
            at: scrutinee.range().into(),
            arms: arms
                .iter()
                .map(|a| (a.pats.clone(), a.guard.is_some()))
                .collect(),
        });
        result.unwrap_or(Ty::Never)
    }

    /// The type of an integer in a pattern: its suffix's, or an integer still to infer.
    pub(super) fn pat_int_ty(&mut self, i: &PatInt) -> Ty {
        if let Some(path) = &i.konst {
            return self.const_ty(path);
        }
        match i.ty {
            Some(s) => Ty::Scalar(s),
            None => self.fresh(Kind::Int, None),
        }
    }

    /// A `match`'s patterns against its scrutinee's final type, and its exhaustiveness.
    pub(super) fn check_match(&self, m: &PendingMatch) {
        use crate::analysis::exhaustive;
        let s = match self.resolve(&m.scrutinee) {
            Ty::Scalar(s) if s.is_int() || s == Scalar::Bool => s,
            Ty::Never => return,
            other => {
                self.cx.error_at(
                    m.at,
                    format!(
                        "a kernel's `match` is on integers and bools, not `{}`: compare with `if`",
                        self.show(&other)
                    ),
                );
                return;
            }
        };
        let mut bad = false;
        for (pats, _) in &m.arms {
            for exhaustive::PatError(span, msg) in exhaustive::check_pats(s, pats) {
                self.cx.error_at(span, msg);
                bad = true;
            }
        }
        if bad {
            return;
        }
        let covered: Vec<&MatchPat> = m
            .arms
            .iter()
            .filter(|(_, guarded)| !guarded)
            .flat_map(|(pats, _)| pats)
            .collect();
        let missing = exhaustive::missing(s, &covered);
        if !missing.is_empty() {
            let mut msg = exhaustive::message(&missing);
            if covered.iter().any(|p| matches!(p, MatchPat::Const(_))) {
                msg.push_str(" (the macro cannot see a constant's value, so a constant pattern covers nothing here)");
            }
            self.cx.error_at(m.at, msg);
        }
    }
}
