//! Walking the kernel AST: the direct children of an expression, in evaluation order, and
//! depth-first walks. Here, beside the AST, so that every layer above (the checks, the type
//! checker, both emitters) walks it the same way without depending on each other.

use super::ast::*;

/// A direct child of an expression.
pub enum Child<'a> {
    Expr(&'a Expr),
    Block(&'a Block),
}

/// Visits the direct sub-expressions and sub-blocks of `e`, in evaluation order.
pub fn visit_children<'a>(e: &'a Expr, visit: &mut dyn FnMut(Child<'a>)) {
    let ex = |x: &'a Expr, visit: &mut dyn FnMut(Child<'a>)| visit(Child::Expr(x));
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Const(..) | ExprKind::Var(..) | ExprKind::ConstItem(_) => {}
        ExprKind::SharedArray(_) | ExprKind::DynamicShared(_) | ExprKind::Ordering(..) => {}
        ExprKind::Fragment(_) => {}
        ExprKind::Break(_) | ExprKind::Continue(_) => {}
        ExprKind::Binary(_, a, b)
        | ExprKind::Assign(a, b)
        | ExprKind::AssignOp(_, a, b)
        | ExprKind::Index(a, b) => {
            ex(a, visit);
            ex(b, visit);
        }
        ExprKind::Unary(_, a)
        | ExprKind::TiledPartition(_, a)
        | ExprKind::Cast(a, _)
        | ExprKind::Field(a, _)
        | ExprKind::Repeat(a, _)
        | ExprKind::Ref(_, a) => ex(a, visit),
        ExprKind::SubSlice(s) => {
            ex(&s.base, visit);
            if let Some(a) = &s.start {
                ex(a, visit);
            }
            if let Some(b) = &s.end {
                ex(b, visit);
            }
        }
        ExprKind::Method(r, _, args) => {
            ex(r, visit);
            args.iter().for_each(|a| ex(a, visit));
        }
        ExprKind::Intrinsic(_, args)
        | ExprKind::Call(_, _, args)
        | ExprKind::Array(args)
        | ExprKind::Tuple(args) => args.iter().for_each(|a| ex(a, visit)),
        ExprKind::Print(p) => p.args.iter().for_each(|a| ex(a, visit)),
        ExprKind::StructLit(l) => l.fields.iter().for_each(|(_, a)| ex(a, visit)),
        ExprKind::If(c, t, e) => {
            ex(c, visit);
            visit(Child::Block(t));
            if let Some(e) = e {
                ex(e, visit);
            }
        }
        ExprKind::Match(s, arms) => {
            ex(s, visit);
            for arm in arms {
                if let Some(g) = &arm.guard {
                    ex(g, visit);
                }
                ex(&arm.body, visit);
            }
        }
        ExprKind::While(_, c, b) => {
            ex(c, visit);
            visit(Child::Block(b));
        }
        ExprKind::Loop(_, b) | ExprKind::Block(b) => visit(Child::Block(b)),
        ExprKind::For(_, _, r, b) => {
            ex(&r.start, visit);
            ex(&r.end, visit);
            if let Some(s) = &r.step {
                ex(s, visit);
            }
            visit(Child::Block(b));
        }
        ExprKind::Return(v) => {
            if let Some(v) = v {
                ex(v, visit);
            }
        }
    }
}

/// Visits every expression of a block, depth first.
pub fn walk_block<'a>(b: &'a Block, f: &mut dyn FnMut(&'a Expr)) {
    for s in &b.stmts {
        match s {
            Stmt::Let(l) => {
                if let Some(i) = &l.init {
                    walk_expr(i, f)
                }
            }
            Stmt::Expr(e, _) => walk_expr(e, f),
        }
    }
    if let Some(t) = &b.tail {
        walk_expr(t, f)
    }
}

/// Visits `e` and every expression inside it, depth first.
pub fn walk_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    visit_children(e, &mut |c| match c {
        Child::Expr(x) => walk_expr(x, f),
        Child::Block(b) => walk_block(b, f),
    });
}
