//! Checks proven at loop entry (docs/bounds.md, "Proven at loop entry"). A check whose
//! index the launch cannot bound may still be bounded by values fixed before an inner loop
//! starts: in `for k in start..end { s += val[k] }`, with `end` read from memory,
//! `val[k]` is in bounds for every step once `end <= val.len()`. The loop is then written
//! twice, behind one test at its entry: a copy with those checks removed where every
//! condition holds, and the checked copy otherwise (Rust's own iterators remove such
//! checks the same way, by knowing the range before the loop).
//!
//! Only an innermost loop whose body has no barrier, warp or group collective, shared
//! declaration or device call is versioned: threads of one warp may take different
//! copies, and those operations must be met by every thread at the same place.
//!
//! A condition is one of the prover's launch conditions (`proof::launch`), with the
//! variables fixed during the loop counted as known: unsigned scalars in scope that the
//! body does not assign, slices' lengths, the block and grid, unsigned constants. It is
//! evaluated in saturating 64-bit arithmetic (`ws_ge_sat`, prelude.cuh): a sum that may
//! have overflowed proves nothing.

use super::FnWriter;
use crate::analysis::proof::{self, LaunchValue, Poly};
use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::call::Call;
use crate::ir::ty::Ty;
use std::collections::{HashMap, HashSet};

/// The loop being written with a copy whose checks are proven at its entry.
pub(super) struct LoopEntry {
    /// Names the copies' flag, `WS_E{id}`.
    id: usize,
    /// Where the loop's C starts in the output.
    start: usize,
    /// Variables fixed while the loop runs (in scope at its entry, never assigned in it).
    fixed: HashSet<VarId>,
    /// For each check removed in the fast copy, its conditions as C (any one proves it),
    /// and its launch site when a launch may prove it instead.
    sites: Vec<(Option<usize>, Vec<String>)>,
    /// Whether the body only reads memory (and leaves the loop only at its end or by
    /// `break`), so its failing reads may be reported when the loop ends (`ws_ld_d`).
    may_defer: bool,
    /// Whether a read was written deferred, into `ws_d{id}`.
    deferred: bool,
}

impl FnWriter<'_> {
    /// Before writing a `for` loop over `body`: whether it may get a fast copy (an
    /// innermost loop with nothing that all threads must meet, in a checked function, in
    /// no versioned loop). Its C must start here.
    pub(super) fn begin_entry_version(&mut self, body: &Block) {
        if self.unchecked || self.loop_entry.is_some() || !versionable(self.types, body) {
            return;
        }
        let assigned = assigned_vars(self.types, body);
        let fixed = self
            .scope
            .iter()
            .copied()
            .filter(|v| !assigned.contains(v))
            .collect();
        self.entry_versions += 1;
        self.loop_entry = Some(LoopEntry {
            id: self.entry_versions,
            start: self.out.len(),
            fixed,
            sites: Vec::new(),
            may_defer: only_reads(body),
            deferred: false,
        });
    }

    /// The record a checked read in the loop being written reports into at the loop's end
    /// (`ws_d{id}`), when the loop only reads memory.
    pub(super) fn defer_record(&mut self) -> Option<String> {
        let entry = self.loop_entry.as_mut().filter(|e| e.may_defer)?;
        entry.deferred = true;
        Some(format!("ws_d{}", entry.id))
    }

    /// After the loop: when a check was proven at its entry, its C is written twice, the
    /// fast copy behind the conditions.
    pub(super) fn end_entry_version(&mut self) {
        let Some(entry) = self.loop_entry.take() else {
            return;
        };
        if entry.sites.is_empty() && !entry.deferred {
            return;
        }
        let text = self.out.split_off(entry.start);
        if !entry.deferred {
            return self.versioned(&entry, &text);
        }
        // In a scope of its own, so no `goto` to an outer loop's label jumps past it.
        let record = format!("ws_d{}", entry.id);
        self.raw("{");
        self.raw(&format!("    ws_defer {record} = {{}};"));
        if entry.sites.is_empty() {
            self.out.push_str(&indented(&text));
        } else {
            self.indent += 1;
            self.versioned(&entry, &indented(&text));
            self.indent -= 1;
        }
        self.raw(&format!("    ws_defer_flush({record});"));
        self.raw("}");
    }

    /// `text`, a loop's C, twice: the copy with the checks `entry` proves where its
    /// conditions hold, the checked one otherwise.
    fn versioned(&mut self, entry: &LoopEntry, text: &str) {
        let cond = entry
            .sites
            .iter()
            .map(|(site, any)| match site {
                // A launch that proves the check makes its part 1 at compile time: when it
                // proves all of them, the test and the checked copy fold away.
                Some(n) => format!("(WS_P({n}) || {})", any.join(" || ")),
                None => format!("({})", any.join(" || ")),
            })
            .collect::<Vec<_>>()
            .join(" && ");
        let flag = entry_flag(entry.id);
        let copy = |v: &str| indented(&text.replace(&flag, v));
        let fast = copy("1");
        let checked = copy("0");
        self.raw(&format!("if ({cond}) {{"));
        self.out.push_str(&fast);
        self.raw("} else {");
        self.out.push_str(&checked);
        self.raw("}");
    }

    /// The flag of the versioned loop that proves `idx` below one of `lens` at its entry,
    /// recording the conditions beside the check's launch `site`; `None` when there is no
    /// such loop or condition.
    pub(super) fn entry_site(
        &mut self,
        idx: &Expr,
        lens: &[Poly],
        site: Option<usize>,
    ) -> Option<String> {
        let entry = self.loop_entry.as_ref()?;
        let (types, var_names, slice_len) = (self.types, &self.var_names, &self.slice_len);
        let c_of = |a: VarId| atom_c(types, var_names, slice_len, entry, a);
        let known = |a: VarId| c_of(a).is_some();
        let conditions =
            proof::Prover::new(types, &mut self.facts).launch_conditions(idx, lens, &known);
        // A condition in values the launch knows is the launch's to test (`WS_P`); one
        // here would only narrow the fast copy (`x[col[k]]`: `x.len() >= 2^32`).
        let launch = self.launch_known.as_ref();
        let local = |p: &Poly| {
            p.terms().flat_map(|(mono, _)| mono).any(|&a| {
                launch
                    .is_none_or(|known| proof::launch_value(a).is_none_or(|v| !known.contains(&v)))
            })
        };
        let c: Vec<String> = conditions
            .iter()
            .filter(|p| local(p))
            .filter_map(|p| condition_c(p, &c_of))
            .collect();
        if c.is_empty() {
            return None;
        }
        let flag = entry_flag(entry.id);
        self.loop_entry.as_mut()?.sites.push((site, c));
        Some(flag)
    }
}

/// Atom `a` as an unsigned 64-bit C value fixed during `entry`'s loop, when it is one.
fn atom_c(
    types: &Types,
    var_names: &HashMap<VarId, String>,
    slice_len: &HashMap<VarId, String>,
    entry: &LoopEntry,
    a: VarId,
) -> Option<String> {
    let unsigned = |t: &Ty| t.scalar().is_some_and(|s| s.is_int() && !s.is_signed_int());
    let c = match proof::launch_value(a)? {
        LaunchValue::Var(v) => {
            let info = types.vars.get(v)?;
            if !entry.fixed.contains(&v) || !unsigned(&info.ty) {
                return None;
            }
            var_names.get(&v)?.clone()
        }
        LaunchValue::Len(v) if entry.fixed.contains(&v) => slice_len.get(&v)?.clone(),
        LaunchValue::Len(_) => return None,
        LaunchValue::BlockDim(axis) => format!("blockDim.{}", axis_name(axis)?),
        LaunchValue::GridDim(axis) => format!("gridDim.{}", axis_name(axis)?),
        LaunchValue::Const(c) => {
            let info = types.consts.get(c)?;
            if info.cast.is_some() || !unsigned(&info.ty) {
                return None;
            }
            info.c_name()
        }
    };
    Some(format!("(unsigned long long)({c})"))
}

/// `text`'s lines one level deeper.
fn indented(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// The token standing for "the fast copy" in a versioned loop's C: replaced by `1` in it
/// and by `0` in the checked copy.
fn entry_flag(id: usize) -> String {
    format!("WS_E{id}")
}

fn axis_name(axis: usize) -> Option<&'static str> {
    ["x", "y", "z"].get(axis).copied()
}

/// `p >= 0` as C: `ws_ge_sat(positive terms, negative terms)`, each side summed in
/// saturating unsigned arithmetic; `None` when an atom has no C value or a coefficient
/// does not fit 64 bits.
fn condition_c(p: &Poly, atom: &dyn Fn(VarId) -> Option<String>) -> Option<String> {
    let (mut pos, mut neg) = (Vec::new(), Vec::new());
    for (mono, coef) in p.terms() {
        let magnitude = u64::try_from(coef.unsigned_abs()).ok()?;
        let mut term = match mono {
            [first, ..] if magnitude == 1 => atom(*first)?,
            _ => format!("{magnitude}ull"),
        };
        let skip = usize::from(magnitude == 1);
        for &a in mono.iter().skip(skip) {
            term = format!("ws_len_mul({term}, {})", atom(a)?);
        }
        if coef < 0 { &mut neg } else { &mut pos }.push(term);
    }
    let sum = |terms: Vec<String>| {
        terms
            .into_iter()
            .reduce(|s, t| format!("ws_len_add({s}, {t})"))
            .unwrap_or_else(|| "0ull".into())
    };
    Some(format!("ws_ge_sat({}, {})", sum(pos), sum(neg)))
}

/// The variables `body` assigns (a lane's assignment assigns its vector).
pub(super) fn assigned_vars(types: &Types, body: &Block) -> HashSet<VarId> {
    let mut vars = HashSet::new();
    super::walk_block(body, &mut |e| {
        if let ExprKind::Assign(place, _) | ExprKind::AssignOp(_, place, _) = &e.kind {
            let place = match &place.kind {
                ExprKind::Field(base, _) => base,
                _ => place,
            };
            vars.extend(types.var(place));
        }
    });
    vars
}

/// Whether `body` writes no memory (only local variables) and leaves its loop only at the
/// end or by a plain `break`: no `return`, no jump to an outer loop, no atomic, no print.
/// Its reads' reports may then wait for the loop's end: nothing they would have
/// preceded can be seen.
fn only_reads(body: &Block) -> bool {
    let mut ok = true;
    super::walk_block(body, &mut |e| {
        ok &= match &e.kind {
            ExprKind::Assign(place, _) | ExprKind::AssignOp(_, place, _) => is_local(place),
            ExprKind::Return(_) | ExprKind::Print(_) => false,
            ExprKind::Break(label) | ExprKind::Continue(label) => label.is_none(),
            ExprKind::Method(recv, ..) => !matches!(recv.kind, ExprKind::Index(..)),
            _ => true,
        };
    });
    ok
}

/// Whether an assignment's place is a local variable or a field of one (not an element).
fn is_local(place: &Expr) -> bool {
    match &place.kind {
        ExprKind::Var(_) => true,
        ExprKind::Field(base, _) => is_local(base),
        _ => false,
    }
}

/// Whether a loop over `body` may be written twice: no inner loop, and nothing every
/// thread of a block or warp must meet at one place (barriers, warp and group operations,
/// fragments), declare once (shared memory) or that may hold either (device calls).
fn versionable(types: &Types, body: &Block) -> bool {
    let mut ok = true;
    super::walk_block(body, &mut |e| {
        ok &= match &e.kind {
            ExprKind::While(..) | ExprKind::Loop(..) | ExprKind::For(..) => false,
            ExprKind::Call(..) | ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) => false,
            ExprKind::Intrinsic(i, _) => !i.has_effect(),
            ExprKind::Method(..) => !matches!(
                types.calls.get(&e.id),
                Some(Call::Group(..) | Call::Fragment(_))
            ),
            _ => true,
        };
    });
    ok
}
