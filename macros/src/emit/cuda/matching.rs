//! `match` on an integer or a bool as C: the scrutinee evaluated once into a temporary,
//! then the arms tested in order as an `if`/`else if` chain (the first arm whose pattern
//! matches and whose guard holds runs, as in Rust). A guard that needs C statements turns
//! the chain into a sequence of `if`s under a "matched" flag, so the guard's statements
//! run only where Rust evaluates it. The last unguarded arm is the chain's plain `else`:
//! the type checker proved the arms exhaustive, so nothing else can reach it.

use super::effect::effect;
use super::expr::int_c;
use super::stmt::Dest;
use super::FnWriter;
use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::ty::{Scalar, Ty};

impl FnWriter<'_> {
    pub(super) fn match_stmt(&mut self, scrutinee: &Expr, arms: &[Arm], dest: &Dest) {
        let s = self.scalar(scrutinee);
        let v = self.value(scrutinee);
        let v = self.hoist(&Ty::Scalar(s), &v);
        let tests: Vec<Option<String>> = arms
            .iter()
            .map(|a| arm_test(self.types, s, &v, a))
            .collect();
        if arms
            .iter()
            .any(|a| a.guard.as_ref().is_some_and(|g| effect(self.types, g) >= 2))
        {
            return self.match_flagged(&v, arms, &tests, dest);
        }
        let mut opened = 0;
        for (k, (arm, test)) in arms.iter().zip(&tests).enumerate() {
            self.bind_arm(arm, &v);
            let last = arm.guard.is_none()
                && (test.is_none() || !arms[k + 1..].iter().any(|a| a.guard.is_none()));
            let cond = match (test, &arm.guard) {
                (_, Some(g)) => {
                    let g = self.value(g);
                    Some(match test {
                        Some(t) => format!("{t} && ({g})"),
                        None => g,
                    })
                }
                (t, None) if !last => t.clone(),
                _ => None,
            };
            match (&cond, opened) {
                (Some(c), 0) => self.raw(&format!("if ({c}) {{")),
                (Some(c), _) => self.raw(&format!("}} else if ({c}) {{")),
                (None, 0) => self.raw("{"),
                (None, _) => self.raw("} else {"),
            }
            opened += 1;
            self.indent += 1;
            self.arm_body(arm, &v, dest);
            self.indent -= 1;
            if cond.is_none() {
                break; // the arms after it are unreachable (rustc warns of them)
            }
        }
        if opened > 0 {
            self.raw("}");
        }
    }

    /// The arms as separate `if`s under a flag, for guards that need statements.
    fn match_flagged(&mut self, v: &str, arms: &[Arm], tests: &[Option<String>], dest: &Dest) {
        let done = self.hoist(&Ty::BOOL, "false");
        for (arm, test) in arms.iter().zip(tests) {
            match test {
                Some(t) => self.raw(&format!("if (!{done} && {t}) {{")),
                None => self.raw(&format!("if (!{done}) {{")),
            }
            self.indent += 1;
            self.bind_arm(arm, v);
            let guard = arm.guard.as_ref().map(|g| self.value(g));
            if let Some(g) = &guard {
                self.raw(&format!("if ({g}) {{"));
                self.indent += 1;
            }
            self.raw(&format!("{done} = true;"));
            self.arm_body(arm, v, dest);
            if guard.is_some() {
                self.indent -= 1;
                self.raw("}");
            }
            self.indent -= 1;
            self.raw("}");
        }
    }

    /// The arm's binding names the scrutinee's temporary, which nothing assigns (a guard
    /// sees it there; a `mut` binding gets its own copy in the body).
    fn bind_arm(&mut self, arm: &Arm, v: &str) {
        if let Some(b) = &arm.binding {
            self.bind_var(b.var, v.to_string());
        }
    }

    fn arm_body(&mut self, arm: &Arm, v: &str, dest: &Dest) {
        let facts = self.facts.mark();
        if let Some(b) = arm.binding.as_ref().filter(|b| b.mutable) {
            let ty = self.types.vars[b.var].ty.clone();
            let name = self.namer.fresh(&b.name.to_string());
            self.raw(&format!("{} = {v};", super::c_decl(&ty, &name)));
            self.bind_var(b.var, name);
        }
        self.value_to(&arm.body, dest);
        self.facts.reset(facts);
    }
}

/// The C test of an arm's patterns on `v` (`None`: every value matches).
fn arm_test(types: &Types, s: Scalar, v: &str, arm: &Arm) -> Option<String> {
    let mut alts = Vec::new();
    for p in &arm.pats {
        alts.push(match p {
            MatchPat::Const(path) => {
                let c = types
                    .const_named(path)
                    .map(|c| c.c_name())
                    .unwrap_or_default();
                format!("({v} == {c})")
            }
            p => pat_test(types, s, v, p)?,
        });
    }
    Some(if alts.len() == 1 {
        alts.remove(0)
    } else {
        format!("({})", alts.join(" || "))
    })
}

fn pat_test(types: &Types, s: Scalar, v: &str, p: &MatchPat) -> Option<String> {
    let lit = |i: &PatInt| match &i.konst {
        Some(path) => types
            .const_named(path)
            .map(|c| c.c_name())
            .unwrap_or_default(),
        None => int_c(i.value.unsigned_abs(), s, i.value < 0),
    };
    let (min, max) = if s.is_signed_int() {
        (-(1i128 << (s.bits() - 1)), (1i128 << (s.bits() - 1)) - 1)
    } else {
        (0, (1i128 << s.bits()) - 1)
    };
    match p {
        MatchPat::Any | MatchPat::Const(_) => None,
        MatchPat::Bool(true, _) => Some(v.to_string()),
        MatchPat::Bool(false, _) => Some(format!("!{v}")),
        MatchPat::Int(i) => Some(format!("({v} == {})", lit(i))),
        MatchPat::Range {
            lo, hi, inclusive, ..
        } => {
            // Ends at the type's limits test nothing (and would draw NVRTC's "pointless
            // comparison" warning).
            let mut parts = Vec::new();
            if let Some(l) = lo.as_ref().filter(|l| l.konst.is_some() || l.value > min) {
                parts.push(format!("{v} >= {}", lit(l)));
            }
            match hi {
                Some(h) if *inclusive && (h.konst.is_some() || h.value < max) => {
                    parts.push(format!("{v} <= {}", lit(h)))
                }
                Some(h) if !*inclusive => parts.push(format!("{v} < {}", lit(h))),
                _ => {}
            }
            (!parts.is_empty()).then(|| format!("({})", parts.join(" && ")))
        }
    }
}
