//! Checks proven at launch (docs/bounds.md, "Proven at launch"). When the prover cannot
//! show `idx < len` for every value, it may still show it for the values a launch has:
//! `u[i * nx + j]` under `i < ny && j < nx` is in bounds once `u.len() >= nx * ny`, and
//! `tile[ty + 2]` of an 18-row tile once `block_dim().y <= 16`. [`Prover::launch_conditions`]
//! finds such conditions: polynomials in the values the launch knows (unsigned scalar
//! arguments, slice arguments' lengths, `block_dim()`, `grid_dim()`, module constants),
//! any one of which, at least zero, proves the index. The launch evaluates them exactly
//! and compiles the kernel without the checks they prove (runtime/src/launch/proven.rs).
//!
//! A condition is one of the index's upper bounds `b` as `len - 1 - b`, with every atom
//! the launch does not know replaced by one of its bounds in the direction that makes the
//! polynomial no larger (a negative term's atom by an upper bound, a positive term's by a
//! lower bound, 0 at worst): at the launch's values it is then at most `len - 1 - idx`.

use super::*;

/// How many atoms the launch does not know may be replaced in one condition.
const MAX_REPLACED: usize = 4;
/// At most this many conditions are kept per check.
const MAX_CONDITIONS: usize = 4;

/// An atom whose value a launch may know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaunchValue {
    /// A variable: the launch knows it when it is an unsigned, immutable scalar parameter.
    Var(VarId),
    /// `s.len()` of variable `s`: known when `s` is a slice parameter.
    Len(VarId),
    /// `block_dim()` on an axis.
    BlockDim(usize),
    /// `grid_dim()` on an axis.
    GridDim(usize),
    /// A module-level constant, by its index in the function's table.
    Const(usize),
}

/// What atom `a` stands for, when a launch may know its value.
pub fn launch_value(a: VarId) -> Option<LaunchValue> {
    if let Some(c) = a.checked_sub(CONST_ATOMS) {
        return Some(LaunchValue::Const(c));
    }
    if let Some((d, axis)) = dim_of_atom(a) {
        return match d {
            Dim::BlockSize => Some(LaunchValue::BlockDim(axis)),
            Dim::GridSize => Some(LaunchValue::GridDim(axis)),
            Dim::Thread | Dim::Block => None,
        };
    }
    match a.checked_sub(len_atom(0)) {
        Some(v) => Some(LaunchValue::Len(v)),
        None => Some(LaunchValue::Var(a)),
    }
}

impl Prover<'_> {
    /// Conditions on values the launch knows (`known` says which atoms), each a polynomial
    /// that proves `idx < len` for one of `lens` when it is at least zero; empty when none
    /// was found.
    pub fn launch_conditions(
        &self,
        idx: &Expr,
        lens: &[Poly],
        known: &dyn Fn(VarId) -> bool,
    ) -> Vec<Poly> {
        let mut out: Vec<Poly> = Vec::new();
        for len in lens {
            let Some(max) = len.sub(&Poly::constant(1)) else {
                continue;
            };
            for b in self.upper(idx) {
                let Some(d) = max.sub(&b) else { continue };
                for r in self.launch_residuals(&d, known, MAX_REPLACED) {
                    if !out.contains(&r) {
                        out.push(r);
                    }
                    if out.len() == MAX_CONDITIONS {
                        return out;
                    }
                }
            }
        }
        out
    }

    /// Polynomials in known atoms, each at most `p` for every value the facts allow,
    /// replacing at most `depth` unknown atoms by their bounds; a negative constant (no
    /// launch satisfies it) is dropped.
    fn launch_residuals(&self, p: &Poly, known: &dyn Fn(VarId) -> bool, depth: usize) -> Vec<Poly> {
        if let Some(c) = p.constant_value() {
            return if c >= 0 { vec![p.clone()] } else { Vec::new() };
        }
        let unknown =
            p.0.iter()
                .find_map(|(mono, &c)| Some((mono, c, *mono.iter().find(|a| !known(**a))?)));
        let Some((mono, c, a)) = unknown else {
            return vec![p.clone()];
        };
        if depth == 0 {
            return Vec::new();
        }
        let term = Poly(BTreeMap::from([(mono.clone(), c)]));
        let mut rest = mono.clone();
        if let Some(i) = rest.iter().position(|x| *x == a) {
            rest.remove(i);
        }
        let rest = Poly(BTreeMap::from([(rest, c)]));
        // `c * a * r` with `r >= 0`: at least `c * l * r` for a lower bound `l` of `a` when
        // `c > 0` (0 is one), at least `c * u * r` for an upper bound `u` when `c < 0`.
        let bounds: Vec<Poly> = if c > 0 {
            self.facts_on(&Poly::atom(a), false)
                .chain([Poly::constant(0)])
                .collect()
        } else {
            self.facts_on(&Poly::atom(a), true)
                .chain(self.dim_upper(a))
                .chain(self.width_max(a))
                .collect()
        };
        let mut out = Vec::new();
        for u in bounds
            .into_iter()
            .filter(|u| *u != Poly::atom(a))
            .take(MAX_CHOICES_PER_ATOM)
        {
            let Some(q) = p.sub(&term).and_then(|q| q.add(&u.mul(&rest)?)) else {
                continue;
            };
            out.extend(self.launch_residuals(&q, known, depth - 1));
            if out.len() >= MAX_CONDITIONS {
                break;
            }
        }
        out
    }
}
