//! Bounds of a sum of products through the facts on its parts (and of a difference, where
//! it is proven non-negative): `(row0 + rr) * k + t + tx`
//! under `row0 + rr < m && t + tx < k` is at most `(m - 1) * k + (k - 1)`, although no
//! sub-expression of the sum, as written, is `t + tx`. The index's polynomial, with every
//! immutable `let` replaced by its definition, is split into facts' expressions times
//! monomials and a rest, all without negative coefficients; each fact's expression is
//! then replaced by its bound.
//!
//! Why it holds for the machine value: a `let`'s definition computes the same value modulo
//! 2^64, so the split polynomial is congruent to the index; every piece is non-negative,
//! and a fact bounds its expression's machine value, so the sum of the bounds times the
//! multipliers, plus the rest, is at least the true sum of the pieces, of which the
//! index's machine value is the remainder modulo 2^64.

use super::*;

/// How deep `let`s are replaced by their definitions.
const MAX_EXPAND_DEPTH: usize = 4;
/// At most this many facts (innermost first) are tried for one split.
const MAX_SPLIT_FACTS: usize = 32;

impl Prover<'_> {
    /// `p` with each immutable `let` atom replaced by its definition, `depth` deep.
    fn expand(&self, p: &Poly, depth: usize) -> Option<Poly> {
        let mut out = Poly::constant(0);
        for (mono, &c) in &p.0 {
            let mut term = Poly::constant(c);
            for &a in mono {
                let by = match self.facts.exact.get(&a).filter(|_| depth > 0) {
                    Some(def) => self.expand(def, depth - 1)?,
                    None => Poly::atom(a),
                };
                term = term.mul(&by)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// Upper bounds of the machine value whose polynomial is `k`: split by the facts
    /// ([`Self::split_bound`]); or, for a polynomial with negative terms (a subtraction),
    /// the polynomial itself, as written or with its `let`s replaced, where it is proven
    /// non-negative. The machine value is congruent to it modulo 2^64, so it is at most
    /// it: `i * nx + j - 1` after `j > 0`, though the sum `i * nx + j` may wrap.
    pub(super) fn split_bounds(&self, k: &Poly) -> Vec<Poly> {
        let expanded = self.expand(k, MAX_EXPAND_DEPTH);
        if k.never_negative() {
            return expanded
                .and_then(|p| self.split_bound(&p))
                .into_iter()
                .collect();
        }
        let mut out = Vec::new();
        for p in [Some(k.clone()), expanded].into_iter().flatten() {
            if !out.contains(&p) && p.constant_value().is_none() && self.proven_non_negative(&p) {
                out.push(p);
            }
        }
        out
    }

    /// An upper bound of the machine value whose polynomial (its `let`s replaced) is
    /// `expanded`, split by the facts; `None` when no fact's expression divides it.
    fn split_bound(&self, expanded: &Poly) -> Option<Poly> {
        let mut rest = expanded.clone();
        if !rest.never_negative() || rest.constant_value().is_some() {
            return None;
        }
        let mut bound = Poly::constant(0);
        let mut used = false;
        let facts = self.facts.upper.iter().rev().take(MAX_SPLIT_FACTS);
        for (key, b, stamp) in facts {
            if !self.current(stamp) {
                continue;
            }
            let Some(f) = self.expand(key, MAX_EXPAND_DEPTH) else {
                continue;
            };
            if !f.never_negative() || f.constant_value().is_some() {
                continue;
            }
            if let Some((q, r)) = divide(&rest, &f) {
                let Some(next) = b.mul(&q).and_then(|bq| bound.add(&bq)) else {
                    continue;
                };
                bound = next;
                rest = r;
                used = true;
            }
        }
        if used {
            bound.add(&rest)
        } else {
            None
        }
    }
}

/// `p = f * q + r`, `q` one monomial with a positive coefficient and `r` without negative
/// coefficients: `q` is a monomial of `p` over `f`'s first non-constant monomial.
fn divide(p: &Poly, f: &Poly) -> Option<(Poly, Poly)> {
    let (m0, c0) = f.0.iter().find(|(m, _)| !m.is_empty())?;
    for (m, &c) in &p.0 {
        if c % c0 != 0 || c / c0 <= 0 {
            continue;
        }
        let Some(q_atoms) = without(m, m0) else {
            continue;
        };
        let q = Poly(BTreeMap::from([(q_atoms, c / c0)]));
        let Some(r) = f.mul(&q).and_then(|fq| p.sub(&fq)) else {
            continue;
        };
        if r.never_negative() {
            return Some((q, r));
        }
    }
    None
}

/// The atoms of sorted monomial `m` less those of `d` (with repeats), if `d` divides it.
fn without(m: &[VarId], d: &[VarId]) -> Option<Vec<VarId>> {
    let mut out = m.to_vec();
    for a in d {
        let i = out.iter().position(|x| x == a)?;
        out.remove(i);
    }
    Some(out)
}
