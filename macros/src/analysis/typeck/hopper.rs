//! Hopper's mbarriers and TMA in the type checker (`ir/mbarrier.rs` has the methods,
//! `ir/intrinsics.rs` `tma_load_2d`'s row): a method on an element of a
//! `SharedArray::<Mbarrier, N>`, and `tma_load_2d`'s destination, map and barrier
//! arguments, each refused at its own tokens with what to write instead.

use super::*;
use crate::ir::mbarrier::MbarMethod;

impl Typeck<'_> {
    /// `bars[i].name(args)` on a `SharedArray::<Mbarrier, N>` (`idx` typed already).
    pub(super) fn mbarrier_method(&mut self, e: &Expr, name: &Ident, args: &[Expr]) -> Ty {
        let Some(m) = MbarMethod::from_name(&name.to_string()) else {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                name.span(),
                format!("no method `{name}` on an `Mbarrier`: it has `init(count)`, `arrive()`, `arrive_expect_tx(bytes)`, `wait(parity)` and `try_wait(parity)`"),
            );
            return Ty::Never;
        };
        let want = usize::from(m.arg().is_some());
        if args.len() != want {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                e.range(),
                format!(
                    "`{name}` takes {want} argument(s), {} given: {}",
                    args.len(),
                    m.signature()
                ),
            );
            return Ty::Never;
        }
        for a in args {
            let t = self.infer(a, Some(&Ty::U32));
            self.expect(&t, &Ty::U32, a.range());
        }
        self.calls.insert(e.id, Call::Mbarrier(m));
        if m.gives_bool() {
            Ty::BOOL
        } else {
            Ty::Unit
        }
    }

    /// One argument of `tma_load_2d` of kind `kind`; `dst` is the destination's type once
    /// known (the map's element type must be its element type).
    pub(super) fn tma_argument(&mut self, kind: ParamKind, a: &Expr, dst: &mut Option<Scalar>) {
        match kind {
            ParamKind::TmaDst => {
                let t = self.infer(a, None);
                let shared = self
                    .borrow_root(a)
                    .is_some_and(|r| self.shared_decls.contains(&r.var));
                match self.shallow(&t) {
                    Ty::Never => {}
                    Ty::Slice(s, true) if shared && !s.is_struct() => *dst = Some(s),
                    other => {
                        let why = match &other {
                            Ty::Slice(_, false) if shared => ", read-only: borrow it with `&mut`",
                            Ty::Slice(..) => " of global memory",
                            _ => "",
                        };
                        let msg = format!("`tma_load_2d` copies into shared memory: pass `&mut tile[a..b]` of a `let tile = SharedArray::<T, N>::new();` or of `dynamic_shared::<T>()`, and this is `{}`{why}", self.show(&other));
                        self.cx.error_at(a.range(), msg);
                    }
                }
            }
            ParamKind::TensorMap => {
                let t = self.infer(a, None);
                match self.shallow(&t) {
                    Ty::Never => {}
                    Ty::TensorMap(s) => {
                        if let Some(d) = dst.filter(|d| *d != s) {
                            let msg = format!("`tma_load_2d` copies between one element type: the tile holds `{}` and this map `{}` (declare the parameter `&TensorMap<{}>`)", d.rust_name(), s.rust_name(), d.rust_name());
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                    other => {
                        let msg = format!("`tma_load_2d` reads a tensor map: pass a kernel parameter `map: &TensorMap<T>` (made on the host with `TensorMap::tiled_2d`), and this is `{}`", self.show(&other));
                        self.cx.error_at(a.range(), msg);
                    }
                }
            }
            _ => {
                // The barrier: `&bars[i]`.
                let place = match &a.kind {
                    ExprKind::Ref(false, inner) => match &inner.kind {
                        ExprKind::Index(base, idx) => Some((inner, base, idx)),
                        _ => None,
                    },
                    _ => None,
                };
                let usage = "`tma_load_2d` completes its bytes on an mbarrier: pass `&bars[i]` of a `let bars = SharedArray::<Mbarrier, N>::new();`";
                if let Some((inner, base, idx)) = place {
                    let bt = self.infer(base, None);
                    let it = self.infer(idx, Some(&Ty::USIZE));
                    self.expect(&it, &Ty::USIZE, idx.range());
                    self.record(inner, Ty::Never);
                    self.record(a, Ty::Never);
                    match self.shallow(&bt) {
                        Ty::Mbarriers | Ty::Never => {}
                        other => {
                            let msg = format!(
                                "{usage}, and this is an element of `{}`",
                                self.show(&other)
                            );
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                    return;
                }
                let t = self.infer(a, None);
                if self.shallow(&t) != Ty::Never {
                    let msg = format!("{usage}, and this is `{}`", self.show(&t));
                    self.cx.error_at(a.range(), msg);
                }
            }
        }
    }
}
