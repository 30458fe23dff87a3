//! Atomic methods on elements of atomic memory (`counts[i].fetch_add(1, Ordering::Relaxed)`
//! on a `&[AtomicU32]` or a `SharedArray::<AtomicU32, N>`): their arguments, results and
//! the prelude helpers they become.

use crate::ir::ty::Scalar;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AtomicOp {
    Load,
    Store,
    Swap,
    FetchAdd,
    FetchSub,
    FetchMin,
    FetchMax,
    FetchAnd,
    FetchOr,
    FetchXor,
    /// CUDA's `atomicInc(p, limit)`: `old >= limit ? 0 : old + 1`.
    AtomicInc,
    /// CUDA's `atomicDec(p, limit)`: `old == 0 || old > limit ? limit : old - 1`.
    AtomicDec,
}

impl AtomicOp {
    pub fn from_name(name: &str) -> Option<AtomicOp> {
        Some(match name {
            "load" => AtomicOp::Load,
            "store" => AtomicOp::Store,
            "swap" => AtomicOp::Swap,
            "fetch_add" => AtomicOp::FetchAdd,
            "fetch_sub" => AtomicOp::FetchSub,
            "fetch_min" => AtomicOp::FetchMin,
            "fetch_max" => AtomicOp::FetchMax,
            "fetch_and" => AtomicOp::FetchAnd,
            "fetch_or" => AtomicOp::FetchOr,
            "fetch_xor" => AtomicOp::FetchXor,
            "atomic_inc" => AtomicOp::AtomicInc,
            "atomic_dec" => AtomicOp::AtomicDec,
            _ => return None,
        })
    }

    /// The prelude helper (`ws_atomic_fetch_add<ORDER>(p, v)`).
    pub fn c_name(self) -> &'static str {
        match self {
            AtomicOp::Load => "ws_atomic_load",
            AtomicOp::Store => "ws_atomic_store",
            AtomicOp::Swap => "ws_atomic_swap",
            AtomicOp::FetchAdd => "ws_atomic_fetch_add",
            AtomicOp::FetchSub => "ws_atomic_fetch_sub",
            AtomicOp::FetchMin => "ws_atomic_fetch_min",
            AtomicOp::FetchMax => "ws_atomic_fetch_max",
            AtomicOp::FetchAnd => "ws_atomic_fetch_and",
            AtomicOp::FetchOr => "ws_atomic_fetch_or",
            AtomicOp::FetchXor => "ws_atomic_fetch_xor",
            AtomicOp::AtomicInc => "ws_atomic_inc",
            AtomicOp::AtomicDec => "ws_atomic_dec",
        }
    }

    /// Takes a value argument (all but `load`).
    pub fn takes_value(self) -> bool {
        self != AtomicOp::Load
    }

    /// Takes an `Ordering` (all but CUDA's counters, which are relaxed).
    pub fn takes_order(self) -> bool {
        !matches!(self, AtomicOp::AtomicInc | AtomicOp::AtomicDec)
    }

    /// Gives the old value (all but `store`).
    pub fn returns_value(self) -> bool {
        self != AtomicOp::Store
    }

    /// The atomic element types with this operation; `Err` names them.
    pub fn accepts(self, s: Scalar) -> Result<(), &'static str> {
        let ok = match self {
            AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor => s.is_int(),
            AtomicOp::AtomicInc | AtomicOp::AtomicDec => s == Scalar::U32,
            _ => true,
        };
        match (ok, self) {
            (true, _) => Ok(()),
            (false, AtomicOp::AtomicInc | AtomicOp::AtomicDec) => {
                Err("`AtomicU32` only (CUDA's atomicInc/atomicDec)")
            }
            (false, _) => Err("integer atomics"),
        }
    }

    /// Orderings Rust refuses for this operation (it panics at run time; the macro refuses
    /// at build time).
    pub fn refuses(self, order: crate::parse::ast::MemOrder) -> bool {
        use crate::parse::ast::MemOrder::*;
        match self {
            AtomicOp::Load => matches!(order, Release | AcqRel),
            AtomicOp::Store => matches!(order, Acquire | AcqRel),
            _ => false,
        }
    }
}
