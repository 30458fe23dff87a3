//! Statements: `let`, assignments, `if`, loops (ranges lowered to counted `while` loops
//! that match Rust's iterator semantics), `break`/`continue` (labels become `goto`),
//! `return`; and blocks whose value goes somewhere ([`Dest`]).

use super::{c_decl, FnWriter};
use crate::ir::ast::*;
use crate::ir::ty::{Len, Ty};

/// Where the value of a block goes.
pub enum Dest {
    /// Dropped (statement position, or a `()` block).
    Discard,
    /// Assigned to this C variable.
    Assign(String),
    /// Returned from the device function.
    Return,
}

impl<'a> FnWriter<'a> {
    /// The statements and tail of `b`, without braces.
    pub(super) fn block_body(&mut self, b: &Block, dest: &Dest) {
        let facts = self.facts.mark();
        let scope = self.scope.len();
        for s in &b.stmts {
            match s {
                Stmt::Let(l) => self.let_stmt(l),
                Stmt::Expr(e, _) => {
                    self.expr_stmt(e);
                    // `if x >= n { return; }`: the rest of the block has `x < n`.
                    if let ExprKind::If(c, then, None) = &e.kind {
                        if diverges(then) {
                            self.prover().assume(c, false);
                        }
                    }
                }
            }
        }
        if let Some(tail) = &b.tail {
            let t = self.ty(tail).clone();
            match dest {
                _ if matches!(t, Ty::Never | Ty::Unit) => self.expr_stmt(tail),
                Dest::Discard => self.expr_stmt(tail),
                Dest::Assign(target) => {
                    self.line_directive(tail.line);
                    let v = self.value(tail);
                    self.store(target, &t, &v);
                }
                Dest::Return => {
                    self.line_directive(tail.line);
                    let v = self.value(tail);
                    self.raw(&format!("return {v};"));
                }
            }
        }
        self.facts.reset(facts);
        self.scope.truncate(scope);
    }

    /// `{ ... }` as a C compound statement.
    pub(super) fn braced(&mut self, b: &Block, dest: &Dest) {
        self.raw("{");
        self.indent += 1;
        self.block_body(b, dest);
        self.indent -= 1;
        self.raw("}");
    }

    fn let_stmt(&mut self, l: &Let) {
        self.line_directive(l.span.start().line);
        match &l.pat {
            Pat::Bind { name, var, .. } => {
                let ty = self.types.vars[*var].ty.clone();
                let init = l.init.as_ref();
                if let Ty::Group(_) = ty {
                    return; // known at compile time: nothing to store
                }
                if let Some(ExprKind::SharedArray(d)) = init.map(|i| &i.kind) {
                    // Static per block, as every thread of the block sees it.
                    let cname = self.namer.fresh(&name.to_string());
                    let rows = match &d.len {
                        Len::Lit(n) => n.to_string(),
                        Len::Const(c) => c.c_name(),
                    };
                    let dims = match &d.width {
                        Some(Len::Lit(w)) => format!("[{rows}][{w}]"),
                        Some(Len::Const(w)) => format!("[{rows}][{}]", w.c_name()),
                        None => format!("[{rows}]"),
                    };
                    // A TMA destination needs 128 or 1024 bytes (the swizzle's pattern), a
                    // wgmma tile 1024; an mbarrier its own 8 (ws_mbarrier's alignment), so
                    // that a kernel's barriers take bytes, not kilobytes, of shared memory.
                    let align = if d.mbarrier {
                        ""
                    } else if self.wgmma || self.tma {
                        "__align__(1024) "
                    } else if self.ldmatrix {
                        "__align__(16) "
                    } else {
                        ""
                    };
                    let elem = if d.mbarrier {
                        "ws_mbarrier"
                    } else {
                        d.elem.c_name()
                    };
                    self.raw(&format!("__shared__ {align}{elem} {cname}{dims};"));
                    self.slice_len.insert(*var, d.len.c());
                    self.shared_len
                        .insert(*var, crate::analysis::proof::array_len(&d.len));
                    self.shared_vars.insert(*var);
                    self.bind_var(*var, cname);
                    return;
                }
                if let Some(ExprKind::DynamicShared(s)) = init.map(|i| &i.kind) {
                    let cname = self.namer.fresh(&name.to_string());
                    let len = self.namer.fresh(&format!("{name}_len"));
                    let c = s.c_name();
                    self.raw(&format!("{c}* {cname} = ws_dynamic_shared<{c}>();"));
                    self.raw(&format!(
                        "unsigned long long {len} = ws_dynamic_shared_len<{c}>();"
                    ));
                    self.slice_len.insert(*var, len);
                    self.shared_vars.insert(*var);
                    self.bind_var(*var, cname);
                    return;
                }
                if let Some(
                    i @ Expr {
                        kind: ExprKind::Ref(..) | ExprKind::SubSlice(_),
                        ..
                    },
                ) = init
                {
                    self.let_borrow(&name.to_string(), *var, i);
                    return;
                }
                // Arrays are initialised in place (C arrays cannot be assigned).
                if let (Ty::Array(..), Some(init)) = (&ty, init) {
                    let cname = self.namer.fresh(&name.to_string());
                    self.array_init(&ty, &cname, init);
                    self.bind_var(*var, cname);
                    return;
                }
                let value = init.map(|i| self.value(i));
                // Named after the value is computed: `let x = x + 1;` reads the old `x`.
                let cname = self.namer.fresh(&name.to_string());
                let decl = c_decl(&ty, &cname);
                match value {
                    Some(v) => self.raw(&format!("{decl} = {v};")),
                    None => self.raw(&format!("{decl};")),
                }
                self.bind_var(*var, cname);
                if let Some(init) = init {
                    self.prover().define(*var, init);
                }
            }
            Pat::Wild => {
                if let Some(init) = &l.init {
                    self.expr_stmt(init);
                }
            }
            Pat::Tuple(..) => {
                let Some(init) = &l.init else { return };
                let ty = self.ty(init).clone();
                let v = self.value(init);
                let tmp = self.hoist(&ty, &v);
                self.bind_tuple(&l.pat, &tmp);
                self.define_tuple(&l.pat, init);
            }
        }
    }

    /// What the prover learns from `let (a, b) = (x, y)`: `a` is bounded as `x` is, `b` as
    /// `y` (nested tuples too). A tuple from elsewhere (a call's result) says nothing.
    fn define_tuple(&mut self, pat: &Pat, init: &Expr) {
        match (pat, &init.kind) {
            (Pat::Bind { var, .. }, _) => self.prover().define(*var, init),
            (Pat::Tuple(items, _), ExprKind::Tuple(values)) if items.len() == values.len() => {
                for (p, v) in items.iter().zip(values) {
                    self.define_tuple(p, v);
                }
            }
            _ => {}
        }
    }

    fn bind_tuple(&mut self, pat: &Pat, from: &str) {
        match pat {
            Pat::Bind { name, var, .. } => {
                let ty = self.types.vars[*var].ty.clone();
                let cname = self.namer.fresh(&name.to_string());
                self.raw(&format!("{} = {from};", c_decl(&ty, &cname)));
                self.bind_var(*var, cname);
            }
            Pat::Wild => {}
            Pat::Tuple(items, _) => {
                for (i, p) in items.iter().enumerate() {
                    self.bind_tuple(p, &format!("{from}._{i}"));
                }
            }
        }
    }

    /// `let a = [v; N]` / `let a = [x, y]`: declare, then fill.
    pub(super) fn array_init(&mut self, ty: &Ty, cname: &str, init: &Expr) {
        match &init.kind {
            ExprKind::Array(_) => {
                let list = self.array_list(init);
                self.raw(&format!("{} = {list};", c_decl(ty, cname)));
            }
            ExprKind::Repeat(..) => {
                // `[[v; M]; N]`: Rust evaluates `v` once and copies it everywhere.
                let mut dims = Vec::new();
                let mut inner = init;
                while let ExprKind::Repeat(v, n) = &inner.kind {
                    dims.push(n.c());
                    inner = v;
                }
                let elem_ty = self.ty(inner).clone();
                let v = self.value(inner);
                let v = if is_c_literal(&v) {
                    v
                } else {
                    self.hoist(&elem_ty, &v)
                };
                self.raw(&format!("{};", c_decl(ty, cname)));
                let mut index = String::new();
                for n in &dims {
                    let i = self.namer.temp();
                    self.raw(&format!(
                        "for (unsigned long long {i} = 0; {i} < {n}; ++{i}) {{"
                    ));
                    self.indent += 1;
                    index.push_str(&format!("[{i}]"));
                }
                self.store(&format!("{cname}{index}"), &elem_ty, &v);
                for _ in &dims {
                    self.indent -= 1;
                    self.raw("}");
                }
            }
            // Another array (`let b = a;`, a block's or a branch's value): a copy.
            _ => {
                let v = self.value(init);
                self.raw(&format!("{};", c_decl(ty, cname)));
                self.store(cname, ty, &v);
            }
        }
    }

    /// A braced initializer list for `[a, b, [c, d]]` (evaluated left to right in C++).
    fn array_list(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Array(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.array_list(i)).collect();
                format!("{{{}}}", parts.join(", "))
            }
            _ => self.value(e),
        }
    }

    /// An expression whose value is not used.
    pub(super) fn expr_stmt(&mut self, e: &Expr) {
        self.line_directive(e.line);
        match &e.kind {
            ExprKind::If(cond, then, els) => {
                self.if_stmt(cond, then, els.as_deref(), &Dest::Discard)
            }
            ExprKind::Block(b) => self.braced(b, &Dest::Discard),
            ExprKind::Match(s, arms) => self.match_stmt(s, arms, &Dest::Discard),
            ExprKind::While(label, cond, body) => self.while_stmt(label, cond, body),
            ExprKind::Loop(label, body) => {
                self.entering_loop(body);
                self.raw("for (;;) {");
                self.loop_body(label, body);
            }
            ExprKind::For(label, pat, range, body) => self.for_stmt(label, pat, range, body),
            ExprKind::Assign(place, value)
                if matches!(value.kind, ExprKind::Array(_) | ExprKind::Repeat(..)) =>
            {
                // `a = [1, 2, 3];`: the literal in a temporary array, then copied.
                let ty = self.ty(value).clone();
                let tmp = self.namer.temp();
                self.array_init(&ty, &tmp, value);
                let p = self.place(place);
                self.store(&p, &ty, &tmp);
                self.assigned(place);
            }
            ExprKind::Assign(place, value) => {
                // Rust evaluates the value, then the place.
                let v = self.value(value);
                let v = if super::effect::effect(self.types, place) > 0 {
                    self.hoist(&self.ty(value).clone(), &v)
                } else {
                    v
                };
                let p = self.place(place);
                let t = self.ty(place).clone();
                self.store(&p, &t, &v);
                self.assigned(place);
            }
            ExprKind::AssignOp(op, place, value) => {
                let v = self.value(value);
                let v = if super::effect::effect(self.types, place) > 0 {
                    self.hoist(&self.ty(value).clone(), &v)
                } else {
                    v
                };
                let p = self.place(place);
                let pt = self.ty(place).clone();
                let vt = self.ty(value).clone();
                let combined = self.binary_c(*op, &pt, &p, &vt, &v);
                self.raw(&format!("{p} = {combined};"));
                self.assigned(place);
            }
            ExprKind::Return(v) => match v {
                Some(v) => {
                    let v = self.value(v);
                    self.raw(&format!("return {v};"));
                }
                None if self.call_record == super::CallRecord::Held => self.raw(&format!(
                    "{{ ws_defer_flush({}); return; }}",
                    super::CALL_RECORD
                )),
                None => self.raw("return;"),
            },
            ExprKind::Break(label) => {
                let s = self.jump(label, true);
                self.raw(&s);
            }
            ExprKind::Continue(label) => {
                let s = self.jump(label, false);
                self.raw(&s);
            }
            _ => {
                let v = self.value(e);
                if super::effect::effect(self.types, e) > 0 {
                    if matches!(self.ty(e), Ty::Unit) {
                        self.raw(&format!("{v};")); // `__syncthreads();`
                    } else {
                        self.raw(&format!("(void)({v});"));
                    }
                }
            }
        }
    }

    /// `e` with its value going to `dest` (a block's tail, a branch, a `match` arm).
    pub(super) fn value_to(&mut self, e: &Expr, dest: &Dest) {
        match &e.kind {
            ExprKind::Block(b) => self.block_body(b, dest),
            ExprKind::If(c, t, els) => self.if_stmt(c, t, els.as_deref(), dest),
            ExprKind::Match(s, arms) => self.match_stmt(s, arms, dest),
            _ if matches!(dest, Dest::Discard) || matches!(self.ty(e), Ty::Unit | Ty::Never) => {
                self.expr_stmt(e)
            }
            _ => {
                self.line_directive(e.line);
                let v = self.value(e);
                let ty = self.ty(e).clone();
                match dest {
                    Dest::Assign(t) => self.store(t, &ty, &v),
                    Dest::Return => self.raw(&format!("return {v};")),
                    Dest::Discard => {}
                }
            }
        }
    }

    /// `if` in statement position, or with its value going to `dest`.
    pub(super) fn if_stmt(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>, dest: &Dest) {
        let c = self.value(cond);
        self.raw(&format!("if ({}) {{", strip_parens(&c)));
        self.indent += 1;
        let facts = self.facts.mark();
        self.prover().assume(cond, true);
        self.block_body(then, dest);
        self.facts.reset(facts);
        self.indent -= 1;
        match els {
            None => self.raw("}"),
            Some(e) => {
                self.raw("} else {");
                self.indent += 1;
                self.prover().assume(cond, false);
                self.value_to(e, dest);
                self.facts.reset(facts);
                self.indent -= 1;
                self.raw("}");
            }
        }
    }

    fn push_loop(&mut self, label: &Option<proc_macro2::Ident>) {
        self.labels += 1;
        let n = self.labels;
        self.loops.push(super::LoopLabels {
            rust: label.as_ref().map(|l| l.to_string()),
            brk: format!("ws_break_{n}"),
            cont: format!("ws_continue_{n}"),
            used_brk: false,
            used_cont: false,
        });
    }

    /// The body of a C loop whose header is already written; closes it.
    fn loop_body(&mut self, label: &Option<proc_macro2::Ident>, body: &Block) {
        self.push_loop(label);
        self.indent += 1;
        // A labelled loop may be the target of `goto`: its body gets its own scope so the
        // jump to the continue label at its end bypasses no initialisation (C++ forbids that).
        if label.is_some() {
            self.braced(body, &Dest::Discard);
        } else {
            self.block_body(body, &Dest::Discard);
        }
        let frame = self.loops.pop().unwrap();
        if frame.used_cont {
            self.raw(&format!("{}: ;", frame.cont));
        }
        self.indent -= 1;
        self.raw("}");
        if frame.used_brk {
            self.raw(&format!("{}: ;", frame.brk));
        }
    }

    /// `break`/`continue`: plain for the innermost loop, `goto` for a labelled outer one.
    fn jump(&mut self, label: &Option<proc_macro2::Ident>, is_break: bool) -> String {
        let idx = match label {
            None => self.loops.len().checked_sub(1),
            Some(l) => {
                let name = l.to_string();
                self.loops
                    .iter()
                    .rposition(|f| f.rust.as_deref() == Some(name.as_str()))
            }
        };
        let Some(idx) = idx else {
            return "/* unreachable jump */".into();
        };
        if idx + 1 == self.loops.len() {
            return if is_break {
                "break;".into()
            } else {
                "continue;".into()
            };
        }
        let frame = &mut self.loops[idx];
        if is_break {
            frame.used_brk = true;
            format!("goto {};", frame.brk)
        } else {
            frame.used_cont = true;
            format!("goto {};", frame.cont)
        }
    }

    /// A variable assigned (or a lane of one, `v.x = ..`): the prover forgets what it knew
    /// of its old value.
    fn assigned(&mut self, place: &Expr) {
        let place = match &place.kind {
            ExprKind::Field(base, _) => base,
            _ => place,
        };
        if let Some(v) = self.types.var(place) {
            self.facts.assigned(v);
        }
    }

    /// Before a loop's body: each variable the body assigns counts as assigned already,
    /// since a later iteration sees what an earlier one did.
    fn entering_loop(&mut self, body: &Block) {
        for v in super::version::assigned_vars(self.types, body) {
            self.facts.assigned(v);
        }
    }

    fn while_stmt(&mut self, label: &Option<proc_macro2::Ident>, cond: &Expr, body: &Block) {
        self.entering_loop(body);
        if super::effect::effect(self.types, cond) < 2 {
            let c = self.value(cond);
            self.raw(&format!("while ({}) {{", strip_parens(&c)));
            // The body starts where the condition held (`while i < n { s[i] .. }`); an
            // assignment in it ends what was known of the variable.
            let facts = self.facts.mark();
            self.prover().assume(cond, true);
            self.loop_body(label, body);
            self.facts.reset(facts);
            // Left only when the condition failed, if nothing breaks out of it.
            let mut breaks = false;
            super::walk_block(body, &mut |e| {
                breaks |= matches!(e.kind, ExprKind::Break(_));
            });
            if !breaks {
                self.prover().assume(cond, false);
            }
        } else {
            // The condition needs statements: evaluate it at the top of each iteration.
            self.raw("for (;;) {");
            self.indent += 1;
            let c = self.value(cond);
            self.raw(&format!("if (!({c})) break;"));
            self.indent -= 1;
            self.loop_body(label, body);
        }
    }

    /// Whether the loop runs over constant bounds (literals, or arithmetic of literals such
    /// as a macro's `128 / 2`; at most 256 steps) and its body indexes a fragment's
    /// elements `frag.x[..]`.
    fn indexes_fragment(&self, r: &RangeLoop, body: &Block) -> bool {
        let (Some(a), Some(b)) = (constant_int(&r.start), constant_int(&r.end)) else {
            return false;
        };
        if b.saturating_sub(a) > 256 || r.step.is_some() {
            return false;
        }
        let mut found = false;
        crate::ir::visit::walk_block(body, &mut |e| {
            if let ExprKind::Index(base, _) = &e.kind {
                if let ExprKind::Field(recv, _) = &base.kind {
                    found |= matches!(self.ty(recv), Ty::Fragment(_));
                }
            }
        });
        found
    }

    /// `for i in a..b` (with `..=`, `.step_by(k)`, `.rev()`): the range is evaluated once,
    /// then walked without ever overflowing, as Rust's range iterators do. The next value
    /// is computed before the body, so `continue` needs no special case.
    fn for_stmt(
        &mut self,
        label: &Option<proc_macro2::Ident>,
        pat: &Pat,
        r: &RangeLoop,
        body: &Block,
    ) {
        let t = self.ty(&r.start).clone();
        let scope = self.scope.len();
        let mut named = [None; 2];
        let [start, end] = [(&r.start, 0), (&r.end, 1)].map(|(e, i)| {
            let v = self.value(e);
            let c = self.hoist(&t, &v);
            // An end read from memory becomes a variable of the prover's, held by the
            // temporary: `val[k]` for `k < row_ptr[row + 1]` is then proven at the loop's
            // entry as it is with a `let end`.
            if self.prover().range_end(r.ends[i], e) {
                self.bind_var(r.ends[i], c.clone());
                named[i] = Some(r.ends[i]);
            }
            c
        });
        let step = match &r.step {
            Some(k) => {
                let v = self.value(k);
                self.hoist(&Ty::USIZE, &v)
            }
            None => "1ull".into(),
        };
        self.begin_entry_version(body);
        self.range_loop(label, pat, r, named, body, [&start, &end, &step]);
        self.end_entry_version();
        self.scope.truncate(scope);
    }

    /// The C loop of `for_stmt`, its range's ends and step hoisted.
    fn range_loop(
        &mut self,
        label: &Option<proc_macro2::Ident>,
        pat: &Pat,
        r: &RangeLoop,
        named: [Option<VarId>; 2],
        body: &Block,
        [start, end, step]: [&str; 3],
    ) {
        let t = self.ty(&r.start).clone();
        let s = t.scalar().unwrap_or(crate::ir::ty::Scalar::I32);
        let ct = s.c_name();
        let u = if s.bits() == 64 {
            "unsigned long long"
        } else {
            "unsigned int"
        };
        let cur = self.namer.temp();
        // Right before the C loop it applies to. A loop over literal bounds that indexes a
        // fragment's elements (`acc.x[i]`) is unrolled unless it says otherwise: a fragment
        // lives in registers only while every index into it is a constant, and a rolled
        // loop over a Hopper accumulator put all its 128 floats on the stack (measured:
        // the checked Hopper GEMM, 512 bytes of stack frame, 1.27x its unchecked time).
        let unroll = r
            .unroll
            .or_else(|| self.indexes_fragment(r, body).then_some(Unroll::Full));
        let pragma = unroll.map(|u| match u {
            Unroll::Full => "#pragma unroll".to_string(),
            Unroll::By(k) => format!("#pragma unroll {k}"),
        });
        if !r.rev && !r.inclusive && r.step.is_none() {
            // `a..b`: C's own counting loop, which NVRTC can unroll (its trip count is
            // plain to see). `cur < end` before each step keeps `cur + 1` from overflowing.
            if let Some(p) = &pragma {
                self.raw(p);
            }
            self.raw(&format!(
                "for ({ct} {cur} = {start}; {cur} < {end}; {cur} = ({ct})({cur} + 1)) {{"
            ));
            self.indent += 1;
            self.bind_loop_var(pat, &t, &cur);
            self.indent -= 1;
            self.range_body(label, pat, r, named, body);
            return;
        }
        let go = self.namer.temp();
        let cmp = if r.inclusive { "<=" } else { "<" };
        let nonzero = if r.step.is_some() {
            format!(" && {step} != 0ull")
        } else {
            String::new()
        };
        self.raw(&format!("bool {go} = {start} {cmp} {end}{nonzero};"));
        if !r.rev {
            self.raw(&format!("{ct} {cur} = {start};"));
            if let Some(p) = &pragma {
                self.raw(p);
            }
            self.raw(&format!("while ({go}) {{"));
            self.indent += 1;
            self.bind_loop_var(pat, &t, &cur);
            // Another element exists while (end - cur) > k (or >= k for `..=`).
            let more = if r.inclusive { ">=" } else { ">" };
            self.raw(&format!(
                "if ((unsigned long long)({u})(({u}){end} - ({u}){cur}) {more} {step}) {cur} = ({ct})(({u}){cur} + ({u}){step}); else {go} = false;"
            ));
        } else {
            // Walk down from the last element of the forward sequence.
            let top = if r.inclusive {
                end.to_string()
            } else {
                format!("({ct})(({u}){end} - 1u)")
            };
            if r.step_then_rev {
                self.raw(&format!(
                    "{ct} {cur} = {go} ? ({ct})(({u}){start} + ({u})((unsigned long long)({u})(({u}){top} - ({u}){start}) / {step} * {step})) : {start};"
                ));
            } else {
                self.raw(&format!("{ct} {cur} = {go} ? {top} : {start};"));
            }
            if let Some(p) = &pragma {
                self.raw(p);
            }
            self.raw(&format!("while ({go}) {{"));
            self.indent += 1;
            self.bind_loop_var(pat, &t, &cur);
            self.raw(&format!(
                "if ((unsigned long long)({u})(({u}){cur} - ({u}){start}) >= {step}) {cur} = ({ct})(({u}){cur} - ({u}){step}); else {go} = false;"
            ));
        }
        self.indent -= 1;
        self.range_body(label, pat, r, named, body);
    }

    /// The body of a `for` loop whose C header is written: what the loop variable is
    /// known to be (between the range's ends), then the body, and the loop closed.
    fn range_body(
        &mut self,
        label: &Option<proc_macro2::Ident>,
        pat: &Pat,
        r: &RangeLoop,
        named: [Option<VarId>; 2],
        body: &Block,
    ) {
        self.entering_loop(body);
        let facts = self.facts.mark();
        if let Pat::Bind { var, .. } = pat {
            self.prover().loop_var(
                *var,
                [&r.start, &r.end],
                named,
                r.inclusive,
                r.step.as_deref(),
            );
        }
        self.loop_body(label, body);
        self.facts.reset(facts);
    }

    fn bind_loop_var(&mut self, pat: &Pat, t: &Ty, cur: &str) {
        if let Pat::Bind { name, var, .. } = pat {
            let cname = self.namer.fresh(&name.to_string());
            self.raw(&format!("const {} = {cur};", c_decl(t, &cname)));
            self.bind_var(*var, cname);
        }
    }
}

/// Whether `b` always leaves the code after it: it ends in `return`, `break` or `continue`.
fn diverges(b: &Block) -> bool {
    let last = match (&b.tail, b.stmts.last()) {
        (Some(t), _) => Some(&**t),
        (None, Some(Stmt::Expr(e, _))) => Some(e),
        _ => None,
    };
    last.is_some_and(|e| {
        matches!(
            e.kind,
            ExprKind::Return(_) | ExprKind::Break(_) | ExprKind::Continue(_)
        )
    })
}

/// Whether `s` is a C literal (so it may be repeated instead of stored in a temporary).
pub(super) fn is_c_literal(s: &str) -> bool {
    let s = s.trim_start_matches('(').trim_end_matches(')');
    !s.is_empty()
        && (s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+')
            && s.starts_with(|c: char| c.is_ascii_digit() || c == '-')
            || s == "true"
            || s == "false")
}

fn strip_parens(s: &str) -> &str {
    if s.starts_with('(') && s.ends_with(')') {
        // Only when the outer parentheses match each other.
        let inner = &s[1..s.len() - 1];
        let mut depth = 0i32;
        for ch in inner.chars() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth < 0 {
                        return s;
                    }
                }
                _ => {}
            }
        }
        if depth == 0 {
            return inner;
        }
    }
    s
}

/// The value of an integer expression of literals (`+`, `-`, `*`, `/`, `%`, parentheses),
/// if it has one without overflow or division by zero.
fn constant_int(e: &Expr) -> Option<u128> {
    match &e.kind {
        ExprKind::Lit(Lit::Int(v, _)) => Some(*v),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (constant_int(a)?, constant_int(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem => a.checked_rem(b),
                _ => None,
            }
        }
        _ => None,
    }
}
