//! Rules that cut across the kernel after parsing, one `check_*` per rule.

use crate::ctxt::Ctxt;
use crate::ir::ast::*;
use crate::ir::visit::{visit_children, walk_block, Child};

pub fn check(cx: &Ctxt, f: &Function) {
    check_unique_params(cx, f);
    check_arrays_only_in_let(cx, &f.body, f.ret_rejected);
    check_shared_only_in_let(cx, &f.body);
    check_no_self_call(cx, f);
}

/// `fn fact(n: u32) -> u32 { .. fact(n - 1) .. }`: a function that calls itself. The
/// simulator runs each thread's body as a future, which cannot contain itself, and CUDA's
/// per-thread stack is small and fixed, so recursion is refused here, at the call, rather
/// than as rustc's "recursion in an async fn requires boxing". (A cycle through other
/// functions is invisible to one function's macro and still ends in rustc's error.)
fn check_no_self_call(cx: &Ctxt, f: &Function) {
    walk_block(&f.body, &mut |e| {
        let ExprKind::Call(path, _, _) = &e.kind else {
            return;
        };
        let first = path.segments.first().map(|s| s.ident.to_string());
        let local = path.segments.len() == 1
            || matches!(first.as_deref(), Some("self" | "super" | "crate"));
        if local && path.segments.last().map(|s| &s.ident) == Some(&f.name) {
            cx.error_spanned_by(
                path,
                format!(
                    "`{}` calls itself: kernels and device functions cannot recurse (the GPU's per-thread stack is small and fixed); write the recursion as a loop",
                    f.name
                ),
            );
        }
    });
}

/// `let tile = SharedArray::<f32, 256>::new();` declares the block's array; anywhere else
/// (an argument, an assignment) there would be no name for C's `__shared__` declaration.
fn check_shared_only_in_let(cx: &Ctxt, b: &Block) {
    fn expr(cx: &Ctxt, e: &Expr) {
        if let ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) = e.kind {
            cx.error_at(
                e.span,
                "shared memory is declared by a `let`: `let tile = SharedArray::<f32, 256>::new();`",
            );
        }
        visit_children(e, &mut |c| match c {
            Child::Expr(x) => expr(cx, x),
            Child::Block(b) => block(cx, b),
        });
    }
    fn block(cx: &Ctxt, b: &Block) {
        for s in &b.stmts {
            match s {
                Stmt::Let(l) => match (&l.pat, &l.init) {
                    (
                        Pat::Bind { .. },
                        Some(Expr {
                            kind: ExprKind::SharedArray(_) | ExprKind::DynamicShared(_),
                            ..
                        }),
                    ) => {}
                    (_, Some(i)) => expr(cx, i),
                    (_, None) => {}
                },
                Stmt::Expr(e, _) => expr(cx, e),
            }
        }
        if let Some(t) = &b.tail {
            expr(cx, t)
        }
    }
    block(cx, b);
}

/// `fn k(a: &[f32], a: u32)`: C (and Rust) need distinct parameter names.
fn check_unique_params(cx: &Ctxt, f: &Function) {
    for (i, p) in f.params.iter().enumerate() {
        if f.params[..i].iter().any(|q| q.name == p.name) {
            cx.error_spanned_by(
                &p.name,
                format!("the parameter `{}` is declared twice: rename one", p.name),
            );
        }
    }
}

/// `let a = [0; 4];`, `a = [1, 2, 3, 4];` and a struct literal's field are fine; elsewhere (`f([1, 2])`, a block's
/// value) an array literal would need a C array temporary that nothing names. Where the
/// function's return type was refused (an array), its tail follows from that refusal and
/// is not reported again (`tail_refused`).
fn check_arrays_only_in_let(cx: &Ctxt, b: &Block, tail_refused: bool) {
    fn expr(cx: &Ctxt, e: &Expr, allowed: bool) {
        match &e.kind {
            ExprKind::Array(items) => {
                if !allowed {
                    cx.error_at(
                        e.span,
                        "array literals are only supported as the initial value of a `let` or the value assigned to an array (`a = [0; 4];`)",
                    );
                }
                for i in items {
                    expr(cx, i, allowed);
                }
                return;
            }
            ExprKind::Repeat(v, _) => {
                if !allowed {
                    cx.error_at(
                        e.span,
                        "array literals are only supported as the initial value of a `let` or the value assigned to an array (`a = [0; 4];`)",
                    );
                }
                expr(
                    cx,
                    v,
                    allowed && matches!(v.kind, ExprKind::Repeat(..) | ExprKind::Array(_)),
                );
                return;
            }
            ExprKind::Assign(place, value) => {
                expr(cx, place, false);
                expr(cx, value, true);
                return;
            }
            // `Params { w: [0.0; 3], .. }`: the field is set in place (emit/cuda/structs.rs).
            ExprKind::StructLit(lit) => {
                for (_, v) in &lit.fields {
                    expr(cx, v, true);
                }
                return;
            }
            _ => {}
        }
        visit_children(e, &mut |c| match c {
            Child::Expr(x) => expr(cx, x, false),
            Child::Block(b) => block(cx, b, false),
        });
    }
    fn block(cx: &Ctxt, b: &Block, tail_refused: bool) {
        for s in &b.stmts {
            match s {
                Stmt::Let(l) => {
                    if let Some(i) = &l.init {
                        expr(cx, i, true)
                    }
                }
                Stmt::Expr(e, _) => expr(cx, e, false),
            }
        }
        if let Some(t) = &b.tail {
            expr(cx, t, tail_refused)
        }
    }
    block(cx, b, tail_refused);
}
