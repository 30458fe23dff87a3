//! `&x`, `&mut x` and the sub-slices `&x[a..b]` in the type checker. A kernel borrows only
//! memory: a slice, a shared array (1-D, a 2-D tile, atomics) or a row of a tile, by name
//! or as a row (`&tile[r][..]`); the result is that memory, narrowed for a sub-slice.
//! Borrowing a local or a scalar is refused, saying what to write instead.

use super::*;
use crate::ir::ast::SubSlice;

const NOT_MEMORY: &str = "references to locals and scalars are not supported in kernels: pass scalars, arrays and structs by value (`f(x)`); borrow only slices, shared arrays and their sub-slices (`&mut tile`, `&x[a..b]`)";

impl Typeck<'_> {
    /// `&inner` (`mutable`: `&mut inner`).
    pub(super) fn reference(&mut self, e: &Expr, mutable: bool, inner: &Expr) -> Ty {
        let t = self.infer(inner, None);
        let t = self.shallow(&t);
        if matches!(t, Ty::Never) {
            return Ty::Never;
        }
        let memory = matches!(t, Ty::Slice(..) | Ty::Rows(..) | Ty::Atomics(_));
        if !memory || !is_place(inner) {
            self.cx.error_at(e.range(), NOT_MEMORY);
            return Ty::Never;
        }
        match t {
            Ty::Slice(s, writable) => {
                if mutable && !writable {
                    self.read_only(e, inner);
                }
                Ty::Slice(s, mutable)
            }
            Ty::Atomics(s) if mutable => {
                let msg = format!(
                    "atomics are updated through a shared reference: write `&{}`, not `&mut`",
                    show_place(inner)
                );
                self.cx.error_at(e.range(), msg);
                Ty::Atomics(s)
            }
            other => other,
        }
    }

    /// `&base[start..end]` (`&mut` when `s.mutable`).
    pub(super) fn sub_slice(&mut self, e: &Expr, s: &SubSlice) -> Ty {
        let bt = self.infer(&s.base, None);
        for bound in [&s.start, &s.end].into_iter().flatten() {
            let t = self.infer(bound, Some(&Ty::USIZE));
            self.expect(&t, &Ty::USIZE, bound.range());
        }
        let elem = match self.shallow(&bt) {
            Ty::Never => return Ty::Never,
            Ty::Slice(elem, writable) if is_place(&s.base) => {
                if s.mutable && !writable {
                    self.read_only(e, &s.base);
                }
                elem
            }
            Ty::Rows(..) => {
                let msg = format!("a 2-D shared tile is sub-sliced by row: `&{}{}[r][a..b]`", if s.mutable { "mut " } else { "" }, show_place(&s.base));
                self.cx.error_at(e.range(), msg);
                return Ty::Never;
            }
            Ty::Array(..) => {
                self.cx.error_at(e.range(), "sub-slices of local arrays are not supported in kernels: index the array (`a[i]`), or pass it by value to a device function taking `[T; N]`");
                return Ty::Never;
            }
            Ty::Atomics(_) => {
                self.cx.error_at(e.range(), "sub-slices of atomics are not supported in kernels: pass the whole `&[AtomicU32]` and an offset");
                return Ty::Never;
            }
            _ => {
                self.cx.error_at(e.range(), "only slices and shared arrays are sub-sliced in kernels (`&x[a..b]` of a `&[T]` parameter, a `SharedArray` or a row of a tile)");
                return Ty::Never;
            }
        };
        Ty::Slice(elem, s.mutable)
    }

    /// `&mut` of memory the function may only read.
    fn read_only(&mut self, e: &Expr, base: &Expr) {
        let msg = format!(
            "cannot borrow `{}` as mutable: it is a `&[T]`; declare the parameter `&mut [T]` to write through it",
            show_place(base)
        );
        self.cx.error_at(e.range(), msg);
    }
}

/// A name or a row of one (`x`, `tile[r]`): memory that stays where it is.
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Index(base, _) => is_place(base),
        ExprKind::SubSlice(s) => is_place(&s.base),
        _ => false,
    }
}

/// How a place reads in a message (`tile[..]` for a row).
fn show_place(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(name) => name.to_string(),
        ExprKind::Index(base, _) => format!("{}[..]", show_place(base)),
        ExprKind::SubSlice(s) => format!("{}[..]", show_place(&s.base)),
        _ => "x".into(),
    }
}
