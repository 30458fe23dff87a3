//! Hopper's mbarriers and TMA in the CUDA C: `bars[i].wait(p)` is
//! `ws_mbarrier_wait(&bars[i], p)` (the element's address, bounds-checked as any index),
//! `tma_load_2d(dst, map, row, col, &bars[i])` is `ws_tma_load_2d` with the tile's pointer
//! and length, the map's address and box word, and the barrier's address
//! (prelude_hopper.cuh).

use super::*;
use crate::ir::mbarrier::MbarMethod;

impl FnWriter<'_> {
    /// `bars[i].name(args)` -> `ws_mbarrier_name(&bars[i], args)`.
    pub(super) fn mbarrier_c(&mut self, m: MbarMethod, recv: &Expr, args: &[Expr]) -> String {
        let ExprKind::Index(base, idx) = &recv.kind else {
            return "0".into();
        };
        let mut ops: Vec<&Expr> = vec![base, idx];
        ops.extend(args.iter());
        let v = self.operands(&ops);
        let mut c_args = vec![self.elem_ptr(&v[0], base, idx, &v[1], recv.line)];
        c_args.extend(v[2..].iter().cloned());
        format!("{}({})", m.c_name(), c_args.join(", "))
    }

    /// `tma_load_2d(dst, map, row, col, &bars[i])`.
    pub(super) fn tma_c(&mut self, e: &Expr, args: &[Expr]) -> String {
        let [dst, map, row, col, bar] = args else {
            return "0".into();
        };
        let ExprKind::Ref(_, place) = &bar.kind else {
            return "0".into();
        };
        let ExprKind::Index(base, idx) = &place.kind else {
            return "0".into();
        };
        let v = self.operands(&[dst, map, row, col, base, idx]);
        let len = self.slice_len_of(dst).unwrap_or_else(|| "0ull".into());
        let word = self
            .types
            .var(map)
            .and_then(|var| self.tma_box.get(&var).cloned())
            .unwrap_or_else(|| "0ull".into());
        let bar = self.elem_ptr(&v[4], base, idx, &v[5], bar.line);
        format!(
            "ws_tma_load_2d({}, {len}, &{}, {word}, {}, {}, {bar}, {}u, \"{FILE_MARKER}\")",
            v[0], v[1], v[2], v[3], e.line
        )
    }
}
