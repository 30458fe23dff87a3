//! Which indexes need no bounds check on the GPU: those proven below the length the slice
//! is known to have (a `#[len(..)]` declaration, which the launch or the device function's
//! entry checks, or a shared or local array's constant size).
//!
//! The proof is over polynomials in "atoms": immutable unsigned variables, `s.len()`, and
//! the index intrinsics (`thread_idx().x`, `block_dim().y`, ...). Every bound is a bound of
//! the *machine* value of an expression (what the GPU computes, wrapping included):
//! - `a + b <= ua + ub` and `a * b <= ua * ub` for unsigned values of any width, wrapped
//!   or not (wrapping only makes a value smaller);
//! - `a - b <= ua - lb` once `a >= b` is proven (some lower bound of `a` is at least some
//!   upper bound of `b`), since the subtraction then does not wrap; otherwise no bound;
//! - `a % m <= m - 1` and `a / m <= a` once `m >= 1`, `a >> k <= a`, `a & k <= k`,
//!   `a.min(b) <= ua` and
//!   `<= ub`, a narrow type's own maximum (`x as u8 <= 255`), widening casts keep bounds;
//! - lower bounds of `a + b` and `a * b` add and multiply only where a constant upper
//!   bound shows that the value cannot wrap.
//!
//! Facts come from dominating code, about any expression (keyed by its polynomial, which
//! names its machine value: equal polynomials compute equal values modulo 2^64): `if x >= n
//! { return; }` gives `x <= n - 1` for the rest of the block, `if i + d >= k && i + d - k <
//! rows { .. }` gives both inside the branch, `for i in a..b` gives `a <= i <= b - 1` in
//! the body, `let v = e` gives `v` the bounds of `e`. The index intrinsics bring their own:
//! `thread_idx().x <= block_dim().x - 1`, the limits of every GPU (`block_dim().x <=
//! 1024`, ...), and a declared block shape (`#[gpu_kernel(block = (32, 32))]`, which the
//! launch checks) makes `block_dim().x == 32`.
//!
//! The check of `s[i]` goes when `len - 1 - bound` is non-negative for every value of the
//! atoms: no negative coefficient, or the constant term outweighs the negative terms at
//! their atoms' constant upper bounds (`31 - (n - 1)` once `n <= 32` is known).
//!
//! Anything else (signed values, values returned by device functions, a subtraction not
//! proven ordered, a mutable variable after an assignment) keeps its check: the prover
//! only removes checks, it never adds a reason to trust one.

use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::call::Call;
use crate::ir::intrinsics::Builtin;
use crate::ir::ty::{Scalar, Ty};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

mod launch;
mod split;
pub use launch::{launch_value, LaunchValue};

/// At most this many bounds are followed per sub-expression (several facts per variable
/// multiply): enough for real kernels (`y * n + x` with three facts on each of `y`, `n`
/// and `x` keeps the one that proves it), and it keeps the work linear.
const MAX_BOUNDS: usize = 16;
/// Polynomials with more terms than this are given up on.
const MAX_TERMS: usize = 32;
/// How deep constant upper bounds are looked for through other atoms' bounds.
const MAX_CONST_DEPTH: usize = 3;
/// At most this many bounds of one comparison become facts (facts are looked up
/// innermost first, so a comparison with many bounds would hide the older facts).
const MAX_FACTS_PER_BOUND: usize = 4;
/// An index of at most this many atoms is also tried with every choice of their bounds,
/// at most this many per atom, and at most this many choices in all.
const MAX_SUBSTITUTED_ATOMS: usize = 6;
const MAX_CHOICES_PER_ATOM: usize = 6;
const MAX_SUBSTITUTIONS_TRIED: usize = 4096;
/// How many negative terms in a row may be replaced by their atoms' upper bounds.
const MAX_SUBSTITUTIONS: usize = 2;

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

    /// The value, when the polynomial has no atoms.
    pub fn constant_value(&self) -> Option<i128> {
        self.0
            .keys()
            .all(|m| m.is_empty())
            .then(|| self.constant_term())
    }

    /// The coefficient of the monomial without atoms.
    pub fn constant_term(&self) -> i128 {
        self.0.get(&Vec::new()).copied().unwrap_or(0)
    }

    /// The terms: each monomial's atoms (sorted, with repeats) and its coefficient.
    pub fn terms(&self) -> impl Iterator<Item = (&[VarId], i128)> {
        self.0.iter().map(|(m, &c)| (m.as_slice(), c))
    }

    /// Non-negative for every non-negative value of the atoms (no negative coefficient).
    pub fn never_negative(&self) -> bool {
        self.0.values().all(|&c| c >= 0)
    }
}

/// The atoms standing for `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()`'s
/// `.x`, `.y`, `.z` (past every variable id and every `len_atom`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dim {
    /// `thread_idx()`
    Thread,
    /// `block_idx()`
    Block,
    /// `block_dim()`
    BlockSize,
    /// `grid_dim()`
    GridSize,
}

const DIM_ATOMS: VarId = 2 << 40;

fn dim_atom(d: Dim, axis: usize) -> VarId {
    DIM_ATOMS + d as usize * 3 + axis
}

/// The atoms standing for module-level constants (by their index in the function's
/// table): values only rustc knows, but the same value at every use, so `for k in 0..N`
/// proves `a[k]` of an array `[T; N]` in bounds.
const CONST_ATOMS: VarId = 3 << 40;

/// An array length as the prover sees it: a constant, or the constant's atom.
pub fn array_len(n: &crate::ir::ty::Len) -> Poly {
    match n {
        crate::ir::ty::Len::Lit(n) => Poly::constant(*n as i128),
        crate::ir::ty::Len::Const(c) => Poly::atom(CONST_ATOMS + c.id),
    }
}

fn dim_of_atom(a: VarId) -> Option<(Dim, usize)> {
    let k = a.checked_sub(DIM_ATOMS)?;
    let d = match k / 3 {
        0 => Dim::Thread,
        1 => Dim::Block,
        2 => Dim::BlockSize,
        3 => Dim::GridSize,
        _ => return None,
    };
    Some((d, k % 3))
}

/// The largest block extent on every GPU (x, y: 1024, z: 64) and grid extent (x: 2^31 - 1,
/// y, z: 65535).
const MAX_BLOCK_DIM: [i128; 3] = [1024, 1024, 64];
const MAX_GRID_DIM: [i128; 3] = [(1 << 31) - 1, 65535, 65535];

/// The facts known at a point of the function, innermost last; [`Facts::mark`] and
/// [`Facts::reset`] scope them.
#[derive(Default)]
pub struct Facts {
    /// `key <= bound`: the expression whose polynomial is `key` is at most `bound`, while
    /// the mutable variables in them keep the values they had (the stamp).
    upper: Vec<(Poly, Poly, Stamp)>,
    /// `key >= bound`.
    lower: Vec<(Poly, Poly, Stamp)>,
    /// How many times each mutable variable has been assigned so far (in the order the
    /// code is written, loops counted as assigning on entry what their bodies assign).
    generation: HashMap<VarId, u32>,
    /// Slice parameters' declared least lengths.
    len: Vec<(VarId, Poly)>,
    /// Each immutable `let` variable's definition as a polynomial (the same machine value
    /// modulo 2^64), for splitting sums by the facts (`split.rs`).
    exact: HashMap<VarId, Poly>,
    /// The kernel's declared block shape (`#[gpu_kernel(block = (32, 32))]`), an extent
    /// a constant or a constant's atom (`block = (B, 1, 1)`).
    pub block: Option<[Poly; 3]>,
}

/// The generations of the mutable variables a fact mentions: the fact holds while each
/// still has that generation.
type Stamp = Vec<(VarId, u32)>;

/// A position in the facts, to return to at the end of a scope.
#[derive(Clone, Copy)]
pub struct Mark(usize, usize);

impl Facts {
    pub fn mark(&self) -> Mark {
        Mark(self.upper.len(), self.lower.len())
    }

    pub fn reset(&mut self, m: Mark) {
        self.upper.truncate(m.0);
        self.lower.truncate(m.1);
    }

    /// Mutable variable `var` was assigned: what was known of its old value is gone.
    pub fn assigned(&mut self, var: VarId) {
        *self.generation.entry(var).or_insert(0) += 1;
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

/// The prover over one function's types and facts, for one question (its memo of bounds
/// per expression holds while the facts do not change).
pub struct Prover<'a> {
    types: &'a Types,
    facts: &'a mut Facts,
    /// Bounds found so far, by (expression, upper): a subtraction asks for both bounds of
    /// both sides, which without a memo is exponential in the nesting.
    memo: RefCell<HashMap<(usize, bool), Vec<Poly>>>,
    /// [`Self::const_upper`] by (atom, depth), until a fact is recorded: it is asked for
    /// the same atoms over and over while one index is proven, and each answer walks the
    /// facts several levels deep.
    const_memo: RefCell<HashMap<(VarId, usize), Option<i128>>>,
}

impl<'a> Prover<'a> {
    pub fn new(types: &'a Types, facts: &'a mut Facts) -> Self {
        Prover {
            types,
            facts,
            memo: RefCell::default(),
            const_memo: RefCell::default(),
        }
    }

    /// `compute`'s bounds of `e`, once per expression.
    fn memoized(&self, e: &Expr, upper: bool, compute: impl FnOnce() -> Vec<Poly>) -> Vec<Poly> {
        if let Some(v) = self.memo.borrow().get(&(e.id, upper)) {
            return v.clone();
        }
        // Symbolic bounds first, in the order found; of the constant ones only the best (the
        // least upper bound, the greatest lower one), last: a bound like `u32::MAX` rarely
        // proves anything and, kept in front, pushes the useful ones past the truncation.
        let mut v: Vec<Poly> = Vec::new();
        let mut best: Option<i128> = None;
        for p in compute() {
            match p.constant_value() {
                Some(c) => {
                    best = Some(match best {
                        Some(b) if upper => b.min(c),
                        Some(b) => b.max(c),
                        None => c,
                    })
                }
                None if !v.contains(&p) => v.push(p),
                None => {}
            }
        }
        v.truncate(MAX_BOUNDS - 1);
        v.extend(best.map(Poly::constant));
        self.memo.borrow_mut().insert((e.id, upper), v.clone());
        v
    }

    fn unsigned(&self, t: &Ty) -> Option<Scalar> {
        t.scalar().filter(|s| s.is_int() && !s.is_signed_int())
    }

    /// The unsigned type of `e`, if it has one.
    fn unsigned_of(&self, e: &Expr) -> Option<Scalar> {
        self.unsigned(&self.types.expr[e.id])
    }

    fn var_of(&self, e: &Expr) -> Option<VarId> {
        self.types.var(e)
    }

    /// The polynomial naming the machine value of `e`: literals, atoms, and 64-bit `+`,
    /// `-`, `*` of such (which the machine computes modulo 2^64, so equal polynomials are
    /// equal values). A fact about `e` is kept under this key.
    fn key(&self, e: &Expr) -> Option<Poly> {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v, _)) => Some(Poly::constant(i128::try_from(*v).ok()?)),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b)
                if self.unsigned_of(e)?.bits() == 64 =>
            {
                let (ka, kb) = (self.key(a)?, self.key(b)?);
                match op {
                    BinOp::Add => ka.add(&kb),
                    BinOp::Sub => ka.sub(&kb),
                    _ => ka.mul(&kb),
                }
            }
            _ => self.atom_of(e).map(Poly::atom),
        }
    }

    /// An atom: an immutable unsigned variable, `s.len()` of a slice (which never
    /// changes), or an index intrinsic's `.x`/`.y`/`.z`; widened as it is.
    fn atom_of(&self, e: &Expr) -> Option<VarId> {
        if let Some(&c) = self.types.const_uses.get(&e.id) {
            self.unsigned_of(e)?;
            return Some(CONST_ATOMS + c);
        }
        match &e.kind {
            // `thread_idx().x` and its kin.
            ExprKind::Field(base, Member::Named(axis)) => {
                let ExprKind::Intrinsic(i, _) = &base.kind else {
                    return None;
                };
                let d = match i.builtin()? {
                    Builtin::ThreadIdx => Dim::Thread,
                    Builtin::BlockIdx => Dim::Block,
                    Builtin::BlockDim => Dim::BlockSize,
                    Builtin::GridDim => Dim::GridSize,
                };
                let axis = ["x", "y", "z"].iter().position(|a| a == axis)?;
                Some(dim_atom(d, axis))
            }
            // Widening between unsigned types keeps the value.
            ExprKind::Cast(inner, to) => {
                let from = self.unsigned_of(inner)?;
                self.unsigned(&Ty::Scalar(*to))?;
                if to.bits() >= from.bits() {
                    self.atom_of(inner)
                } else {
                    None
                }
            }
            ExprKind::Method(recv, _, args) => {
                let v = self.var_of(recv)?;
                let slice = matches!(self.types.vars.get(v)?.ty, Ty::Slice(..) | Ty::Atomics(_));
                let len =
                    matches!(self.types.calls.get(&e.id), Some(Call::Method(m)) if m.name == "len");
                (len && args.is_empty() && slice).then_some(len_atom(v))
            }
            _ => {
                // A mutable variable too: its facts are stamped with its generation.
                let v = self.var_of(e)?;
                let info = self.types.vars.get(v)?;
                self.unsigned(&info.ty).is_some().then_some(v)
            }
        }
    }

    /// Whether `e >= 1` is proven.
    fn is_positive(&self, e: &Expr) -> bool {
        self.lower(e).iter().any(|l| {
            l.sub(&Poly::constant(1))
                .is_some_and(|d| self.proven_non_negative(&d))
        })
    }

    /// What bounds the index intrinsic atom `a` from above: its extent, the declared
    /// block shape, the limits of every GPU.
    fn dim_upper(&self, a: VarId) -> Vec<Poly> {
        let one = Poly::constant(1);
        let declared = |axis: usize| self.facts.block.as_ref().map(|b| b[axis].clone());
        let limit = |axis: usize| Poly::constant(MAX_BLOCK_DIM[axis]);
        match dim_of_atom(a) {
            Some((Dim::Thread, axis)) => {
                // A constant extent (`B`) keeps the GPU's limit as a constant bound too.
                let mut v: Vec<Poly> = declared(axis).into_iter().collect();
                if v.first().is_none_or(|p| p.constant_value().is_none()) {
                    v.push(limit(axis));
                }
                let mut v: Vec<Poly> = v.iter().filter_map(|p| p.sub(&one)).collect();
                v.extend(Poly::atom(dim_atom(Dim::BlockSize, axis)).sub(&one));
                v
            }
            Some((Dim::Block, axis)) => {
                let mut v = Vec::new();
                v.extend(Poly::atom(dim_atom(Dim::GridSize, axis)).sub(&one));
                v.push(Poly::constant(MAX_GRID_DIM[axis] - 1));
                v
            }
            Some((Dim::BlockSize, axis)) => {
                let mut v: Vec<Poly> = declared(axis).into_iter().collect();
                if v.first().is_none_or(|p| p.constant_value().is_none()) {
                    v.push(limit(axis));
                }
                v
            }
            Some((Dim::GridSize, axis)) => vec![Poly::constant(MAX_GRID_DIM[axis])],
            None => Vec::new(),
        }
    }

    /// The facts' bounds of the expression whose key is `k` (upper or lower), innermost
    /// first.
    fn facts_on(&self, k: &Poly, upper: bool) -> impl Iterator<Item = Poly> + '_ {
        let list = if upper {
            &self.facts.upper
        } else {
            &self.facts.lower
        };
        let k = k.clone();
        list.iter()
            .rev()
            .filter(move |(key, _, stamp)| *key == k && self.current(stamp))
            .map(|(_, p, _)| p.clone())
    }

    /// Whether every variable of `stamp` still has its generation.
    fn current(&self, stamp: &Stamp) -> bool {
        stamp
            .iter()
            .all(|(v, g)| self.facts.generation.get(v).copied().unwrap_or(0) == *g)
    }

    /// The stamp of a fact about `key` and `bound`: their mutable variables now.
    fn stamp(&self, key: &Poly, bound: &Poly) -> Stamp {
        let mut out: Stamp = Vec::new();
        for mono in key.0.keys().chain(bound.0.keys()) {
            for &a in mono {
                let mutable = self.types.vars.get(a).is_some_and(|v| v.mutable);
                if mutable && !out.iter().any(|(v, _)| *v == a) {
                    out.push((a, self.facts.generation.get(&a).copied().unwrap_or(0)));
                }
            }
        }
        out
    }

    /// Records `key <= bound` (`upper`) or `key >= bound`.
    fn record(&mut self, key: Poly, bound: Poly, upper: bool) {
        self.const_memo.get_mut().clear();
        let stamp = self.stamp(&key, &bound);
        let list = if upper {
            &mut self.facts.upper
        } else {
            &mut self.facts.lower
        };
        list.push((key, bound, stamp));
    }

    /// The least constant upper bound known for atom `a`, through other atoms' constant
    /// bounds up to `depth` deep.
    fn const_upper(&self, a: VarId, depth: usize) -> Option<i128> {
        if depth == 0 {
            return None;
        }
        if let Some(&c) = self.const_memo.borrow().get(&(a, depth)) {
            return c;
        }
        let c = self
            .facts_on(&Poly::atom(a), true)
            .chain(self.dim_upper(a))
            .chain(self.width_max(a))
            .filter_map(|p| self.const_upper_poly(&p, depth - 1))
            .min();
        self.const_memo.borrow_mut().insert((a, depth), c);
        c
    }

    /// A variable's type's own maximum, for types narrower than 64 bits.
    fn width_max(&self, a: VarId) -> Option<Poly> {
        let bits = match dim_of_atom(a) {
            Some(_) => 32,
            None => self.types.vars.get(a).and_then(|v| v.ty.scalar())?.bits(),
        };
        (bits < 64).then(|| Poly::constant((1i128 << bits) - 1))
    }

    /// A constant upper bound of `p`: its positive terms at their atoms' constant bounds
    /// (its negative terms are at most 0, so leaving them out keeps a bound).
    fn const_upper_poly(&self, p: &Poly, depth: usize) -> Option<i128> {
        let mut total: i128 = 0;
        for (mono, &c) in &p.0 {
            if c < 0 && !mono.is_empty() {
                continue;
            }
            let mut term = c;
            for &a in mono {
                term = term.checked_mul(self.const_upper(a, depth)?)?;
            }
            total = total.checked_add(term)?;
        }
        Some(total)
    }

    /// Whether `p >= 0` for every value the facts allow: no negative coefficient, or
    /// the constant term outweighs the negative terms at their atoms' constant bounds.
    fn proven_non_negative(&self, p: &Poly) -> bool {
        self.non_negative_within(p, MAX_SUBSTITUTIONS)
    }

    /// [`Self::proven_non_negative`], also replacing a negative term `-c * a * r` by
    /// `-c * u * r` for an upper bound `u` of one of its atoms `a` (which makes the
    /// polynomial no larger: the rest `r` of the monomial is a product of unsigned atoms,
    /// so at least 0), and a positive one by a lower bound, up to `depth` replacements
    /// deep: `n - block_dim().x` once `block_dim().x <= n` is known; `m * k - bm * k - 32 *
    /// k` once `bm + 32 <= m` is (a row block's last row, times the row length).
    fn non_negative_within(&self, p: &Poly, depth: usize) -> bool {
        if self.non_negative_by_constants(p) {
            return true;
        }
        // The atoms of negative terms that have constant upper bounds at those bounds
        // (`-row * n` is at least `-31 * n` once `row <= 31`), which costs no replacement.
        if let Some(q) = self.constant_atoms_at_bounds(p) {
            if q != *p && self.non_negative_within(&q, depth) {
                return true;
            }
        }
        if depth == 0 {
            return false;
        }
        for (mono, &c) in &p.0 {
            let term = Poly(BTreeMap::from([(mono.clone(), c)]));
            for (i, a) in mono.iter().enumerate() {
                if i > 0 && mono[i - 1] == *a {
                    continue; // a repeated atom: the first occurrence stands for it
                }
                let mut rest = mono.clone();
                rest.remove(i);
                let rest = Poly(BTreeMap::from([(rest, c)]));
                // A positive term `c * a * r` is at least `c * l * r` for a lower bound
                // `l` of `a` (`len - 1 >= 0` once `len >= 1`); a negative one at least
                // `c * u * r`.
                let bounds: Vec<Poly> = if c > 0 {
                    self.facts_on(&Poly::atom(*a), false).collect()
                } else {
                    self.facts_on(&Poly::atom(*a), true)
                        .chain(self.dim_upper(*a))
                        .collect()
                };
                for u in bounds {
                    let replaced = p.sub(&term).and_then(|q| q.add(&u.mul(&rest)?));
                    if replaced.is_some_and(|q| self.non_negative_within(&q, depth - 1)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// `p` with each atom of a negative term that has a constant upper bound replaced by
    /// it (the other atoms of the term are unsigned, so the term gets no larger): a
    /// polynomial at most `p`.
    fn constant_atoms_at_bounds(&self, p: &Poly) -> Option<Poly> {
        let mut out = Poly::constant(0);
        for (mono, &c) in &p.0 {
            let mut term = Poly::constant(c);
            for &a in mono {
                let by = match self.const_upper(a, MAX_CONST_DEPTH) {
                    Some(u) if c < 0 => Poly::constant(u),
                    _ => Poly::atom(a),
                };
                term = term.mul(&by)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// No negative coefficient, or the constant term outweighs the negative terms at
    /// their atoms' constant upper bounds.
    fn non_negative_by_constants(&self, p: &Poly) -> bool {
        if p.never_negative() {
            return true;
        }
        let mut least: i128 = 0;
        for (mono, &c) in &p.0 {
            if mono.is_empty() {
                least += c;
            } else if c < 0 {
                let mut m: i128 = 1;
                for &a in mono {
                    match self
                        .const_upper(a, MAX_CONST_DEPTH)
                        .and_then(|u| m.checked_mul(u))
                    {
                        Some(v) => m = v,
                        None => return false,
                    }
                }
                match m.checked_mul(c).and_then(|t| least.checked_add(t)) {
                    Some(v) => least = v,
                    None => return false,
                }
            }
        }
        least >= 0
    }

    /// Whether `a >= b` is proven (so `a - b` does not wrap).
    fn ordered(&self, a: &Expr, b: &Expr) -> bool {
        let ub = self.upper(b);
        self.lower(a).iter().any(|l| {
            ub.iter()
                .any(|u| l.sub(u).is_some_and(|d| self.proven_non_negative(&d)))
        })
    }

    /// Combines each bound of `a` with each of `b`.
    fn combine(ua: &[Poly], ub: &[Poly], f: impl Fn(&Poly, &Poly) -> Option<Poly>) -> Vec<Poly> {
        let mut v = Vec::new();
        for pa in ua {
            for pb in ub {
                v.extend(f(pa, pb));
            }
        }
        v
    }

    /// Upper bounds of the machine value of `e` (unsigned), each valid on its own.
    pub fn upper(&self, e: &Expr) -> Vec<Poly> {
        self.memoized(e, true, || self.upper_of(e))
    }

    fn upper_of(&self, e: &Expr) -> Vec<Poly> {
        let Some(s) = self.unsigned_of(e) else {
            return Vec::new();
        };
        let wide = s.bits() == 64;
        // What the facts say of this very expression comes first.
        let mut out: Vec<Poly> = match self.key(e) {
            Some(k) => self.facts_on(&k, true).collect(),
            None => Vec::new(),
        };
        if let Some(a) = self.atom_of(e) {
            out.extend(self.dim_upper(a));
        }
        // A sum of products split by the facts on its parts, a difference proven
        // non-negative (`split.rs`).
        if let ExprKind::Binary(BinOp::Add | BinOp::Mul | BinOp::Sub, ..) = e.kind {
            if let Some(k) = self.key(e) {
                out.extend(self.split_bounds(&k));
            }
        }
        match &e.kind {
            ExprKind::Lit(_) => out.extend(self.key(e)),
            // `a.min(b)` is below either's bound.
            ExprKind::Method(recv, _, args)
                if matches!(self.types.calls.get(&e.id), Some(Call::Method(m)) if m.name == "min")
                    && args.len() == 1 =>
            {
                out.extend(self.upper(recv));
                out.extend(self.upper(&args[0]));
            }
            // Of any unsigned width: a wrapped sum or product is smaller than the true one.
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Mul), a, b) => {
                let (ua, ub) = (self.upper(a), self.upper(b));
                out.extend(Self::combine(&ua, &ub, |pa, pb| {
                    if *op == BinOp::Add {
                        pa.add(pb)
                    } else {
                        pa.mul(pb)
                    }
                }));
            }
            // Of any width: once `a >= b`, the subtraction does not wrap.
            ExprKind::Binary(BinOp::Sub, a, b) if self.ordered(a, b) => {
                let (ua, lb) = (self.upper(a), self.lower(b));
                out.extend(Self::combine(&ua, &lb, Poly::sub));
            }
            // `a % m < m` for any `a` once `m >= 1` (whatever the width).
            ExprKind::Binary(BinOp::Rem, _, m) if self.is_positive(m) => {
                let one = Poly::constant(1);
                out.extend(self.upper(m).iter().filter_map(|p| p.sub(&one)));
            }
            // `a / m <= a` once `m >= 1`; by a literal, a constant bound divides too. Facts
            // that contradict each other (in a loop over an empty range, `0..0`) prove even
            // a literal 0 positive: no bound comes of dividing by it.
            ExprKind::Binary(BinOp::Div, a, m) if self.is_positive(m) => {
                let ua = self.upper(a);
                if let ExprKind::Lit(Lit::Int(k @ 1.., _)) = m.kind {
                    let k = i128::try_from(k).unwrap_or(i128::MAX);
                    out.extend(
                        ua.iter()
                            .filter_map(|p| self.const_upper_poly(p, MAX_CONST_DEPTH))
                            .min()
                            .map(|c| Poly::constant(c / k)),
                    );
                }
                out.extend(ua);
            }
            // `a >> k <= a`; a constant bound shifts too.
            ExprKind::Binary(BinOp::Shr, a, k) => {
                let ua = self.upper(a);
                if let ExprKind::Lit(Lit::Int(k, _)) = k.kind {
                    let k = u32::try_from(k).unwrap_or(u32::MAX).min(127);
                    out.extend(
                        ua.iter()
                            .filter_map(|p| self.const_upper_poly(p, MAX_CONST_DEPTH))
                            .min()
                            .map(|c| Poly::constant(c >> k)),
                    );
                }
                out.extend(ua);
            }
            // `swizzle_128b(i, size)` and kin move an element within its row of 128 (64,
            // 32) bytes: at most `i | m`, `m` the row's elements less one, so at most `U |
            // m` for a constant bound `U` of `i` (a tile whose length is whole rows keeps
            // its last index), and `P + m` for any bound `P`.
            ExprKind::Intrinsic(i, args) if i.rust_name().starts_with("swizzle_") => {
                let row_bytes: i128 = match i.rust_name() {
                    "swizzle_128b" => 128,
                    "swizzle_64b" => 64,
                    _ => 32,
                };
                if let (Some(idx), Some(ExprKind::Lit(Lit::Int(size, _)))) =
                    (args.first(), args.get(1).map(|a| &a.kind))
                {
                    let size = i128::try_from(*size).unwrap_or(i128::MAX).max(1);
                    let m = (row_bytes / size).max(1) - 1;
                    for p in self.upper(idx) {
                        match p.constant_value() {
                            Some(u) => out.push(Poly::constant(u | m)),
                            None => out.extend(p.add(&Poly::constant(m))),
                        }
                    }
                }
            }
            // `a & k <= k`.
            ExprKind::Binary(BinOp::BitAnd, a, b) => {
                for k in [a, b] {
                    if let ExprKind::Lit(Lit::Int(..)) = k.kind {
                        out.extend(self.key(k));
                    }
                }
            }
            // Widening between unsigned types keeps the value.
            ExprKind::Cast(inner, to) => {
                if let Some(from) = self.unsigned_of(inner) {
                    if to.bits() >= from.bits() {
                        out.extend(self.upper(inner));
                    }
                }
            }
            _ => {}
        }
        // The atom itself (so `i < s.len()` may prove `s[i]` with `i`'s own bound), then
        // the type's own maximum.
        out.extend(self.atom_of(e).map(Poly::atom));
        if !wide {
            out.push(Poly::constant((1i128 << s.bits()) - 1));
        }
        out
    }

    /// Lower bounds of the machine value of `e` (unsigned), each valid on its own; 0 is
    /// always one.
    pub fn lower(&self, e: &Expr) -> Vec<Poly> {
        self.memoized(e, false, || {
            let mut v = self.lower_of(e);
            v.push(Poly::constant(0));
            v
        })
    }

    fn lower_of(&self, e: &Expr) -> Vec<Poly> {
        let Some(s) = self.unsigned_of(e) else {
            return Vec::new();
        };
        let mut out: Vec<Poly> = match self.key(e) {
            Some(k) => self.facts_on(&k, false).collect(),
            None => Vec::new(),
        };
        if matches!(
            self.atom_of(e).and_then(dim_of_atom),
            Some((Dim::BlockSize | Dim::GridSize, _))
        ) {
            out.push(Poly::constant(1));
        }
        match &e.kind {
            ExprKind::Lit(_) => out.extend(self.key(e)),
            // Sums and products keep their operands' lower bounds only where the value
            // cannot wrap: some constant upper bound of it is below 2^64.
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Mul), a, b) => {
                let fits = self
                    .upper(e)
                    .iter()
                    .filter_map(|p| self.const_upper_poly(p, MAX_CONST_DEPTH))
                    .any(|c| c < 1i128 << s.bits());
                if fits {
                    let (la, lb) = (self.lower(a), self.lower(b));
                    out.extend(Self::combine(&la, &lb, |pa, pb| {
                        if *op == BinOp::Add {
                            pa.add(pb)
                        } else {
                            pa.mul(pb)
                        }
                    }));
                }
            }
            ExprKind::Binary(BinOp::Sub, a, b) if self.ordered(a, b) => {
                let (la, ub) = (self.lower(a), self.upper(b));
                out.extend(
                    Self::combine(&la, &ub, Poly::sub)
                        .into_iter()
                        .filter(|d| self.proven_non_negative(d)),
                );
            }
            ExprKind::Cast(inner, to) => {
                if let Some(from) = self.unsigned_of(inner) {
                    if to.bits() >= from.bits() {
                        out.extend(self.lower(inner));
                    }
                }
            }
            _ => {}
        }
        out.extend(self.atom_of(e).map(Poly::atom));
        out
    }

    /// Whether `idx < len` is proven for every value the facts allow.
    pub fn below(&self, idx: &Expr, len: &Poly) -> bool {
        let Some(max) = len.sub(&Poly::constant(1)) else {
            return false;
        };
        self.upper(idx)
            .iter()
            .any(|b| max.sub(b).is_some_and(|d| self.proven_non_negative(&d)))
            || self.below_by_atoms(idx, &max)
    }

    /// Whether `e <= limit` is proven (the end of a sub-slice against its base's length).
    pub fn at_most(&self, e: &Expr, limit: &Poly) -> bool {
        self.upper(e)
            .iter()
            .any(|b| limit.sub(b).is_some_and(|d| self.proven_non_negative(&d)))
            || self.below_by_atoms(e, limit)
    }

    /// Whether `lo <= hi` is proven for the machine values (a sub-slice's start and end,
    /// of a slice of one of the lengths `lens`): `hi` is `lo` plus a non-negative constant
    /// `c` (as polynomials) and the addition cannot wrap, because `lo` has an upper bound
    /// `u` with `u + c` below 2^64 as a constant, or at most one of `lens` (a length, which
    /// fits in 64 bits): `&x[i..i + 4]` after `i + 4 > n` returned. Otherwise some lower
    /// bound of `hi` must be at least some upper bound of `lo`.
    pub fn range_ordered(&self, lo: &Expr, hi: &Expr, lens: &[Poly]) -> bool {
        let by_offset = || -> Option<bool> {
            let c = self.key(hi)?.sub(&self.key(lo)?)?.constant_value()?;
            if c < 0 {
                return Some(false);
            }
            let fits = |u: &Poly| -> bool {
                if let Some(u) = u.constant_value() {
                    return u >= 0 && u + c < (1i128 << 64);
                }
                let Some(end) = u.add(&Poly::constant(c)) else {
                    return false;
                };
                lens.iter()
                    .any(|len| len.sub(&end).is_some_and(|d| self.proven_non_negative(&d)))
            };
            Some(self.upper(lo).iter().any(fits))
        };
        by_offset().unwrap_or(false) || self.ordered(hi, lo)
    }

    /// `idx <= max` for an index that is a sum of products of atoms (`k * cols + l`):
    /// each atom replaced by one of its upper bounds, every choice tried (the bounds of a
    /// sum built bottom-up keep only the first [`MAX_BOUNDS`], which may miss the one
    /// choice that proves it).
    fn below_by_atoms(&self, idx: &Expr, max: &Poly) -> bool {
        let Some(k) = self.key(idx) else {
            return false;
        };
        // Only without any negative coefficient: the machine's value (the polynomial
        // modulo 2^64) is then at most the integer one, and so at most the bound. `i - 1`
        // is `2^64 - 1` at `i == 0`.
        if !k.never_negative() {
            return false;
        }
        let mut atoms: Vec<VarId> = k.0.keys().flatten().copied().collect();
        atoms.sort_unstable();
        atoms.dedup();
        if atoms.is_empty() || atoms.len() > MAX_SUBSTITUTED_ATOMS {
            return false;
        }
        let choices: Vec<Vec<Poly>> = atoms
            .iter()
            .map(|&a| {
                let mut v: Vec<Poly> = self
                    .facts_on(&Poly::atom(a), true)
                    .chain(self.dim_upper(a))
                    .filter(|p| *p != Poly::atom(a))
                    .take(MAX_CHOICES_PER_ATOM)
                    .collect();
                v.push(Poly::atom(a));
                v
            })
            .collect();
        let mut pick = vec![0usize; atoms.len()];
        for _ in 0..MAX_SUBSTITUTIONS_TRIED {
            let bound = k.0.iter().try_fold(Poly::constant(0), |acc, (mono, &c)| {
                let mut term = Poly::constant(c);
                for a in mono {
                    let i = atoms.binary_search(a).ok()?;
                    term = term.mul(&choices[i][pick[i]])?;
                }
                acc.add(&term)
            });
            if bound
                .and_then(|b| max.sub(&b))
                .is_some_and(|d| self.proven_non_negative(&d))
            {
                return true;
            }
            // The next choice, as an odometer.
            let mut i = 0;
            loop {
                if i == pick.len() {
                    return false;
                }
                pick[i] += 1;
                if pick[i] < choices[i].len() {
                    break;
                }
                pick[i] = 0;
                i += 1;
            }
        }
        false
    }

    /// Records what holds where `cond` is `holds` (true in a then-branch, false after
    /// `if cond { return; }`). Conjuncts are taken in order, so `i >= k && i - k < n`
    /// proves the subtraction in the second from the first.
    pub fn assume(&mut self, cond: &Expr, holds: bool) {
        match (&cond.kind, holds) {
            (ExprKind::Unary(UnOp::Not, c), _) => self.assume(c, !holds),
            (ExprKind::Binary(BinOp::And, a, b), true)
            | (ExprKind::Binary(BinOp::Or, a, b), false) => {
                self.assume(a, holds);
                self.assume(b, holds);
            }
            // `n != 0` of an unsigned `n` (and `if n == 0 { return; }`): `0 < n`, as a
            // comparison gives it, so that `let n = x.len()` then proves `x[0]`.
            (ExprKind::Binary(BinOp::Ne, a, b), true)
            | (ExprKind::Binary(BinOp::Eq, a, b), false) => {
                for (x, zero) in [(a, b), (b, a)] {
                    if let ExprKind::Lit(Lit::Int(0, _)) = &zero.kind {
                        if self.key(x).is_some() && self.unsigned_of(x).is_some() {
                            self.bound(zero, x, true);
                        }
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

    /// `small < big` (strict) or `small <= big`, both unsigned: `small` is at most each
    /// upper bound of `big` (less one when strict), `big` at least each lower bound of
    /// `small` (plus one).
    fn bound(&mut self, small: &Expr, big: &Expr, strict: bool) {
        if self.unsigned_of(small).is_none() || self.unsigned_of(big).is_none() {
            return;
        }
        let step = Poly::constant(i128::from(strict));
        let mut facts_upper = Vec::new();
        let mut facts_lower = Vec::new();
        if let Some(k) = self.key(small) {
            // `base + 32 <= n` also says `base <= n - 32`.
            let offset = k.constant_term();
            let rest = k
                .sub(&Poly::constant(offset))
                .filter(|r| offset > 0 && *r != k);
            // The first few of `big`'s bounds; when that leaves some out, `big` itself too,
            // through which the others are still found (`i <= limit - 1`, then `limit <= n
            // - 3 * stride` when `i + 3 * stride` is bounded).
            let mut bounds = self.upper(big);
            if bounds.len() > MAX_FACTS_PER_BOUND {
                let kb = self.key(big).filter(|p| p.constant_value().is_none());
                bounds.truncate(MAX_FACTS_PER_BOUND);
                if let Some(kb) = kb.filter(|kb| !bounds.contains(kb)) {
                    bounds.insert(0, kb);
                }
            }
            for u in bounds {
                if let Some(b) = u.sub(&step).filter(|b| *b != k) {
                    if let (Some(r), Some(rb)) = (&rest, b.sub(&Poly::constant(offset))) {
                        facts_upper.push((r.clone(), rb));
                    }
                    facts_upper.push((k.clone(), b));
                }
            }
        }
        // An unsigned `small < big` also says `0 < big`: after `if s >= n { return; }`,
        // `x[0]` is in bounds where `n` is `x.len()`.
        if strict
            && self
                .key(small)
                .is_some_and(|k| k.constant_value().is_none())
        {
            let zero = Poly::constant(0);
            for u in self.upper(big).into_iter().take(MAX_FACTS_PER_BOUND) {
                if let Some(b) = u.sub(&step) {
                    facts_upper.push((zero.clone(), b));
                }
            }
        }
        if let Some(k) = self.key(big) {
            for l in self.lower(small).into_iter().take(MAX_FACTS_PER_BOUND) {
                if let Some(b) = l.add(&step).filter(|b| *b != k) {
                    facts_lower.push((k.clone(), b));
                }
            }
        }
        for (k, b) in facts_upper {
            self.record(k, b, true);
        }
        for (k, b) in facts_lower {
            self.record(k, b, false);
        }
    }

    /// `let v = init` with `v` immutable: `v` is bounded as `init` is.
    pub fn define(&mut self, v: VarId, init: &Expr) {
        let info = &self.types.vars[v];
        if self.unsigned(&info.ty).is_none() {
            return;
        }
        // A `let mut` starts a new generation of facts about it (its binding may be met
        // again, in a loop).
        if info.mutable {
            self.facts.assigned(v);
            self.const_memo.get_mut().clear();
        }
        let k = Poly::atom(v);
        if !info.mutable {
            if let Some(def) = self.key(init).filter(|p| *p != k) {
                self.facts.exact.insert(v, def);
            }
        }
        let upper: Vec<Poly> = self.upper(init).into_iter().filter(|p| *p != k).collect();
        let lower: Vec<Poly> = self.lower(init).into_iter().filter(|p| *p != k).collect();
        // Its value as a polynomial in atoms, when it is one (a sum of products), last, so
        // that it is the first fact found: `let r = bm + row` then bounds `r * n + col`
        // through `bm`'s and `row`'s own facts, which the combined bounds above may have
        // lost to truncation. Only without negative coefficients: the machine value is
        // then at most the integer one (`a - b` wraps to near 2^64 at `a < b`).
        let exact = self
            .key(init)
            .filter(|p| p.never_negative() && *p != k && p.constant_value().is_none());
        for p in upper.into_iter().chain(exact) {
            self.record(k.clone(), p, true);
        }
        for p in lower {
            self.record(k.clone(), p, false);
        }
    }

    /// A `for` range's end `e`, computed once before the loop into the hidden variable
    /// `v`: when `e` is no sum of products of atoms (`row_ptr[row + 1] as usize`), `v`
    /// becomes an atom standing for it, bounded as `e` is. Returns whether it did; the
    /// emitter then names `v` by the C temporary that holds the end.
    pub fn range_end(&mut self, v: VarId, e: &Expr) -> bool {
        if self.key(e).is_some() || self.unsigned(&self.types.vars[v].ty).is_none() {
            return false;
        }
        self.define(v, e);
        true
    }

    /// The body of `for v in start..end` (or `..=end`, stepped by `stride` or walked
    /// backwards). `named` holds the hidden variables `range_end` made atoms of the
    /// start and the end, if it did.
    pub fn loop_var(
        &mut self,
        v: VarId,
        [start, end]: [&Expr; 2],
        named: [Option<VarId>; 2],
        inclusive: bool,
        stride: Option<&Expr>,
    ) {
        let info = &self.types.vars[v];
        if info.mutable || self.unsigned(&info.ty).is_none() {
            return;
        }
        let k = Poly::atom(v);
        // Every value is at least the start's value.
        let lower: Vec<Poly> = named[0]
            .map(Poly::atom)
            .into_iter()
            .chain(self.lower(start))
            .filter(|p| *p != k)
            .collect();
        // The range's end is computed once, before the first iteration: any of its upper
        // bounds bounds `v` (`for i in 0..34 * 34` gives `i <= 1155`), and a non-empty
        // `a..end` has `end >= 1`.
        let step = Poly::constant(i128::from(!inclusive));
        let upper: Vec<Poly> = named[1]
            .map(Poly::atom)
            .into_iter()
            .chain(self.upper(end))
            .filter_map(|b| b.sub(&step))
            .filter(|p| *p != k)
            .collect();
        let end_key = (!inclusive)
            .then(|| self.key(end).or(named[1].map(Poly::atom)))
            .flatten();
        // A stepped range of constants ends at its last value, not at `end - 1`:
        // `(0..32).step_by(8)` is at most 24, so `tile[ty + k]` of 32 rows is proven for
        // 8 rows of threads.
        let last = || -> Option<Poly> {
            let value = |e: &Expr| self.key(e)?.constant_value();
            let (a, b, k) = (value(start)?, value(end)?, value(stride?)?);
            let b = if inclusive { b } else { b - 1 };
            (k > 0 && b >= a).then(|| Poly::constant(a + (b - a) / k * k))
        };
        let upper: Vec<Poly> = last().into_iter().chain(upper).collect();
        for p in lower {
            self.record(k.clone(), p, false);
        }
        for p in upper {
            self.record(k.clone(), p, true);
        }
        if let Some(e) = end_key {
            self.record(e, Poly::constant(1), false);
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
