//! Atomic methods on elements of atomic memory (`counts[i].fetch_add(1, Ordering::Relaxed)`
//! on a `&[AtomicU32]` or a `SharedArray::<AtomicU32, N>`): their arguments, results and
//! the prelude helpers they become.

use crate::ir::ast::MemOrder;
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
    /// `compare_exchange(current, new, success, failure)`: a `Result` of the old value,
    /// used as `.is_ok()`, `.is_err()` or `.unwrap_or_else(|v| v)`.
    CompareExchange,
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
            "compare_exchange" | "compare_exchange_weak" => AtomicOp::CompareExchange,
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
            AtomicOp::CompareExchange => "ws_atomic_cas",
            AtomicOp::AtomicDec => "ws_atomic_dec",
        }
    }

    /// How many value arguments it takes (`compare_exchange`: current and new).
    pub fn values(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }

    /// How many orderings it takes (`compare_exchange`: success and failure).
    pub fn orders(self) -> usize {
        match self {
            AtomicOp::AtomicInc | AtomicOp::AtomicDec => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }

    /// The atomic element types with this operation; `Err` names them.
    pub fn accepts(self, s: Scalar) -> Result<(), &'static str> {
        let ok = match self {
            // CUDA's half atomics: add, and what the 16/32-bit exchange and CAS give.
            _ if s.is_half() => matches!(
                self,
                AtomicOp::Load
                    | AtomicOp::Store
                    | AtomicOp::Swap
                    | AtomicOp::FetchAdd
                    | AtomicOp::CompareExchange
            ),
            AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor => s.is_int(),
            AtomicOp::AtomicInc | AtomicOp::AtomicDec => s == Scalar::U32,
            _ => true,
        };
        match (ok, self) {
            (true, _) => Ok(()),
            (false, _) if s.is_half() => Err("every atomic type but the half ones (`AtomicF16`, `AtomicF16x2`, `AtomicBf16` and `AtomicBf16x2` have load, store, swap, fetch_add and compare_exchange)"),
            (false, AtomicOp::AtomicInc | AtomicOp::AtomicDec) => {
                Err("`AtomicU32` only (CUDA's atomicInc/atomicDec)")
            }
            (false, _) => Err("integer atomics"),
        }
    }

    /// Orderings Rust refuses for this operation's ordering number `which` (it panics at
    /// run time; the macro refuses at build time).
    pub fn refuses(self, which: usize, order: MemOrder) -> bool {
        use MemOrder::*;
        match (self, which) {
            (AtomicOp::Load, _) | (AtomicOp::CompareExchange, 1) => {
                matches!(order, Release | AcqRel)
            }
            (AtomicOp::Store, _) => matches!(order, Acquire | AcqRel),
            _ => false,
        }
    }
}

/// The one ordering of the GPU instruction for Rust's (success, failure) pair: at least as
/// strong as both.
pub fn cas_order(success: MemOrder, failure: MemOrder) -> MemOrder {
    use MemOrder::*;
    match (success, failure) {
        (SeqCst, _) | (_, SeqCst) => SeqCst,
        (Release, Acquire) | (AcqRel, _) => AcqRel,
        (Relaxed, Acquire) => Acquire,
        (s, _) => s,
    }
}

/// What a kernel does with `compare_exchange`'s `Result`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CasUse {
    IsOk,
    IsErr,
    /// `.unwrap_or_else(|v| v)`: the old value.
    Old,
}

impl CasUse {
    pub fn from_name(name: &str) -> Option<CasUse> {
        Some(match name {
            "is_ok" => CasUse::IsOk,
            "is_err" => CasUse::IsErr,
            "unwrap_or_else" => CasUse::Old,
            _ => return None,
        })
    }
}
