//! Expressions: each becomes a C expression string with exactly the C type of its Rust
//! type, so the prelude's templates (`ws_add<T>`, ...) always see the right `T`.
//! Operands are evaluated in Rust's order: when a later operand has effects (a call, or
//! statements), earlier ones are first stored in temporaries.

use super::effect::effect;
use super::stmt::{is_c_literal, Dest};
use super::{c_type, fn_name, template_param, FnWriter, FILE_MARKER};
use crate::analysis::proof::{self, Poly};
use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::atomics::{cas_order, AtomicOp, CasUse};
use crate::ir::call::Call;
use crate::ir::intrinsics::ParamKind;
use crate::ir::methods::{self, Method};
use crate::ir::numeric_consts::ConstValue;
use crate::ir::ty::fragment::{Frag, FragMethod, Shape};
use crate::ir::ty::{Scalar, Ty};

/// `if c { a } else { b }` with no statements anywhere becomes `(c ? a : b)`.
fn ternary_able(types: &Types, e: &Expr) -> bool {
    matches!(e.kind, ExprKind::If(_, _, Some(_))) && effect(types, e) < 2
}

fn is_trivial(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(_) | ExprKind::Const(..))
        || matches!(&e.kind, ExprKind::Unary(UnOp::Neg, inner) if matches!(inner.kind, ExprKind::Lit(_)))
}

impl<'a> FnWriter<'a> {
    /// Several operands, evaluated in order (see the module docs).
    pub(super) fn operands(&mut self, ops: &[&Expr]) -> Vec<String> {
        let effects: Vec<u8> = ops.iter().map(|e| effect(self.types, e)).collect();
        let last_effect = effects.iter().rposition(|&x| x > 0);
        let mut out = Vec::with_capacity(ops.len());
        for (i, e) in ops.iter().enumerate() {
            let v = self.value(e);
            let later = last_effect.is_some_and(|j| j > i);
            let keep = is_trivial(e)
                || matches!(self.ty(e), Ty::Slice(..) | Ty::Atomics(_) | Ty::Rows(..))
                || (matches!(e.kind, ExprKind::Var(..)) && !effects[i + 1..].contains(&2));
            if later && !keep {
                let t = self.ty(e).clone();
                out.push(self.hoist(&t, &v));
            } else {
                out.push(v);
            }
        }
        out
    }

    /// The C expression for `e`, writing any statements it needs first.
    pub(super) fn value(&mut self, e: &Expr) -> String {
        if let Some(&c) = self.types.const_uses.get(&e.id) {
            return self.types.consts[c].c_name();
        }
        match &e.kind {
            ExprKind::Lit(lit) => self.lit(lit, self.ty(e), false),
            ExprKind::Const(c) => const_c(c.value, c.ty),
            ExprKind::Var(..) => self.var_name(e),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
                let a = self.value(l);
                if effect(self.types, r) < 2 {
                    let b = self.value(r);
                    return format!("({a} {} {b})", op.rust_token());
                }
                let t = self.hoist(&Ty::BOOL, &a);
                let test = if *op == BinOp::And {
                    t.clone()
                } else {
                    format!("!{t}")
                };
                self.raw(&format!("if ({test}) {{"));
                self.indent += 1;
                let b = self.value(r);
                self.raw(&format!("{t} = {b};"));
                self.indent -= 1;
                self.raw("}");
                t
            }
            ExprKind::Binary(op, l, r) => {
                let v = self.operands(&[l, r]);
                let (lt, rt) = (self.ty(l).clone(), self.ty(r).clone());
                self.binary_c(*op, &lt, &v[0], &rt, &v[1])
            }
            ExprKind::Unary(UnOp::Neg, inner)
                if matches!(inner.kind, ExprKind::Lit(Lit::Int(..))) =>
            {
                let ExprKind::Lit(lit) = &inner.kind else {
                    unreachable!()
                };
                self.lit(lit, self.ty(e), true)
            }
            ExprKind::Unary(op, inner) => {
                let v = self.value(inner);
                let s = self.scalar(e);
                match (op, s) {
                    (UnOp::Neg, s) if s.is_float() => format!("(-{v})"),
                    (UnOp::Neg, s) if s.is_half_float() => format!("{}_neg({v})", s.c_name()),
                    (UnOp::Neg, s) => format!("ws_neg<{}>({v})", s.c_name()),
                    (UnOp::Not, Scalar::Bool) => format!("(!{v})"),
                    (UnOp::Not, s) => format!("(({})~{v})", s.c_name()),
                }
            }
            ExprKind::Cast(inner, to) => {
                let v = self.value(inner);
                cast_c(self.scalar(inner), *to, &v)
            }
            ExprKind::Index(base, idx) => {
                let v = self.operands(&[base, idx]);
                // A scalar read is a checked load; a row (of a tile or a 2-D array) is a
                // place that the next index reads from.
                if let Ty::Scalar(_) = self.ty(e) {
                    if let Some(check) = self.checked_len(base, idx) {
                        let deferred = self.defer_record().map(|d| ("ws_ld_d", d)).or_else(|| {
                            self.call_record_for(base)
                                .map(|d| ("ws_ld_k", d.to_string()))
                        });
                        let checked = match deferred {
                            Some((f, d)) => format!(
                                "{f}({}, {}, {}, {}u, \"{FILE_MARKER}\", {d})",
                                v[0], v[1], check.len, e.line
                            ),
                            None => format!(
                                "ws_ld({}, {}, {}, {}u, \"{FILE_MARKER}\")",
                                v[0], v[1], check.len, e.line
                            ),
                        };
                        return check.unless_proven(&format!("{}[{}]", v[0], v[1]), &checked);
                    }
                }
                self.elem(&v[0], base, idx, &v[1], e.line)
            }
            ExprKind::Field(base, member) => {
                if let (ExprKind::Intrinsic(i, _), Member::Named(n)) = (&base.kind, member) {
                    if let Some(b) = i.builtin() {
                        return format!("{}.{n}", b.c_name());
                    }
                }
                let b = self.value(base);
                match member {
                    Member::Named(n) if self.ty(base).scalar().is_some_and(|s| s.is_struct()) => {
                        format!("{b}.{}", super::c_field_name(n))
                    }
                    Member::Named(n) => format!("{b}.{n}"),
                    Member::Index(i) => format!("{b}._{i}"),
                }
            }
            ExprKind::Method(recv, _, args) => {
                match self.types.calls.get(&e.id) {
                    Some(&Call::Group(kind, m)) => self.group_c(kind, m, args),
                    Some(&Call::Texture(m)) => {
                        let Ty::Texture2D(elem) = self.ty(recv) else {
                            return "0".into();
                        };
                        self.texture_c(m, recv, *elem, args)
                    }
                    Some(&Call::Atomic(op)) => self.atomic_c(op, recv, args),
                    Some(&Call::Mbarrier(m)) => self.mbarrier_c(m, recv, args),
                    Some(&Call::Fragment(
                        m @ (FragMethod::LdMatrix(row) | FragMethod::StMatrix(row)),
                    )) => {
                        // Unchecked, or every row proven to end inside the tile
                        // (`row + 8 <= len`): a length no row reaches past.
                        let proven = !self.unchecked && self.rows_proven(&args[0], &args[1]);
                        let v = self.operands(&[&args[0], &args[1]]);
                        let len = match self.unchecked || proven {
                            true => None,
                            false => self.slice_len_of(&args[0]),
                        };
                        let len = len.unwrap_or_else(|| "~0ull".into());
                        let f = self.value(recv);
                        // ldmatrix writes the fragment, stmatrix reads it.
                        let f = match m {
                            FragMethod::LdMatrix(_) => format!("&{f}"),
                            _ => f,
                        };
                        format!(
                            "{}({f}, {}, {len}, {}, {}u, \"{FILE_MARKER}\")",
                            row.c, v[0], v[1], e.line
                        )
                    }
                    Some(&Call::Fragment(FragMethod::LoadAcc(n))) => {
                        // `ws_frag_load_acc(&a, acc, j)`: the helper checks `j` against the
                        // accumulator's N / 16 slabs (a literal one folds away).
                        let a = self.value(recv);
                        let v = self.operands(&[&args[0], &args[1]]);
                        let acc = &v[0];
                        format!(
                            "ws_frag_load_acc(&{a}, {acc}, (unsigned long long)({}), {}ull, {}u, \"{FILE_MARKER}\")",
                            v[1],
                            n / 16,
                            e.line
                        )
                    }
                    Some(&Call::Fragment(FragMethod::Wgmma(row, form))) => {
                        // Each tile is its pointer and its length (unchecked: a length no
                        // tile is shorter than); a `FragmentA` is the fragment. An MN-major
                        // B also passes its rows (its length / N), which its layout needs.
                        let v = self.operands(&[&args[0], &args[1], &args[2]]);
                        let len = |w: &mut Self, a: &Expr| match w.unchecked {
                            true => "~0ull".to_string(),
                            false => w.slice_len_of(a).unwrap_or_else(|| "~0ull".into()),
                        };
                        let acc = self.value(recv);
                        let n = match self.ty(recv) {
                            Ty::Fragment(Frag {
                                shape: Shape::Wgmma { n, .. },
                                ..
                            }) => *n,
                            _ => 0,
                        };
                        let a = match form.regs {
                            true => v[0].clone(),
                            false => format!("{}, {}", v[0], len(self, &args[0])),
                        };
                        let mut b = format!("{}, {}", v[1], len(self, &args[1]));
                        if form.trans_b {
                            let real = self.slice_len_of(&args[1]).unwrap_or_else(|| "0ull".into());
                            b = format!("{b}, (unsigned long long)({real}) / {n}ull");
                        }
                        format!(
                            "{}(&{acc}, {a}, {b}, (unsigned long long)({}), {}u, \"{FILE_MARKER}\")",
                            row.c(n, form),
                            v[2],
                            e.line
                        )
                    }
                    Some(&Call::Fragment(FragMethod::MmaSync(row))) => {
                        // `acc` is a local: the helper updates it in place (`D = C`).
                        let ops: Vec<&Expr> = args.iter().collect();
                        let v = self.operands(&ops);
                        let acc = self.value(recv);
                        format!("{}(&{acc}, {}, {})", row.c, v[0], v[1])
                    }
                    Some(&Call::CasUse(u)) => {
                        let ExprKind::Method(recv, _, args) = &recv.kind else {
                            return "0".into();
                        };
                        let Some((old, current, s)) = self.cas_c(recv, args) else {
                            return "0".into();
                        };
                        let same = match s {
                            _ if s.is_half() => format!("({old}.bits == {current}.bits)"),
                            Scalar::F32 => {
                                format!("(__float_as_uint({old}) == __float_as_uint({current}))")
                            }
                            Scalar::F64 => {
                                format!("(__double_as_longlong({old}) == __double_as_longlong({current}))")
                            }
                            _ => format!("({old} == {current})"),
                        };
                        match u {
                            CasUse::Old => old,
                            CasUse::IsOk => same,
                            CasUse::IsErr => format!("(!{same})"),
                        }
                    }
                    Some(&Call::Method(m)) => {
                        if m.is_len() {
                            if let ExprKind::SubSlice(_) = recv.kind {
                                self.value(recv);
                            }
                            let len = self.slice_len_of(recv).unwrap_or_else(|| "0ull".into());
                            return if m.name == "len" {
                                len
                            } else {
                                format!("({len} == 0ull)")
                            };
                        }
                        let mut ops: Vec<&Expr> = vec![recv];
                        ops.extend(args.iter());
                        let v = self.operands(&ops);
                        method_c(m, self.scalar(recv), &v)
                    }
                    // No method was resolved only when the receiver never has a value
                    // (`return.len()`): what runs is the receiver.
                    None => {
                        self.expr_stmt(recv);
                        "0".into()
                    }
                }
            }
            ExprKind::Intrinsic(i, args) if i.cast_to().is_some() => {
                let to = i.cast_to().unwrap_or(Scalar::Bool);
                let v = self.value(&args[0]);
                cast_c(self.scalar(&args[0]), to, &v)
            }
            ExprKind::Intrinsic(i, args) if i.params().contains(&ParamKind::Mbarrier) => {
                self.tma_c(e, args)
            }
            ExprKind::Intrinsic(i, args) => {
                let ops: Vec<&Expr> = args.iter().collect();
                let mut vals = self.operands(&ops);
                let value = i
                    .params()
                    .iter()
                    .position(|p| *p == ParamKind::Value)
                    .and_then(|k| args.get(k))
                    .map(|a| super::c_type(self.ty(a)));
                if i.takes_width() && vals.len() == i.params().len() {
                    vals.push("32u".into()); // CUDA's default `width = warpSize`
                }
                // A slice argument is its pointer and its length (`cp_async`, `load4`).
                let mut c_args = Vec::new();
                for (k, v) in vals.into_iter().enumerate() {
                    let slice = matches!(
                        i.params().get(k),
                        Some(
                            ParamKind::SharedDst
                                | ParamKind::GlobalSrc
                                | ParamKind::QuadSrc
                                | ParamKind::QuadDst
                        )
                    );
                    c_args.push(v);
                    if slice {
                        let len = self.slice_len_of(&args[k]);
                        c_args.push(len.unwrap_or_else(|| "0ull".into()));
                    }
                }
                if i.c_takes_site() {
                    c_args.push(format!("{}u", e.line));
                    c_args.push(format!("\"{FILE_MARKER}\""));
                }
                format!("{}({})", i.c_function(value.as_deref()), c_args.join(", "))
            }
            ExprKind::Ordering(o, _) => o.c_name().into(),
            ExprKind::Print(p) => self.print_c(p),
            ExprKind::TiledPartition(..) => "0".into(),
            ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) => "0".into(),
            ExprKind::Fragment(f) => format!("({}{{}})", f.c_type()),
            ExprKind::Ref(_, inner) => self.value(inner),
            ExprKind::SubSlice(s) => self.sub_slice_c(e, s),
            ExprKind::Call(path, const_args, args) => {
                let ops: Vec<&Expr> = args.iter().collect();
                let vals = self.operands(&ops);
                let mut c_args = Vec::new();
                for (a, v) in args.iter().zip(vals) {
                    if let Ty::Slice(..) | Ty::Atomics(_) | Ty::Rows(..) = self.ty(a) {
                        let len = self.slice_len_of(a);
                        c_args.push(v);
                        c_args.push(len.unwrap_or_else(|| "0ull".into()));
                    } else {
                        c_args.push(v);
                    }
                }
                let name = fn_name(
                    &path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default(),
                );
                // A const-generic callee is a template: its const arguments, in order.
                let template = if const_args.is_empty() {
                    String::new()
                } else {
                    let t: Vec<String> = const_args.iter().map(const_arg_c).collect();
                    format!("<{}>", t.join(", "))
                };
                if self.call_record != super::CallRecord::None {
                    c_args.push(super::CALL_RECORD.into());
                }
                format!("{name}{template}({})", c_args.join(", "))
            }
            ExprKind::If(cond, then, els) => {
                // C's `?:` would decay arrays to pointers.
                if ternary_able(self.types, e) && !matches!(self.ty(e), Ty::Array(..)) {
                    return self.ternary(cond, then, els.as_deref().unwrap());
                }
                let t = self.ty(e).clone();
                if matches!(t, Ty::Unit | Ty::Never) {
                    self.if_stmt(cond, then, els.as_deref(), &Dest::Discard);
                    return "0".into();
                }
                let tmp = self.namer.temp();
                self.raw(&format!("{};", super::c_decl(&t, &tmp)));
                self.if_stmt(cond, then, els.as_deref(), &Dest::Assign(tmp.clone()));
                tmp
            }
            ExprKind::Match(s, arms) => {
                let t = self.ty(e).clone();
                if matches!(t, Ty::Unit | Ty::Never) {
                    self.match_stmt(s, arms, &Dest::Discard);
                    return "0".into();
                }
                let tmp = self.namer.temp();
                self.raw(&format!("{};", super::c_decl(&t, &tmp)));
                self.match_stmt(s, arms, &Dest::Assign(tmp.clone()));
                tmp
            }
            ExprKind::Block(b) => {
                if b.stmts.is_empty() {
                    if let Some(tail) = &b.tail {
                        return self.value(tail);
                    }
                }
                let t = self.ty(e).clone();
                if matches!(t, Ty::Unit | Ty::Never) {
                    self.braced(b, &Dest::Discard);
                    return "0".into();
                }
                let tmp = self.namer.temp();
                self.raw(&format!("{};", super::c_decl(&t, &tmp)));
                self.braced(b, &Dest::Assign(tmp.clone()));
                tmp
            }
            ExprKind::Tuple(items) => {
                // Braced initialisers evaluate left to right, as Rust does.
                let ops: Vec<&Expr> = items.iter().collect();
                let vals = self.operands(&ops);
                format!("{}{{{}}}", c_type(self.ty(e)), vals.join(", "))
            }
            ExprKind::StructLit(l) => self.struct_lit_c(e, l),
            ExprKind::Array(_) | ExprKind::Repeat(..) => "0".into(),
            _ => {
                self.expr_stmt(e);
                "0".into()
            }
        }
    }

    /// The element `base[i]` as a C lvalue: bounds-checked (`*ws_at(..)`, which records the
    /// first failure of the launch and points a failing access at a sink) unless the
    /// kernel is `unchecked` or the index is proven in bounds.
    fn elem(&mut self, base_c: &str, base: &Expr, idx: &Expr, i: &str, line: usize) -> String {
        match self.checked_len(base, idx) {
            Some(check) => format!("(*{})", self.checked_ptr(check, base_c, base, i, line)),
            None => format!("{base_c}[{i}]"),
        }
    }

    /// In a device function, the kernel's record (`ws_dk`) that a check of `base`, a slice
    /// of global memory, writes its failure into instead of reporting it there.
    fn call_record_for(&self, base: &Expr) -> Option<&'static str> {
        let global = matches!(self.ty(base), Ty::Slice(..)) && self.at_fn(base) == "ws_at";
        (self.call_record == super::CallRecord::Param && global).then_some(super::CALL_RECORD)
    }

    /// The prelude's checked access for `base`'s memory: `ws_at_shared` for a shared array
    /// or a row of a shared tile (its sink is shared too, so the access stays a shared
    /// one), `ws_at` for the rest.
    fn at_fn(&self, base: &Expr) -> &'static str {
        let root = match &base.kind {
            ExprKind::Index(inner, _) => inner,
            _ => base,
        };
        match &root.kind {
            ExprKind::Var(_)
                if self
                    .types
                    .var(root)
                    .is_some_and(|v| self.shared_vars.contains(&v)) =>
            {
                "ws_at_shared"
            }
            _ => "ws_at",
        }
    }

    /// A pointer to `base[i]`, checked as [`Self::elem`] says.
    pub(super) fn elem_ptr(
        &mut self,
        base_c: &str,
        base: &Expr,
        idx: &Expr,
        i: &str,
        line: usize,
    ) -> String {
        match self.checked_len(base, idx) {
            Some(check) => self.checked_ptr(check, base_c, base, i, line),
            None => format!("&{base_c}[{i}]"),
        }
    }

    /// The checked pointer to `base[i]` (`ws_at`), or with a site the plain one where the
    /// launch proves it.
    fn checked_ptr(&self, check: Check, base_c: &str, base: &Expr, i: &str, line: usize) -> String {
        let len = &check.len;
        let checked = match self.call_record_for(base) {
            Some(d) => format!("ws_at_k({base_c}, {i}, {len}, {line}u, \"{FILE_MARKER}\", {d})"),
            None => {
                let at = self.at_fn(base);
                format!("{at}({base_c}, {i}, {len}, {line}u, \"{FILE_MARKER}\")")
            }
        };
        check.unless_proven(&format!("&{base_c}[{i}]"), &checked)
    }

    /// The check `base[idx]` needs; `None` when none is needed: the function is
    /// `unchecked`, or the index is proven below a length the slice is known to have (see
    /// [`proof`]). In a kernel, a check the launch may prove gets a site.
    fn checked_len(&mut self, base: &Expr, idx: &Expr) -> Option<Check> {
        if self.unchecked {
            return None;
        }
        let (c_len, known) = match (self.ty(base), &base.kind) {
            (Ty::Array(_, n), _) => (n.c(), Some(proof::array_len(n))),
            (_, ExprKind::Index(inner, _)) => match self.ty(inner) {
                Ty::Rows(_, w) => (w.c(), Some(proof::array_len(w))),
                _ => return None,
            },
            (_, ExprKind::Var(_)) => {
                let v = self.types.var(base)?;
                (self.slice_len.get(&v)?.clone(), None)
            }
            _ => return None,
        };
        let lens: Vec<Poly> = known.into_iter().chain(self.known_lens(base)).collect();
        let prover = self.prover();
        if lens.iter().any(|len| prover.below(idx, len)) {
            return None;
        }
        // Both may prove it: a launch's conditions often only hold for sizes no launch
        // has (`val[k]` with `k < end`, `end` any u32: `val.len() >= 2^32 - 1`).
        let site = self.launch_site(idx, &lens);
        let entry = self.entry_site(idx, &lens, site);
        Some(Check {
            len: c_len,
            site,
            entry,
        })
    }

    /// The site of a check that a launch may prove (conditions found, and fewer than 64
    /// sites so far), recording its conditions.
    fn launch_site(&mut self, idx: &Expr, lens: &[Poly]) -> Option<usize> {
        let known = self.launch_known.take()?;
        let is_known = |a| proof::launch_value(a).is_some_and(|v| known.contains(&v));
        let conditions = if self.provable.len() < 64 {
            self.prover().launch_conditions(idx, lens, &is_known)
        } else {
            Vec::new()
        };
        self.launch_known = Some(known);
        if conditions.is_empty() {
            return None;
        }
        self.provable.push(conditions);
        Some(self.provable.len() - 1)
    }

    /// Whether the 8-element row at `row` of `tile` (an `ldmatrix`/`stmatrix` address) is
    /// proven inside it: `row + 8 <= len` for a length the tile is known to have.
    fn rows_proven(&mut self, tile: &Expr, row: &Expr) -> bool {
        let base = match &tile.kind {
            ExprKind::Ref(_, inner) => &**inner,
            _ => tile,
        };
        let limits: Vec<Poly> = self
            .known_lens(base)
            .iter()
            .filter_map(|len| len.sub(&Poly::constant(8)))
            .collect();
        let prover = self.prover();
        limits.iter().any(|limit| prover.at_most(row, limit))
    }

    /// The lengths a slice variable is known to have, for the prover: a shared array's
    /// size or a declared `#[len]`, and its own length as an atom (`if i < s.len() { s[i] }`
    /// is proven); none for anything but a variable.
    pub(super) fn known_lens(&self, base: &Expr) -> Vec<Poly> {
        let ExprKind::Var(_) = base.kind else {
            return Vec::new();
        };
        let Some(v) = self.types.var(base) else {
            return Vec::new();
        };
        let declared = self
            .shared_len
            .get(&v)
            .cloned()
            .or_else(|| self.facts.declared_len(v).cloned());
        declared
            .into_iter()
            .chain([Poly::atom(proof::len_atom(v))])
            .collect()
    }

    /// `a[i].compare_exchange(current, new, s, f)`: the old value and `current`, each in a
    /// temporary (Rust's `Ok` is "old equals current", compared by bits).
    fn cas_c(&mut self, recv: &Expr, args: &[Expr]) -> Option<(String, String, Scalar)> {
        let ExprKind::Index(base, idx) = &recv.kind else {
            return None;
        };
        let Ty::Atomics(s) = self.ty(base) else {
            return None;
        };
        let s = *s;
        let v = self.operands(&[base, idx, &args[0], &args[1]]);
        let current = self.hoist(&Ty::Scalar(s), &v[2]);
        let order = match (&args[2].kind, &args[3].kind) {
            (ExprKind::Ordering(a, _), ExprKind::Ordering(b, _)) => cas_order(*a, *b).c_name(),
            _ => "WS_SEQ_CST",
        };
        let ptr = self.elem_ptr(&v[0], base, idx, &v[1], recv.line);
        let call = format!(
            "ws_atomic_cas<{order}, {}>({ptr}, {current}, {})",
            s.c_name(),
            v[3]
        );
        let old = self.hoist(&Ty::Scalar(s), &call);
        Some((old, current, s))
    }

    /// `a[i].fetch_add(v, Ordering::X)` -> `ws_atomic_fetch_add<WS_X, T>(&a[i], v)`.
    fn atomic_c(&mut self, op: AtomicOp, recv: &Expr, args: &[Expr]) -> String {
        if op == AtomicOp::CompareExchange {
            // A result nobody looks at: the exchange still happens.
            return self
                .cas_c(recv, args)
                .map(|c| c.0)
                .unwrap_or_else(|| "0".into());
        }
        let ExprKind::Index(base, idx) = &recv.kind else {
            return "0".into();
        };
        let Ty::Atomics(s) = self.ty(base) else {
            return "0".into();
        };
        let c = s.c_name();
        let mut ops: Vec<&Expr> = vec![base, idx];
        let values: Vec<&Expr> = args
            .iter()
            .filter(|a| !matches!(a.kind, ExprKind::Ordering(..)))
            .collect();
        ops.extend(values.iter().copied());
        let v = self.operands(&ops);
        let order = args
            .iter()
            .find_map(|a| match a.kind {
                ExprKind::Ordering(o, _) => Some(o.c_name()),
                _ => None,
            })
            .unwrap_or("WS_RELAXED");
        let mut c_args = vec![self.elem_ptr(&v[0], base, idx, &v[1], recv.line)];
        c_args.extend(v[2..].iter().cloned());
        let targs = match op {
            AtomicOp::AtomicInc | AtomicOp::AtomicDec => order.to_string(),
            _ => format!("{order}, {c}"),
        };
        format!("{}<{targs}>({})", op.c_name(), c_args.join(", "))
    }

    fn ternary(&mut self, cond: &Expr, then: &Block, els: &Expr) -> String {
        let c = self.value(cond);
        // Each side is evaluated only where the condition says, so it knows what the
        // condition says (`if i >= 1 { a[i - 1] } else { 0 }`).
        let facts = self.facts.mark();
        self.prover().assume(cond, true);
        let a = self.value(then.tail.as_ref().unwrap());
        self.facts.reset(facts);
        self.prover().assume(cond, false);
        let b = match &els.kind {
            ExprKind::Block(bl) => self.value(bl.tail.as_ref().unwrap()),
            _ => self.value(els),
        };
        self.facts.reset(facts);
        format!("({c} ? {a} : {b})")
    }

    /// The place on the left of `=`: a variable or an element.
    pub(super) fn place(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Index(base, idx) => {
                let b = self.place(base);
                let i = self.value(idx);
                let i = if is_c_literal(&i) || matches!(idx.kind, ExprKind::Var(..)) {
                    i
                } else {
                    self.hoist(&Ty::USIZE, &i)
                };
                self.elem(&b, base, idx, &i, e.line)
            }
            // `out[i].x`, `p.v[k]`: a field of a struct place is a place.
            ExprKind::Field(base, Member::Named(n))
                if self.ty(base).scalar().is_some_and(|s| s.is_struct()) =>
            {
                let b = self.place(base);
                format!("{b}.{}", super::c_field_name(n))
            }
            _ => self.value(e),
        }
    }

    fn lit(&self, lit: &Lit, ty: &Ty, negated: bool) -> String {
        let s = ty.scalar().unwrap_or(Scalar::I32);
        match lit {
            Lit::Bool(b) => b.to_string(),
            Lit::Int(v, _) if s.is_float() => float_c(&v.to_string(), s, negated),
            Lit::Int(v, _) => int_c(*v, s, negated),
            Lit::Float { text, .. } => float_c(text, s, negated),
        }
    }

    /// `l op r` with Rust's semantics, both sides already C expressions.
    pub(super) fn binary_c(&self, op: BinOp, lt: &Ty, l: &str, _rt: &Ty, r: &str) -> String {
        let s = lt.scalar().unwrap_or(Scalar::I32);
        let c = s.c_name();
        use BinOp::*;
        if s.is_library() {
            // Structs in C: every operation is a prelude helper (half's f32-then-round;
            // the vectors' lane by lane).
            let name = match op {
                Add => "add",
                Sub => "sub",
                Mul => "mul",
                Div => "div",
                Rem => "rem",
                Eq => "eq",
                Ne => "ne",
                Lt => "lt",
                Le => "le",
                Gt => "gt",
                _ => "ge",
            };
            return format!("{c}_{name}({l}, {r})");
        }
        match op {
            Add | Sub | Mul | Div if s.is_float() => format!("({l} {} {r})", op.rust_token()),
            Rem if s.is_float() => format!(
                "{}({l}, {r})",
                if s == Scalar::F32 { "fmodf" } else { "fmod" }
            ),
            // Unsigned 32- and 64-bit arithmetic already wraps in C and is never promoted,
            // so it is spelled as C spells it: NVRTC strength-reduces and hoists plain
            // operators in loops where it keeps the inlined `ws_add<T>` calls as they are
            // (the naive convolution's index math measured 6% slower through them).
            Add | Sub | Mul | Div | Rem if s.is_wide_unsigned() => {
                format!("({l} {} {r})", op.rust_token())
            }
            Add => format!("ws_add<{c}>({l}, {r})"),
            Sub => format!("ws_sub<{c}>({l}, {r})"),
            Mul => format!("ws_mul<{c}>({l}, {r})"),
            Div => format!("ws_div<{c}>({l}, {r})"),
            Rem => format!("ws_rem<{c}>({l}, {r})"),
            BitAnd | BitOr | BitXor => format!("(({c})({l} {} {r}))", op.rust_token()),
            Shl => format!("ws_shl<{c}>({l}, (unsigned int)({r}))"),
            Shr => format!("ws_shr<{c}>({l}, (unsigned int)({r}))"),
            Eq | Ne | Lt | Le | Gt | Ge | And | Or => format!("({l} {} {r})", op.rust_token()),
        }
    }
}

/// An integer literal of C type exactly `s` (`-v` when negated).
pub fn int_c(v: u128, s: Scalar, negated: bool) -> String {
    match (s, negated) {
        (Scalar::I32, true) if v == 1 << 31 => "(-2147483647 - 1)".into(),
        (Scalar::I64 | Scalar::Isize, true) if v == 1 << 63 => {
            "(-9223372036854775807ll - 1ll)".into()
        }
        (Scalar::I32, true) => format!("(-{v})"),
        (Scalar::I32, false) => format!("{v}"),
        (Scalar::U32, _) => format!("{v}u"),
        (Scalar::I64 | Scalar::Isize, true) => format!("(-{v}ll)"),
        (Scalar::I64 | Scalar::Isize, false) => format!("{v}ll"),
        (Scalar::U64 | Scalar::Usize, _) => format!("{v}ull"),
        (Scalar::Bool, _) => (v != 0).to_string(),
        (s, true) => format!("(({})-{v})", s.c_name()),
        (s, false) => format!("(({}){v})", s.c_name()),
    }
}

/// A float literal, correctly rounded to `s` by Rust, printed so C reads the same value.
pub fn float_c(text: &str, s: Scalar, negated: bool) -> String {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    match s {
        Scalar::F32 => {
            let v: f32 = clean.parse().unwrap_or(f32::NAN);
            let v = if negated { -v } else { v };
            if v.is_finite() {
                if negated {
                    format!("({v:e}f)")
                } else {
                    format!("{v:e}f")
                }
            } else {
                format!("__int_as_float(0x{:08x})", v.to_bits())
            }
        }
        _ => {
            let v: f64 = clean.parse().unwrap_or(f64::NAN);
            let v = if negated { -v } else { v };
            if v.is_finite() {
                if negated {
                    format!("({v:e})")
                } else {
                    format!("{v:e}")
                }
            } else {
                format!("__longlong_as_double(0x{:016x}ll)", v.to_bits())
            }
        }
    }
}

/// A constant's exact value as C of type `s`: floats by their bits (NaN and infinities
/// have no C literal, and a decimal could round differently).
pub fn const_c(v: ConstValue, s: Scalar) -> String {
    match v {
        ConstValue::F32(bits) => format!("__int_as_float(0x{bits:08x})"),
        ConstValue::F64(bits) => format!("__longlong_as_double(0x{bits:016x}ll)"),
        ConstValue::Int(v) => int_c(v.unsigned_abs(), s, v < 0),
    }
}

/// `v as to`, with Rust's saturating float-to-int conversion.
pub fn cast_c(from: Scalar, to: Scalar, v: &str) -> String {
    if from == to {
        return v.to_string();
    }
    let t = to.c_name();
    if !from.is_float() || to.is_float() {
        return format!("(({t})({v}))");
    }
    let p = if from == Scalar::F32 {
        "__float2"
    } else {
        "__double2"
    };
    // cvt.rzi saturates, but turns NaN into the type's minimum or maximum for some widths
    // (seen on sm_90: NaN as i64 gave i64::MIN, NaN as u16 gave 65535): NaN is 0 first.
    let nan0 = if from == Scalar::F32 {
        "ws_nan0f"
    } else {
        "ws_nan0d"
    };
    let v = &format!("{nan0}({v})");
    match to {
        Scalar::I32 => format!("{p}int_rz({v})"),
        Scalar::U32 => format!("{p}uint_rz({v})"),
        Scalar::I64 | Scalar::Isize => format!("{p}ll_rz({v})"),
        Scalar::U64 | Scalar::Usize => format!("{p}ull_rz({v})"),
        Scalar::I8 => format!("((signed char)ws_clamp_i({p}int_rz({v}), -128, 127))"),
        Scalar::I16 => format!("((short)ws_clamp_i({p}int_rz({v}), -32768, 32767))"),
        Scalar::U8 => format!("((unsigned char)ws_clamp_u({p}uint_rz({v}), 255u))"),
        Scalar::U16 => format!("((unsigned short)ws_clamp_u({p}uint_rz({v}), 65535u))"),
        _ => format!("(({t})({v}))"),
    }
}

/// A numeric method, as its table row spells it; `v[0]` is the receiver.
fn method_c(m: &Method, s: Scalar, v: &[String]) -> String {
    let args = v.join(", ");
    match m.c {
        methods::C::Tmpl(f) => format!("{f}<{}>({args})", s.c_name()),
        methods::C::Func(f) => format!("{f}({args})"),
        methods::C::Math(f) if s == Scalar::F32 => format!("{f}f({args})"),
        methods::C::Math(f) => format!("{f}({args})"),
        methods::C::Len => "0".into(),
    }
}

#[allow(dead_code)]
fn c_type_of(t: &Ty) -> String {
    c_type(t)
}

/// A const argument of a device function's call in the C: a literal (`4`, `(-5ll)`,
/// `true`), the caller's template parameter (`ws_tp_B`), or the macro holding Rust's value
/// of a constant (`ws_g0`, defined by the host: `emit::host::consts`).
pub fn const_arg_c(a: &ConstArg) -> String {
    match a {
        ConstArg::Int {
            digits,
            negative: false,
        } => digits.clone(),
        ConstArg::Int {
            digits,
            negative: true,
        } => format!("(-{digits}ll)"),
        ConstArg::Bool(b) => b.to_string(),
        ConstArg::Param(id) => template_param(id),
        ConstArg::Value(i) => format!("ws_g{i}"),
    }
}

/// A bounds check to write: the length as C, its site when a launch may prove it, and
/// the flag of the versioned loop whose entry may prove it (`version.rs`).
struct Check {
    len: String,
    site: Option<usize>,
    entry: Option<String>,
}

impl Check {
    /// `checked`, or with a site `(WS_P(n) ? plain : checked)`: the launch that proves the
    /// site compiles the kernel with `WS_P(n)` 1, and the check folds away (prelude.cuh).
    /// A check proven at a loop's entry is `(WS_En ? plain : checked)`, the flag 1 in the
    /// loop's fast copy and 0 in its checked one.
    fn unless_proven(&self, plain: &str, checked: &str) -> String {
        match (self.site, &self.entry) {
            (Some(n), None) => format!("(WS_P({n}) ? {plain} : {checked})"),
            (Some(n), Some(flag)) => format!("((WS_P({n}) || {flag}) ? {plain} : {checked})"),
            (None, Some(flag)) => format!("({flag} ? {plain} : {checked})"),
            (None, None) => checked.to_string(),
        }
    }
}
