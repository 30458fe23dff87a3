//! Shared memory declarations: `SharedArray::<T, N>::new()` (T a scalar, an atomic such as
//! `AtomicU32`, or a row `[T; W]` for 2-D tiles) and `dynamic_shared::<T>()`.

use super::Parser;
use crate::ir::ast::{ExprKind, SharedDecl};
use crate::ir::ty::{Len, Scalar};

impl Parser<'_> {
    /// `None` when `path` is not a shared-memory call; `Some(None)` when it is one with an
    /// error (already reported).
    pub(super) fn shared_call(
        &mut self,
        path: &syn::Path,
        args: &[crate::ir::ast::Expr],
    ) -> Option<Option<ExprKind>> {
        let segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
        let n = segs.len();
        let named = |i: usize, name: &str| segs[i].ident == name;
        let from_us = |upto: usize| {
            (0..upto).all(|i| named(i, "warpspeed") || named(i, "prelude") || named(i, "kernel"))
        };
        if n >= 2 && named(n - 2, "SharedArray") && from_us(n - 2) {
            if !named(n - 1, "new") {
                self.cx.error_spanned_by(
                    &segs[n - 1].ident,
                    "a shared array is made with `SharedArray::<T, N>::new()`",
                );
                return Some(None);
            }
            if !args.is_empty() {
                self.cx.error_spanned_by(
                    path,
                    "`SharedArray::<T, N>::new()` takes no arguments: shared memory starts uninitialised, as on the GPU; fill it, then `sync_threads()`",
                );
                return Some(None);
            }
            return Some(self.shared_array(segs[n - 2]).map(ExprKind::SharedArray));
        }
        if n >= 1 && named(n - 1, "dynamic_shared") && from_us(n - 1) {
            if !args.is_empty() {
                self.cx.error_spanned_by(
                    path,
                    "`dynamic_shared::<T>()` takes no arguments: its length comes from `LaunchConfig::shared_mem_bytes`",
                );
                return Some(None);
            }
            let syn::PathArguments::AngleBracketed(g) = &segs[n - 1].arguments else {
                self.cx
                    .error_spanned_by(path, "name the element type: `dynamic_shared::<f32>()`");
                return Some(None);
            };
            let ty = match g.args.iter().collect::<Vec<_>>().as_slice() {
                [syn::GenericArgument::Type(t)] => {
                    super::types::parse_scalar(self.cx, &mut self.structs, t)
                }
                _ => {
                    self.cx.error_spanned_by(
                        g,
                        "`dynamic_shared` takes one type: `dynamic_shared::<f32>()`",
                    );
                    None
                }
            };
            return Some(ty.map(ExprKind::DynamicShared));
        }
        None
    }

    fn shared_array(&mut self, seg: &syn::PathSegment) -> Option<SharedDecl> {
        let usage = "write `SharedArray::<T, N>::new()` with a scalar or atomic `T` (or a row `[T; W]` for a 2-D tile) and an integer literal `N`";
        let syn::PathArguments::AngleBracketed(g) = &seg.arguments else {
            self.cx.error_spanned_by(seg, usage);
            return None;
        };
        let items: Vec<&syn::GenericArgument> = g.args.iter().collect();
        let [syn::GenericArgument::Type(elem), len] = items.as_slice() else {
            self.cx.error_spanned_by(g, usage);
            return None;
        };
        let len = self.shared_len(len);
        // A type a `macro_rules!` passed as `$t:ty` arrives wrapped in an invisible group.
        let mut elem: &syn::Type = elem;
        while let syn::Type::Group(g) = elem {
            elem = &g.elem;
        }
        let mbarrier = matches!(elem, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Mbarrier"));
        let (elem, atomic, width) = match elem {
            _ if mbarrier => (Scalar::U64, false, None),
            syn::Type::Array(a) => {
                let inner = super::types::parse_scalar(self.cx, &mut self.structs, &a.elem);
                let width = self.array_len(&a.len, "a row of a 2-D shared array");
                (inner?, false, Some(width?))
            }
            syn::Type::Path(p) if p.qself.is_none() => {
                let name = p.path.segments.last()?.ident.to_string();
                match Scalar::from_atomic_name(&name) {
                    Some(s) => (s, true, None),
                    None => (
                        super::types::parse_scalar(self.cx, &mut self.structs, elem)?,
                        false,
                        None,
                    ),
                }
            }
            other => {
                self.cx.error_spanned_by(other, usage);
                return None;
            }
        };
        let len = len?;
        let decl = SharedDecl {
            elem,
            atomic,
            mbarrier,
            width,
            len,
        };
        // A constant's size is NVRTC's to check (ptxas refuses too much shared data).
        let bytes = decl
            .elements()
            .unwrap_or(0)
            .saturating_mul(u64::from(elem.bits() / 8).max(1));
        if bytes > 48 * 1024 {
            self.cx.error_spanned_by(
                seg,
                format!("this shared array takes {bytes} bytes, more than the 48 KiB a block may declare statically: use `dynamic_shared::<T>()` with `LaunchConfig::shared_mem_bytes` for more"),
            );
            return None;
        }
        Some(decl)
    }

    /// `N` of `SharedArray::<T, N>`: a literal or a module-level constant (which syn reads
    /// as a type: `SharedArray::<u32, N>` cannot tell the two apart).
    fn shared_len(&mut self, arg: &syn::GenericArgument) -> Option<Len> {
        match arg {
            syn::GenericArgument::Const(e) => self.array_len(e, "a shared array"),
            syn::GenericArgument::Type(syn::Type::Path(p))
                if p.qself.is_none() && super::is_const_name(&p.path) =>
            {
                let e = syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: p.path.clone(),
                });
                Some(Len::Const(self.const_ref(&e)))
            }
            _ => {
                self.cx.error_spanned_by(
                    arg,
                    "the length of a shared array must be an integer literal or a constant (the GPU sizes shared memory when the kernel compiles); for a length chosen at launch use `dynamic_shared::<T>()`",
                );
                None
            }
        }
    }
}

/// `256`, `{ 256 }`, `256usize`.
fn literal_len(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => literal_len(e),
            _ => None,
        },
        syn::Expr::Paren(p) => literal_len(&p.expr),
        // `$n` of a `macro_rules!` arrives as an invisible group.
        syn::Expr::Group(g) => literal_len(&g.expr),
        _ => None,
    }
}

impl Parser<'_> {
    /// `tiled_partition::<N>(group)`; `None` when `path` is something else.
    pub(super) fn tiled_partition(
        &mut self,
        path: &syn::Path,
        args: &mut Vec<crate::ir::ast::Expr>,
    ) -> Option<Option<ExprKind>> {
        let seg = path.segments.last()?;
        if seg.ident != "tiled_partition" {
            return None;
        }
        let usage =
            "write `tiled_partition::<N>(this_thread_block())` with N a power of two from 2 to 32";
        let n = match &seg.arguments {
            syn::PathArguments::AngleBracketed(g) => {
                match g.args.iter().collect::<Vec<_>>().as_slice() {
                    [syn::GenericArgument::Const(e)] => literal_len(e),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(n) = n.filter(|n| n.is_power_of_two() && (2..=32).contains(n)) else {
            self.cx.error_spanned_by(seg, usage);
            return Some(None);
        };
        if args.len() != 1 {
            self.cx.error_spanned_by(path, usage);
            return Some(None);
        }
        let group = args.remove(0);
        Some(Some(ExprKind::TiledPartition(n as u32, Box::new(group))))
    }
}
