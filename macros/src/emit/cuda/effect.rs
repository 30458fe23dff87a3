//! How much the C writer must do to evaluate an expression in its place: nothing (a pure C
//! expression), keep its order against other calls, or write statements before it. The
//! expression and statement writers both ask; it asks neither.

use crate::ir::ast::*;
use crate::ir::groups::GroupMethod;

/// 0: pure; 1: calls a device function; 2: needs C statements before it.
/// Linear in the size of `e` (an `if` asks its children once, never again through
/// `ternary_able`: nested `if`s were exponential).
pub fn effect(e: &Expr) -> u8 {
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
        | ExprKind::AssignOp(..) => 2,
        ExprKind::Call(..) => 1,
        ExprKind::Intrinsic(i, _) if i.has_effect() => 1,
        // Atomic methods (`a[i].fetch_add(..)`) and shared declarations change memory.
        ExprKind::Method(recv, ..) if matches!(recv.kind, ExprKind::Index(..)) => 1,
        ExprKind::Method(_, name, _) if GroupMethod::is_sync_name(&name.to_string()) => 1,
        ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) | ExprKind::Print(_) => 1,
        _ => 0,
    };
    let mut m = own;
    super::visit_children(e, &mut |c| {
        m = m.max(match c {
            super::Child::Expr(x) => effect(x),
            super::Child::Block(b) => block_effect(b),
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

fn block_effect(b: &Block) -> u8 {
    if !b.stmts.is_empty() {
        return 2;
    }
    b.tail.as_ref().map(|t| effect(t)).unwrap_or(0)
}
