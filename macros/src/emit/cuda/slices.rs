//! Borrowed memory in C: a slice is a pointer and a length (`unsigned long long`), as a
//! slice parameter is. `&x` is `x`'s pair; `&x[a..b]` is checked as Rust checks it (`a <=
//! b <= len`; a bad range is recorded as an out-of-bounds index, `ws_range_ok`, and the
//! sub-slice is then empty, so nothing past the memory is touched) and becomes
//! `(x + a, b - a)` in temporaries; `let row = &x[a..b];` names the pair. A sub-slice of
//! shared memory stays shared (its checked accesses use `ws_at_shared`).

use super::{FnWriter, FILE_MARKER};
use crate::ir::ast::*;
use crate::ir::ty::Ty;

impl FnWriter<'_> {
    /// The length of a slice-valued expression as C (`None` where it has none).
    pub(super) fn slice_len_of(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Var(_) => self
                .types
                .var(e)
                .and_then(|v| self.slice_len.get(&v).cloned()),
            ExprKind::Ref(_, inner) => self.slice_len_of(inner),
            ExprKind::SubSlice(_) => self.sub_lens.get(&e.id).cloned(),
            // A row of a 2-D tile: its width.
            ExprKind::Index(base, _) => match self.ty(base) {
                Ty::Rows(_, w) => Some(w.c()),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the memory `e` borrows is shared memory.
    pub(super) fn is_shared(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(_) => self
                .types
                .var(e)
                .is_some_and(|v| self.shared_vars.contains(&v)),
            ExprKind::Ref(_, inner) | ExprKind::Index(inner, _) => self.is_shared(inner),
            ExprKind::SubSlice(s) => self.is_shared(&s.base),
            _ => false,
        }
    }

    /// `&base[start..end]`: the checks, then the pointer (a temporary); its length is
    /// `sub_lens[e.id]`.
    pub(super) fn sub_slice_c(&mut self, e: &Expr, s: &SubSlice) -> String {
        let base = self.value(&s.base);
        let len = self.slice_len_of(&s.base).unwrap_or_else(|| "0ull".into());
        let bounds: Vec<&Expr> = [&s.start, &s.end].into_iter().flatten().collect();
        let vals = self.operands(&bounds);
        let mut vals = vals.into_iter();
        let start = match &s.start {
            Some(_) => vals.next().unwrap_or_default(),
            None => "0ull".into(),
        };
        let end = match &s.end {
            Some(_) => vals.next().unwrap_or_default(),
            None => len.clone(),
        };
        let (lo, hi) = (self.namer.temp(), self.namer.temp());
        self.raw(&format!("unsigned long long {lo} = {start};"));
        self.raw(&format!("unsigned long long {hi} = {end};"));
        if !self.unchecked && !self.range_proven(s) {
            self.raw(&format!(
                "if (!ws_range_ok({lo}, {hi}, {len}, {}u, \"{FILE_MARKER}\")) {{ {lo} = 0ull; {hi} = 0ull; }}",
                e.line
            ));
        }
        let (ptr, n) = (self.namer.temp(), self.namer.temp());
        self.raw(&format!("auto {ptr} = {base} + {lo};"));
        self.raw(&format!("unsigned long long {n} = {hi} - {lo};"));
        self.sub_lens.insert(e.id, n);
        ptr
    }

    /// Whether `start <= end <= len` of `&base[start..end]` is proven, so the range needs
    /// no check (and its length `end - start` is what the C computes from them:
    /// `&tile[a..a + 4096]` is 4096 long, which the helpers it is passed to then fold).
    fn range_proven(&mut self, s: &SubSlice) -> bool {
        let Some(end) = &s.end else {
            return false;
        };
        let lens = self.known_lens(&s.base);
        let prover = self.prover();
        let ordered = s
            .start
            .as_ref()
            .is_none_or(|start| prover.range_ordered(start, end, &lens));
        ordered && lens.iter().any(|len| prover.at_most(end, len))
    }

    /// `let name = &x;` or `let name = &x[a..b];`: the pair, named.
    pub(super) fn let_borrow(&mut self, name: &str, var: VarId, init: &Expr) {
        let ptr = self.value(init);
        let len = self.slice_len_of(init).unwrap_or_else(|| "0ull".into());
        let (cname, clen) = (
            self.namer.fresh(name),
            self.namer.fresh(&format!("{name}_len")),
        );
        self.raw(&format!("auto {cname} = {ptr};"));
        self.raw(&format!("unsigned long long {clen} = {len};"));
        if self.is_shared(init) {
            self.shared_vars.insert(var);
        }
        // `&tile` of a shared array keeps the array's known length for the prover.
        if let ExprKind::Ref(_, inner) = &init.kind {
            if let Some(known) = self
                .types
                .var(inner)
                .and_then(|v| self.shared_len.get(&v).cloned())
            {
                self.shared_len.insert(var, known);
            }
        }
        self.slice_len.insert(var, clen);
        self.bind_var(var, cname);
    }
}
