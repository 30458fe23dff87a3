//! `&x`, `&mut x` and the sub-slices `&x[a..b]` in the type checker. A kernel borrows only
//! memory: a slice, a shared array (1-D, a 2-D tile, atomics) or a row of a tile, by name
//! or as a row (`&tile[r][..]`); the result is that memory, narrowed for a sub-slice.
//! Borrowing a local or a scalar is refused, saying what to write instead.

use super::*;
use crate::ir::ast::SubSlice;

const NOT_MEMORY: &str = "references to locals and scalars are not supported in kernels: pass scalars, arrays and structs by value (`f(x)`), and have a device function that updates a value return the new one (`p = advance(p)`); borrow only slices, shared arrays and their sub-slices (`&mut tile`, `&x[a..b]`)";

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
                let msg = format!(
                    "a 2-D shared tile is sub-sliced by row: `&{}{}[r][a..b]`",
                    if s.mutable { "mut " } else { "" },
                    show_place(&s.base)
                );
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

    /// The memory a slice-valued expression borrows: a parameter or a shared array,
    /// through the locals bound to borrows of it, and the `split_at` halves taken.
    pub(super) fn borrow_root(&self, e: &Expr) -> Option<Root> {
        match &e.kind {
            ExprKind::Var(_) => {
                let v = *self.var_uses.get(&e.id)?;
                Some(self.borrow_roots.get(&v).cloned().unwrap_or(Root {
                    var: v,
                    halves: Vec::new(),
                }))
            }
            ExprKind::Ref(_, inner) | ExprKind::Index(inner, _) => self.borrow_root(inner),
            ExprKind::SubSlice(s) => {
                let mut root = self.borrow_root(&s.base)?;
                root.halves.extend(s.split);
                Some(root)
            }
            _ => None,
        }
    }

    /// Rust's borrow rule for one call: no two arguments borrow the same memory where one
    /// of them may write it (rustc's E0499, E0502), unless they are the two halves of one
    /// `split_at_mut`. The C of a device function takes its slices as `__restrict__`
    /// pointers, which this keeps true.
    pub(super) fn disjoint_arguments(&mut self, args: &[Expr]) {
        let mut seen: Vec<(Root, bool)> = Vec::new();
        for a in args {
            let writes = match self.shallow(&self.expr[a.id].clone()) {
                Ty::Slice(_, w) => w,
                Ty::Rows(..) => true,
                _ => continue,
            };
            let Some(root) = self.borrow_root(a) else {
                continue;
            };
            let clash = seen
                .iter()
                .find(|(r, w)| (writes || *w) && r.overlaps(&root))
                .map(|(_, w)| *w);
            if let Some(earlier_writes) = clash {
                let name = self.vars[root.var]
                    .as_ref()
                    .map(|v| v.name.to_string())
                    .unwrap_or_default();
                let msg = if writes && earlier_writes {
                    format!("cannot borrow `{name}` as mutable more than once at a time: another argument of this call borrows it too (pass `{name}` once and index its parts in the function, or split it with `let (a, b) = {name}.split_at_mut(mid);`)")
                } else {
                    format!("cannot borrow `{name}` as mutable because it is also borrowed as immutable by another argument of this call (pass `{name}` once and index its parts in the function, or split it with `let (a, b) = {name}.split_at_mut(mid);`)")
                };
                self.cx.error_at(a.range(), msg);
            }
            seen.push((root, writes));
        }
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

/// The memory a borrow reaches: a variable (a parameter or a shared array), and the
/// `split_at` halves taken of it, in order (the split's number and the side).
#[derive(Clone)]
pub(super) struct Root {
    pub(super) var: VarId,
    halves: Vec<(usize, u8)>,
}

impl Root {
    /// Whether two borrows may reach one element: the same variable, and one's halves a
    /// prefix of the other's (else they part at one split, on its two sides).
    fn overlaps(&self, other: &Root) -> bool {
        self.var == other.var && self.halves.iter().zip(&other.halves).all(|(a, b)| a == b)
    }
}
