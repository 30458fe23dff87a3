//! How much the C writer must do to evaluate an expression in its place: nothing (a pure C
//! expression), keep its order against other calls, or write statements before it. The
//! expression and statement writers both ask; it asks neither.

use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::call::Call;

/// 0: pure; 1: calls a device function; 2: needs C statements before it.
/// Linear in the size of `e` (an `if` asks its children once, never again through
/// `ternary_able`: nested `if`s were exponential).
pub fn effect(types: &Types, e: &Expr) -> u8 {
    let own = match &e.kind {
        ExprKind::Block(b) if !b.stmts.is_empty() || b.tail.is_none() => 2,
        ExprKind::While(..)
        | ExprKind::Match(..)
        | ExprKind::Loop(..)
        | ExprKind::For(..)
        | ExprKind::Return(_)
        | ExprKind::Break(_)
        | ExprKind::Continue(_)
        | ExprKind::Assign(..)
        | ExprKind::AssignOp(..)
        | ExprKind::SubSlice(_) => 2,
        ExprKind::Call(..) => 1,
        ExprKind::Intrinsic(i, _) if i.has_effect() => 1,
        // Atomic methods (`a[i].fetch_add(..)`) and shared declarations change memory. Any
        // method on an element counts (the atomics' receiver is an element), as it always
        // has: the order of the C it gives stays as it was.
        ExprKind::Method(recv, ..) if matches!(recv.kind, ExprKind::Index(..)) => 1,
        // Group collectives (`tile.shfl(..)`, `block.sync()`) keep their order.
        ExprKind::Method(..) if matches!(types.calls.get(&e.id), Some(Call::Group(_, m)) if m.is_collective()) => {
            1
        }
        ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) | ExprKind::Print(_) => 1,
        // `acc.mma_sync(a, b)` writes its receiver, a local, as an assignment does.
        ExprKind::Method(..) if matches!(types.calls.get(&e.id), Some(Call::Fragment(_))) => 2,
        _ => 0,
    };
    let mut m = own;
    super::visit_children(e, &mut |c| {
        m = m.max(match c {
            super::Child::Expr(x) => effect(types, x),
            super::Child::Block(b) => block_effect(types, b),
        })
    });
    // An `if` is a C ternary when it has an `else`, its `then` block is just a value and
    // nothing inside needs statements (an `else` block with statements or no value, or an
    // `else if` that is not a ternary, has effect 2 already).
    if let ExprKind::If(_, then, els) = &e.kind {
        if els.is_none() || then.tail.is_none() {
            return 2;
        }
    }
    m
}

fn block_effect(types: &Types, b: &Block) -> u8 {
    if !b.stmts.is_empty() {
        return 2;
    }
    b.tail.as_ref().map(|t| effect(types, t)).unwrap_or(0)
}
