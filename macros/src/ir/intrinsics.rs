//! The table of kernel intrinsics: free functions the kernel language knows by name,
//! with their parameters, their result types and their spellings in CUDA C and in the
//! simulator's Rust (the simulator's `ThreadCtx` has a method of the same name).

use crate::ir::ty::{Scalar, Ty};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Intrinsic {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
    Grid1d,
    Grid2d,
    Grid3d,
    GridStride1d,
    LaneId,
    ActiveMask,
    SyncThreads,
    SyncThreadsCount,
    SyncThreadsAnd,
    SyncThreadsOr,
    SyncWarp,
    ThreadFence,
    ThreadFenceBlock,
    ThreadFenceSystem,
    BallotSync,
    AllSync,
    AnySync,
    ShflSync,
    ShflUpSync,
    ShflDownSync,
    ShflXorSync,
    MatchAnySync,
    ThisThreadBlock,
    ThisGrid,
    /// `f16::from_f32(x)`, `f16::from_f64(x)`, `f16x2::new(lo, hi)`.
    F16FromF32,
    F16FromF64,
    F16x2New,
    /// `f32x4::new(x, y, z, w)` and the other vector types' constructors.
    VectorNew(Scalar),
    /// `f32x4::splat(v)`: every lane `v`.
    VectorSplat(Scalar),
    /// `f32::from_bits(b)`, `f64::from_bits(b)`: the float with these IEEE bits.
    FromBits(Scalar),
    /// `u32::from(x)`, `f64::from(x)`, ...: Rust's lossless `From` conversions between
    /// scalars, which are `x as T`.
    From(Scalar),
}

pub const ALL: [Intrinsic; 59] = [
    Intrinsic::ThreadIdx,
    Intrinsic::BlockIdx,
    Intrinsic::BlockDim,
    Intrinsic::GridDim,
    Intrinsic::Grid1d,
    Intrinsic::Grid2d,
    Intrinsic::Grid3d,
    Intrinsic::GridStride1d,
    Intrinsic::LaneId,
    Intrinsic::ActiveMask,
    Intrinsic::SyncThreads,
    Intrinsic::SyncThreadsCount,
    Intrinsic::SyncThreadsAnd,
    Intrinsic::SyncThreadsOr,
    Intrinsic::SyncWarp,
    Intrinsic::ThreadFence,
    Intrinsic::ThreadFenceBlock,
    Intrinsic::ThreadFenceSystem,
    Intrinsic::BallotSync,
    Intrinsic::AllSync,
    Intrinsic::AnySync,
    Intrinsic::ShflSync,
    Intrinsic::ShflUpSync,
    Intrinsic::ShflDownSync,
    Intrinsic::ShflXorSync,
    Intrinsic::MatchAnySync,
    Intrinsic::ThisThreadBlock,
    Intrinsic::ThisGrid,
    Intrinsic::F16FromF32,
    Intrinsic::F16FromF64,
    Intrinsic::F16x2New,
    Intrinsic::VectorNew(Scalar::F32x2),
    Intrinsic::VectorNew(Scalar::F32x4),
    Intrinsic::VectorNew(Scalar::U32x2),
    Intrinsic::VectorNew(Scalar::U32x4),
    Intrinsic::VectorNew(Scalar::I32x2),
    Intrinsic::VectorNew(Scalar::I32x4),
    Intrinsic::VectorNew(Scalar::F64x2),
    Intrinsic::VectorSplat(Scalar::F32x2),
    Intrinsic::VectorSplat(Scalar::F32x4),
    Intrinsic::VectorSplat(Scalar::U32x2),
    Intrinsic::VectorSplat(Scalar::U32x4),
    Intrinsic::VectorSplat(Scalar::I32x2),
    Intrinsic::VectorSplat(Scalar::I32x4),
    Intrinsic::VectorSplat(Scalar::F64x2),
    Intrinsic::FromBits(Scalar::F32),
    Intrinsic::FromBits(Scalar::F64),
    Intrinsic::From(Scalar::I8),
    Intrinsic::From(Scalar::I16),
    Intrinsic::From(Scalar::I32),
    Intrinsic::From(Scalar::I64),
    Intrinsic::From(Scalar::Isize),
    Intrinsic::From(Scalar::U8),
    Intrinsic::From(Scalar::U16),
    Intrinsic::From(Scalar::U32),
    Intrinsic::From(Scalar::U64),
    Intrinsic::From(Scalar::Usize),
    Intrinsic::From(Scalar::F32),
    Intrinsic::From(Scalar::F64),
];

/// Whether Rust has `impl From<from> for to` (a conversion that loses nothing).
pub fn lossless(from: Scalar, to: Scalar) -> bool {
    use Scalar::*;
    if from == to {
        return true;
    }
    match (from, to) {
        (_, Bool) => false,
        (Bool, t) => t.is_int() || t.is_float(),
        (U8, I16 | I32 | I64 | Isize | U16 | U32 | U64 | Usize) => true,
        (U16, I32 | I64 | U32 | U64 | Usize) => true,
        (U32, I64 | U64) => true,
        (I8, I16 | I32 | I64 | Isize) => true,
        (I16, I32 | I64 | Isize) => true,
        (I32, I64) => true,
        (I8 | U8 | I16 | U16, F32 | F64) => true,
        (I32 | U32 | F32, F64) => true,
        _ => false,
    }
}

/// One parameter of an intrinsic.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamKind {
    /// A `u32`: a lane mask, a lane, a delta or a width.
    U32,
    /// A `bool` predicate.
    Bool,
    /// The value a warp function exchanges: any scalar; the result has its type.
    Value,
    /// A scalar that converts to the intrinsic's type without loss (`T::from`).
    Lossless,
    /// A value of this scalar type.
    Scalar(Scalar),
}

/// What an intrinsic gives.
pub enum Result {
    Fixed(Ty),
    /// The type of its `Value` argument (shuffles).
    Value,
}

impl Intrinsic {
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        ALL.iter().copied().find(|i| i.rust_name() == name)
    }

    /// The name users write, which is also the simulator's `ThreadCtx` method.
    pub fn rust_name(self) -> &'static str {
        match self {
            Intrinsic::ThreadIdx => "thread_idx",
            Intrinsic::BlockIdx => "block_idx",
            Intrinsic::BlockDim => "block_dim",
            Intrinsic::GridDim => "grid_dim",
            Intrinsic::Grid1d => "grid_1d",
            Intrinsic::Grid2d => "grid_2d",
            Intrinsic::Grid3d => "grid_3d",
            Intrinsic::GridStride1d => "grid_stride_1d",
            Intrinsic::LaneId => "lane_id",
            Intrinsic::ActiveMask => "active_mask",
            Intrinsic::SyncThreads => "sync_threads",
            Intrinsic::SyncThreadsCount => "sync_threads_count",
            Intrinsic::SyncThreadsAnd => "sync_threads_and",
            Intrinsic::SyncThreadsOr => "sync_threads_or",
            Intrinsic::SyncWarp => "sync_warp",
            Intrinsic::ThreadFence => "thread_fence",
            Intrinsic::ThreadFenceBlock => "thread_fence_block",
            Intrinsic::ThreadFenceSystem => "thread_fence_system",
            Intrinsic::BallotSync => "ballot_sync",
            Intrinsic::AllSync => "all_sync",
            Intrinsic::AnySync => "any_sync",
            Intrinsic::ShflSync => "shfl_sync",
            Intrinsic::ShflUpSync => "shfl_up_sync",
            Intrinsic::ShflDownSync => "shfl_down_sync",
            Intrinsic::ShflXorSync => "shfl_xor_sync",
            Intrinsic::MatchAnySync => "match_any_sync",
            Intrinsic::ThisThreadBlock => "this_thread_block",
            Intrinsic::ThisGrid => "this_grid",
            // Associated functions, matched by their path.
            Intrinsic::F16FromF32 => "f16::from_f32",
            Intrinsic::F16FromF64 => "f16::from_f64",
            Intrinsic::F16x2New => "f16x2::new",
            Intrinsic::VectorNew(v) => match v {
                Scalar::F32x2 => "f32x2::new",
                Scalar::F32x4 => "f32x4::new",
                Scalar::U32x2 => "u32x2::new",
                Scalar::U32x4 => "u32x4::new",
                Scalar::I32x2 => "i32x2::new",
                Scalar::I32x4 => "i32x4::new",
                _ => "f64x2::new",
            },
            Intrinsic::VectorSplat(v) => match v {
                Scalar::F32x2 => "f32x2::splat",
                Scalar::F32x4 => "f32x4::splat",
                Scalar::U32x2 => "u32x2::splat",
                Scalar::U32x4 => "u32x4::splat",
                Scalar::I32x2 => "i32x2::splat",
                Scalar::I32x4 => "i32x4::splat",
                _ => "f64x2::splat",
            },
            Intrinsic::FromBits(Scalar::F32) => "f32::from_bits",
            Intrinsic::FromBits(_) => "f64::from_bits",
            Intrinsic::From(s) => match s {
                Scalar::I8 => "i8::from",
                Scalar::I16 => "i16::from",
                Scalar::I32 => "i32::from",
                Scalar::I64 => "i64::from",
                Scalar::Isize => "isize::from",
                Scalar::U8 => "u8::from",
                Scalar::U16 => "u16::from",
                Scalar::U32 => "u32::from",
                Scalar::U64 => "u64::from",
                Scalar::Usize => "usize::from",
                Scalar::F32 => "f32::from",
                _ => "f64::from",
            },
        }
    }

    /// The function the simulator calls for these (not `ThreadCtx` methods), as a path
    /// in `warpspeed` (`f16::from_f32`) or in `core::primitive` (`f32::from_bits`).
    /// `from_f64` is warpspeed's correctly rounded one (as the GPU's single
    /// `cvt.rn.f16.f64`), not `half`'s, which rounds through f32 on some CPUs.
    pub fn sim_function(self) -> Option<(&'static str, &'static str)> {
        match self {
            Intrinsic::F16FromF32 => Some(("warpspeed", "f16::from_f32")),
            Intrinsic::F16FromF64 => Some(("warpspeed", "__private::f16_from_f64")),
            Intrinsic::F16x2New => Some(("warpspeed", "f16x2::new")),
            Intrinsic::VectorNew(_) | Intrinsic::VectorSplat(_) => {
                Some(("warpspeed", self.rust_name()))
            }
            Intrinsic::FromBits(_) | Intrinsic::From(_) => {
                Some(("core::primitive", self.rust_name()))
            }
            _ => None,
        }
    }

    /// The line docs/methods.md shows (read by its generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn doc(self) -> &'static str {
        match self {
            Intrinsic::ThreadIdx => "the thread's index in its block (`threadIdx`)",
            Intrinsic::BlockIdx => "the block's index in the grid (`blockIdx`)",
            Intrinsic::BlockDim => "the block's extent (`blockDim`)",
            Intrinsic::GridDim => "the grid's extent in blocks (`gridDim`)",
            Intrinsic::Grid1d => {
                "`block_idx().x * block_dim().x + thread_idx().x` (Numba's `cuda.grid(1)`)"
            }
            Intrinsic::Grid2d => "the global `(x, y)` index",
            Intrinsic::Grid3d => "the global `(x, y, z)` index",
            Intrinsic::GridStride1d => "the grid's thread count in x, a grid-stride loop's step",
            Intrinsic::LaneId => "the lane in the warp, 0..32",
            Intrinsic::ActiveMask => "the lanes converged here (`__activemask`)",
            Intrinsic::SyncThreads => "block barrier (`__syncthreads`)",
            Intrinsic::SyncThreadsCount => "block barrier; how many threads' predicate holds",
            Intrinsic::SyncThreadsAnd => "block barrier; whether every thread's predicate holds",
            Intrinsic::SyncThreadsOr => "block barrier; whether some thread's predicate holds",
            Intrinsic::SyncWarp => "barrier of the mask's lanes (`__syncwarp`)",
            Intrinsic::ThreadFence => "memory fence, device scope (`__threadfence`)",
            Intrinsic::ThreadFenceBlock => "memory fence, block scope",
            Intrinsic::ThreadFenceSystem => "memory fence, system scope",
            Intrinsic::BallotSync => "the mask's lanes whose predicate holds, as bits",
            Intrinsic::AllSync => "whether the predicate holds on every lane of the mask",
            Intrinsic::AnySync => "whether the predicate holds on some lane of the mask",
            Intrinsic::ShflSync => "the value of lane `src` (optional `width`)",
            Intrinsic::ShflUpSync => "the value of lane `lane - delta` (optional `width`)",
            Intrinsic::ShflDownSync => "the value of lane `lane + delta` (optional `width`)",
            Intrinsic::ShflXorSync => "the value of lane `lane ^ mask` (optional `width`)",
            Intrinsic::MatchAnySync => "the mask's lanes holding the same value",
            Intrinsic::ThisThreadBlock => "the block as a cooperative group",
            Intrinsic::ThisGrid => {
                "the grid as a cooperative group (`sync()` under `launch_cooperative`)"
            }
            Intrinsic::F16FromF32 => "`f32` to `f16`, correctly rounded",
            Intrinsic::F16FromF64 => "`f64` to `f16`, correctly rounded (once)",
            Intrinsic::F16x2New => "two halves in one `f16x2`",
            Intrinsic::VectorNew(_) => "a vector from its lanes",
            Intrinsic::VectorSplat(_) => "a vector with every lane the same",
            Intrinsic::FromBits(_) => "the float with these IEEE bits (exact, NaN payloads kept)",
            Intrinsic::From(_) => "a lossless conversion (Rust's `From`): `x as T`",
        }
    }

    /// The parameters, in order.
    pub fn params(self) -> &'static [ParamKind] {
        use ParamKind::*;
        match self {
            Intrinsic::SyncThreadsCount | Intrinsic::SyncThreadsAnd | Intrinsic::SyncThreadsOr => {
                &[Bool]
            }
            Intrinsic::SyncWarp => &[U32],
            Intrinsic::BallotSync | Intrinsic::AllSync | Intrinsic::AnySync => &[U32, Bool],
            Intrinsic::ShflSync
            | Intrinsic::ShflUpSync
            | Intrinsic::ShflDownSync
            | Intrinsic::ShflXorSync => &[U32, Value, U32],
            Intrinsic::MatchAnySync => &[U32, Value],
            Intrinsic::F16FromF32 => &[Scalar(crate::ir::ty::Scalar::F32)],
            Intrinsic::F16FromF64 => &[Scalar(crate::ir::ty::Scalar::F64)],
            Intrinsic::F16x2New => &[
                Scalar(crate::ir::ty::Scalar::F16),
                Scalar(crate::ir::ty::Scalar::F16),
            ],
            Intrinsic::VectorNew(v) | Intrinsic::VectorSplat(v) => {
                use crate::ir::ty::Scalar::{F32, F64, I32, U32};
                let all: &'static [ParamKind] = match v.vector() {
                    Some((F32, _)) => &[Scalar(F32); 4],
                    Some((U32, _)) => &[Scalar(U32); 4],
                    Some((I32, _)) => &[Scalar(I32); 4],
                    _ => &[Scalar(F64); 4],
                };
                let n = match self {
                    Intrinsic::VectorSplat(_) => 1,
                    _ => v.vector().map_or(1, |(_, n)| n),
                };
                &all[..n]
            }
            Intrinsic::FromBits(crate::ir::ty::Scalar::F32) => {
                &[Scalar(crate::ir::ty::Scalar::U32)]
            }
            Intrinsic::FromBits(_) => &[Scalar(crate::ir::ty::Scalar::U64)],
            Intrinsic::From(_) => &[Lossless],
            _ => &[],
        }
    }

    /// Shuffles take an optional last `width` (a power of two up to 32), as CUDA's
    /// default argument `width = warpSize`.
    pub fn takes_width(self) -> bool {
        matches!(
            self,
            Intrinsic::ShflSync
                | Intrinsic::ShflUpSync
                | Intrinsic::ShflDownSync
                | Intrinsic::ShflXorSync
        )
    }

    /// "1 argument", "3 or 4 arguments", for messages.
    pub fn arity_text(self) -> String {
        let n = self.params().len();
        let s = |n: usize| if n == 1 { "" } else { "s" };
        if self.takes_width() {
            format!(
                "{n} or {} arguments (the last one, `width`, is optional)",
                n + 1
            )
        } else {
            format!("{n} argument{}", s(n))
        }
    }

    pub fn result(self) -> Result {
        use crate::ir::groups::GroupKind;
        Result::Fixed(match self {
            Intrinsic::ThisThreadBlock => Ty::Group(GroupKind::Block),
            Intrinsic::F16FromF32 | Intrinsic::F16FromF64 => Ty::Scalar(Scalar::F16),
            Intrinsic::F16x2New => Ty::Scalar(Scalar::F16x2),
            Intrinsic::VectorNew(v) | Intrinsic::VectorSplat(v) => Ty::Scalar(v),
            Intrinsic::FromBits(s) | Intrinsic::From(s) => Ty::Scalar(s),
            Intrinsic::ThisGrid => Ty::Group(GroupKind::Grid),
            Intrinsic::ThreadIdx
            | Intrinsic::BlockIdx
            | Intrinsic::BlockDim
            | Intrinsic::GridDim => Ty::Dim3,
            Intrinsic::Grid1d | Intrinsic::GridStride1d => Ty::Scalar(Scalar::Usize),
            Intrinsic::Grid2d => Ty::Tuple(vec![Ty::USIZE; 2]),
            Intrinsic::Grid3d => Ty::Tuple(vec![Ty::USIZE; 3]),
            Intrinsic::LaneId
            | Intrinsic::ActiveMask
            | Intrinsic::SyncThreadsCount
            | Intrinsic::BallotSync
            | Intrinsic::MatchAnySync => Ty::U32,
            Intrinsic::SyncThreadsAnd
            | Intrinsic::SyncThreadsOr
            | Intrinsic::AllSync
            | Intrinsic::AnySync => Ty::BOOL,
            Intrinsic::SyncThreads
            | Intrinsic::SyncWarp
            | Intrinsic::ThreadFence
            | Intrinsic::ThreadFenceBlock
            | Intrinsic::ThreadFenceSystem => Ty::Unit,
            Intrinsic::ShflSync
            | Intrinsic::ShflUpSync
            | Intrinsic::ShflDownSync
            | Intrinsic::ShflXorSync => return Result::Value,
        })
    }

    /// A barrier or warp collective: a point where simulated threads wait for each other
    /// (the simulator awaits it), and an effect the C must keep in order.
    pub fn is_sync(self) -> bool {
        matches!(
            self,
            // `active_mask()` gives the lanes converged here: the simulator waits to know.
            Intrinsic::ActiveMask
                | Intrinsic::SyncThreads
                | Intrinsic::SyncThreadsCount
                | Intrinsic::SyncThreadsAnd
                | Intrinsic::SyncThreadsOr
                | Intrinsic::SyncWarp
                | Intrinsic::BallotSync
                | Intrinsic::AllSync
                | Intrinsic::AnySync
                | Intrinsic::ShflSync
                | Intrinsic::ShflUpSync
                | Intrinsic::ShflDownSync
                | Intrinsic::ShflXorSync
                | Intrinsic::MatchAnySync
        )
    }

    /// Has an effect (barriers, collectives, fences): never dropped or reordered.
    pub fn has_effect(self) -> bool {
        self.is_sync()
            || matches!(
                self,
                Intrinsic::ThreadFence | Intrinsic::ThreadFenceBlock | Intrinsic::ThreadFenceSystem
            )
    }

    /// The simulator call takes the source location (sync points name their site).
    pub fn sim_takes_site(self) -> bool {
        self.is_sync()
    }

    /// The CUDA built-in variable behind a `Dim3` intrinsic, for `thread_idx().x`.
    pub fn cuda_builtin(self) -> Option<&'static str> {
        match self {
            Intrinsic::ThreadIdx => Some("threadIdx"),
            Intrinsic::BlockIdx => Some("blockIdx"),
            Intrinsic::BlockDim => Some("blockDim"),
            Intrinsic::GridDim => Some("gridDim"),
            _ => None,
        }
    }

    /// The C function (a builtin or a prelude helper) the call becomes; `value` is the C
    /// type of the `Value` argument for the templated warp functions.
    pub fn c_function(self, value: Option<&str>) -> String {
        let plain = match self {
            Intrinsic::ThreadIdx => "ws_thread_idx",
            Intrinsic::BlockIdx => "ws_block_idx",
            Intrinsic::BlockDim => "ws_block_dim",
            Intrinsic::GridDim => "ws_grid_dim",
            Intrinsic::Grid1d => "ws_grid_1d",
            Intrinsic::Grid2d => "ws_grid_2d",
            Intrinsic::Grid3d => "ws_grid_3d",
            Intrinsic::GridStride1d => "ws_grid_stride_1d",
            Intrinsic::LaneId => "ws_lane_id",
            Intrinsic::ActiveMask => "ws_active_mask",
            Intrinsic::SyncThreads => "__syncthreads",
            Intrinsic::SyncThreadsCount => "ws_sync_threads_count",
            Intrinsic::SyncThreadsAnd => "ws_sync_threads_and",
            Intrinsic::SyncThreadsOr => "ws_sync_threads_or",
            Intrinsic::SyncWarp => "__syncwarp",
            Intrinsic::ThreadFence => "ws_thread_fence",
            Intrinsic::ThreadFenceBlock => "ws_thread_fence_block",
            Intrinsic::ThreadFenceSystem => "ws_thread_fence_system",
            Intrinsic::BallotSync => "ws_ballot_sync",
            Intrinsic::AllSync => "ws_all_sync",
            Intrinsic::AnySync => "ws_any_sync",
            Intrinsic::ShflSync => "ws_shfl_sync",
            Intrinsic::ShflUpSync => "ws_shfl_up_sync",
            Intrinsic::ShflDownSync => "ws_shfl_down_sync",
            Intrinsic::ShflXorSync => "ws_shfl_xor_sync",
            Intrinsic::MatchAnySync => "ws_match_any_sync",
            // Groups have no run-time value in C.
            Intrinsic::ThisThreadBlock | Intrinsic::ThisGrid => "0",
            Intrinsic::F16FromF32 => "ws_f16_from_f32",
            Intrinsic::F16FromF64 => "ws_f16_from_f64",
            Intrinsic::F16x2New => "ws_f16x2_new",
            Intrinsic::VectorNew(v) => return format!("{}_new", v.c_name()),
            Intrinsic::VectorSplat(v) => return format!("{}_splat", v.c_name()),
            Intrinsic::FromBits(Scalar::F32) => "ws_f32_from_bits",
            Intrinsic::FromBits(_) => "ws_f64_from_bits",
            // A cast, which the C writer spells (`cast_c`) from the argument's type.
            Intrinsic::From(_) => "",
        };
        match value {
            Some(t) if self.params().contains(&ParamKind::Value) => format!("{plain}<{t}>"),
            _ => plain.to_string(),
        }
    }
}
