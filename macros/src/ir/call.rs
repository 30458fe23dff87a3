//! What a method call (`ExprKind::Method`) is, once the type checker has resolved it: one
//! value per call in `Types::calls`, so each emitter has one `match` on it and never works
//! a call's kind out again from its name or its receiver (as naga's IR has
//! `Expression::Math`, `Statement::Atomic` and `ImageSample`). A new kind of call (a
//! tensor-core fragment operation) is one more variant.

use crate::ir::atomics::{AtomicOp, CasUse};
use crate::ir::groups::{GroupKind, GroupMethod};
use crate::ir::mbarrier::MbarMethod;
use crate::ir::methods::Method;
use crate::ir::texture::TexMethod;
use crate::ir::ty::fragment::FragMethod;

#[derive(Clone, Copy, Debug)]
pub enum Call {
    /// A method of the numeric table (`x.abs()`, `a.min(b)`, `s.len()`).
    Method(&'static Method),
    /// An atomic operation on an element (`a[i].fetch_add(v, Ordering::Relaxed)`).
    Atomic(AtomicOp),
    /// A use of `compare_exchange`'s result (`.is_ok()`, `.unwrap_or_else(|v| v)`).
    CasUse(CasUse),
    /// A cooperative-group method (`tile.shfl(v, 0)`, `block.sync()`), with its group.
    Group(GroupKind, GroupMethod),
    /// A texture method (`tex.fetch(x, y)`, `tex.width()`).
    Texture(TexMethod),
    /// A tensor-core fragment method (`acc.mma_sync(a, b)`).
    Fragment(FragMethod),
    /// An mbarrier method on an element of a `SharedArray::<Mbarrier, N>`
    /// (`full[i].wait(phase)`).
    Mbarrier(MbarMethod),
}
