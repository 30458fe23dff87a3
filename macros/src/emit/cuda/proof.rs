//! Which indexes need no bounds check on the GPU: those proven below the length the slice
//! is known to have (a `#[len(..)]` declaration, which the launch or the device function's
//! entry checks, or a shared or local array's constant size).
//!
//! The proof is over polynomials in the function's immutable unsigned variables
//! ("atoms", all non-negative). Facts come from dominating code: `if x >= n { return; }`
//! gives `x <= n - 1` for the rest of the block, `if x < n { .. }` inside the branch,
//! `for i in a..b` gives `i <= b - 1` in the body, and `let xm = e % n` gives
//! `xm <= n - 1` where `n >= 1` is known. An index built from such variables and literals
//! with 64-bit `+` and `*` has an upper bound found by putting each variable's bound in; the
//! check goes when `len - 1 - bound` has no negative coefficient (so it holds for every
//! value of the atoms). Soundness: + and * of non-negative values are monotone, and 64-bit
//! wrapping arithmetic agrees with the integers whenever the true value is below the
//! length (a u64), so the machine's index is the bounded one.
//!
//! Anything else (subtraction, signed values, narrower arithmetic, mutable variables)
//! keeps its check: the prover only removes checks, it never adds a reason to trust one.

use crate::ir::ty::{Scalar, Ty};
use crate::ir::typeck::Types;
use crate::parse::ast::*;
use std::collections::BTreeMap;

/// At most this many bounds are followed per sub-expression (several facts per variable
/// multiply): enough for real kernels, and it keeps the work linear.
const MAX_BOUNDS: usize = 4;
/// Polynomials with more terms than this are given up on.
const MAX_TERMS: usize = 32;

/// A polynomial with integer coefficients in atoms (immutable variables): each monomial is
/// its sorted atoms, with repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poly(BTreeMap<Vec<VarId>, i128>);

impl Poly {
    pub fn constant(c: i128) -> Poly {
        let mut m = BTreeMap::new();
        if c != 0 {
            m.insert(Vec::new(), c);
        }
        Poly(m)
    }

    pub fn atom(v: VarId) -> Poly {
        Poly(BTreeMap::from([(vec![v], 1)]))
    }

    pub fn add(&self, o: &Poly) -> Option<Poly> {
        let mut m = self.0.clone();
        for (k, c) in &o.0 {
            let e = m.entry(k.clone()).or_insert(0);
            *e = e.checked_add(*c)?;
            if *e == 0 {
                m.remove(k);
            }
        }
        (m.len() <= MAX_TERMS).then_some(Poly(m))
    }

    pub fn sub(&self, o: &Poly) -> Option<Poly> {
        let neg = Poly(o.0.iter().map(|(k, c)| (k.clone(), -c)).collect());
        self.add(&neg)
    }

    pub fn mul(&self, o: &Poly) -> Option<Poly> {
        let mut out = Poly::constant(0);
        for (ka, ca) in &self.0 {
            for (kb, cb) in &o.0 {
                let mut k = ka.clone();
                k.extend(kb);
                k.sort_unstable();
                let term = Poly(BTreeMap::from([(k, ca.checked_mul(*cb)?)]));
                out = out.add(&term)?;
            }
        }
        Some(out)
    }

    /// Non-negative for every non-negative value of the atoms (no negative coefficient).
    pub fn never_negative(&self) -> bool {
        self.0.values().all(|&c| c >= 0)
    }
}

/// The facts known at a point of the function, innermost last; [`Facts::mark`] and
/// [`Facts::reset`] scope them.
#[derive(Default)]
pub struct Facts {
    /// `var <= bound`.
    upper: Vec<(VarId, Poly)>,
    /// Atoms known to be at least 1.
    positive: Vec<VarId>,
    /// Slice parameters' declared least lengths.
    len: Vec<(VarId, Poly)>,
}

/// A position in the facts, to return to at the end of a scope.
#[derive(Clone, Copy)]
pub struct Mark(usize, usize);

impl Facts {
    pub fn mark(&self) -> Mark {
        Mark(self.upper.len(), self.positive.len())
    }

    pub fn reset(&mut self, m: Mark) {
        self.upper.truncate(m.0);
        self.positive.truncate(m.1);
    }

    /// `#[len(..)]` of slice parameter `var`.
    pub fn declare_len(&mut self, var: VarId, e: &LenExpr) {
        if let Some(p) = len_poly(e) {
            self.len.push((var, p));
        }
    }

    pub fn declared_len(&self, var: VarId) -> Option<&Poly> {
        self.len.iter().find(|(v, _)| *v == var).map(|(_, p)| p)
    }
}

/// The atom standing for `s.len()` of slice variable `v` (past every variable id).
pub fn len_atom(v: VarId) -> VarId {
    (1 << 40) + v
}

fn len_poly(e: &LenExpr) -> Option<Poly> {
    match e {
        LenExpr::Lit(v) => Some(Poly::constant(*v as i128)),
        LenExpr::Param(v, _) => Some(Poly::atom(*v)),
        LenExpr::Add(a, b) => len_poly(a)?.add(&len_poly(b)?),
        LenExpr::Mul(a, b) => len_poly(a)?.mul(&len_poly(b)?),
    }
}

/// The prover over one function's types and facts.
pub struct Prover<'a> {
    pub types: &'a Types,
    pub facts: &'a mut Facts,
}

impl Prover<'_> {
    fn unsigned(&self, t: &Ty) -> Option<Scalar> {
        t.scalar().filter(|s| s.is_int() && !s.is_signed_int())
    }

    fn var_of(&self, e: &Expr) -> Option<VarId> {
        match &e.kind {
            ExprKind::Var(_, slot) => slot.get(),
            _ => None,
        }
    }

    /// The exact value of `e` as a polynomial: a literal or an atom.
    fn exact(&self, e: &Expr) -> Option<Poly> {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v, _)) => Some(Poly::constant(i128::try_from(*v).ok()?)),
            _ => self.atom_of(e).map(Poly::atom),
        }
    }

    /// An atom: an immutable unsigned variable, or `s.len()` of a slice (which never
    /// changes).
    fn atom_of(&self, e: &Expr) -> Option<VarId> {
        if let ExprKind::Method(recv, name, args) = &e.kind {
            let v = self.var_of(recv)?;
            let slice = matches!(self.types.vars.get(v)?.ty, Ty::Slice(..) | Ty::Atomics(_));
            return (name == "len" && args.is_empty() && slice).then_some(len_atom(v));
        }
        let v = self.var_of(e)?;
        let info = self.types.vars.get(v)?;
        (!info.mutable && self.unsigned(&info.ty).is_some()).then_some(v)
    }

    fn is_positive(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v, _)) => *v >= 1,
            _ => self
                .atom_of(e)
                .is_some_and(|a| self.facts.positive.contains(&a)),
        }
    }

    /// Upper bounds of the value of `e` (unsigned), each valid on its own.
    pub fn upper(&self, e: &Expr) -> Vec<Poly> {
        let Some(s) = self.unsigned(&self.types.expr[e.id]) else {
            return Vec::new();
        };
        let wide = s.bits() == 64;
        let mut out = match &e.kind {
            ExprKind::Lit(_) => self.exact(e).into_iter().collect(),
            ExprKind::Var(..) | ExprKind::Method(..) => match self.atom_of(e) {
                Some(a) => {
                    let mut v: Vec<Poly> = self
                        .facts
                        .upper
                        .iter()
                        .rev()
                        .filter(|(w, _)| *w == a)
                        .map(|(_, p)| p.clone())
                        .collect();
                    v.push(Poly::atom(a));
                    v
                }
                None => Vec::new(),
            },
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Mul), a, b) if wide => {
                let (ua, ub) = (self.upper(a), self.upper(b));
                let mut v = Vec::new();
                for pa in &ua {
                    for pb in &ub {
                        let p = if *op == BinOp::Add {
                            pa.add(pb)
                        } else {
                            pa.mul(pb)
                        };
                        v.extend(p);
                    }
                }
                v
            }
            // `a % m < m` for any `a` once `m >= 1` (whatever the width).
            ExprKind::Binary(BinOp::Rem, _, m) if self.is_positive(m) => self
                .exact(m)
                .and_then(|m| m.sub(&Poly::constant(1)))
                .into_iter()
                .collect(),
            // `a & k <= k`.
            ExprKind::Binary(BinOp::BitAnd, a, b) => {
                let mut v: Vec<Poly> = Vec::new();
                for k in [a, b] {
                    if let ExprKind::Lit(Lit::Int(..)) = k.kind {
                        v.extend(self.exact(k));
                    }
                }
                v
            }
            // Widening between unsigned types keeps the value.
            ExprKind::Cast(inner, to) => match self.unsigned(&self.types.expr[inner.id]) {
                Some(from) if to.bits() >= from.bits() => self.upper(inner),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        out.truncate(MAX_BOUNDS);
        out
    }

    /// Whether `idx < len` is proven for every value the facts allow.
    pub fn below(&self, idx: &Expr, len: &Poly) -> bool {
        let Some(max) = len.sub(&Poly::constant(1)) else {
            return false;
        };
        self.upper(idx)
            .iter()
            .any(|b| max.sub(b).is_some_and(|d| d.never_negative()))
    }

    /// Records what holds where `cond` is `holds` (true in a then-branch, false after
    /// `if cond { return; }`).
    pub fn assume(&mut self, cond: &Expr, holds: bool) {
        match (&cond.kind, holds) {
            (ExprKind::Unary(UnOp::Not, c), _) => self.assume(c, !holds),
            (ExprKind::Binary(BinOp::And, a, b), true)
            | (ExprKind::Binary(BinOp::Or, a, b), false) => {
                self.assume(a, holds);
                self.assume(b, holds);
            }
            // `n != 0`: `n >= 1`.
            (ExprKind::Binary(BinOp::Ne, a, b), true)
            | (ExprKind::Binary(BinOp::Eq, a, b), false) => {
                for (x, zero) in [(a, b), (b, a)] {
                    if let (Some(v), ExprKind::Lit(Lit::Int(0, _))) = (self.atom_of(x), &zero.kind)
                    {
                        self.facts.positive.push(v);
                    }
                }
            }
            (ExprKind::Binary(op, a, b), _) if op.is_comparison() => {
                // Normalise to `small < big` or `small <= big`.
                let (strict, small, big) = match (op, holds) {
                    (BinOp::Lt, true) | (BinOp::Ge, false) => (true, a, b),
                    (BinOp::Gt, true) | (BinOp::Le, false) => (true, b, a),
                    (BinOp::Le, true) | (BinOp::Gt, false) => (false, a, b),
                    (BinOp::Ge, true) | (BinOp::Lt, false) => (false, b, a),
                    _ => return,
                };
                self.bound(small, big, strict);
            }
            _ => {}
        }
    }

    /// `small < big` (strict) or `small <= big`.
    fn bound(&mut self, small: &Expr, big: &Expr, strict: bool) {
        // `small < big` with `small >= 0` (both unsigned), or `1 <= big`: `big >= 1`.
        if let Some(a) = self.atom_of(big) {
            if strict || self.is_positive(small) {
                self.facts.positive.push(a);
            }
        }
        let (Some(v), Some(b)) = (self.atom_of(small), self.exact(big)) else {
            return;
        };
        let bound = if strict {
            match b.sub(&Poly::constant(1)) {
                Some(p) => p,
                None => return,
            }
        } else {
            b
        };
        self.facts.upper.push((v, bound));
    }

    /// `let v = init` with `v` immutable: `v` is bounded as `init` is.
    pub fn define(&mut self, v: VarId, init: &Expr) {
        let info = &self.types.vars[v];
        if info.mutable || self.unsigned(&info.ty).is_none() {
            return;
        }
        for p in self.upper(init) {
            if p != Poly::atom(v) {
                self.facts.upper.push((v, p));
            }
        }
    }

    /// The body of `for v in start..end` (or `..=end`).
    pub fn loop_var(&mut self, v: VarId, end: &Expr, inclusive: bool) {
        let info = &self.types.vars[v];
        if info.mutable || self.unsigned(&info.ty).is_none() {
            return;
        }
        let Some(b) = self.exact(end) else {
            return;
        };
        let bound = if inclusive {
            Some(b)
        } else {
            if let Some(a) = self.atom_of(end) {
                self.facts.positive.push(a);
            }
            b.sub(&Poly::constant(1))
        };
        if let Some(bound) = bound {
            self.facts.upper.push((v, bound));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_index_is_below_the_square() {
        // ym <= n - 1, xm <= n - 1: ym * n + xm <= n^2 - 1.
        let (n, ym, xm) = (Poly::atom(0), Poly::atom(1), Poly::atom(2));
        let one = Poly::constant(1);
        let idx = ym.mul(&n).unwrap().add(&xm).unwrap();
        assert_eq!(idx.0.len(), 2);
        let bound = n
            .sub(&one)
            .unwrap()
            .mul(&n)
            .unwrap()
            .add(&n.sub(&one).unwrap())
            .unwrap();
        let len = n.mul(&n).unwrap();
        assert!(len.sub(&one).unwrap().sub(&bound).unwrap().never_negative());
        // One more row is not.
        let too_far = bound.add(&n).unwrap();
        assert!(!len
            .sub(&one)
            .unwrap()
            .sub(&too_far)
            .unwrap()
            .never_negative());
    }
}
