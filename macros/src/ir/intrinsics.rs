//! The table of kernel intrinsics: free functions the kernel language knows by name,
//! with their types and their spellings in CUDA C and in the simulator's Rust.

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
}

pub const ALL: [Intrinsic; 8] = [
    Intrinsic::ThreadIdx,
    Intrinsic::BlockIdx,
    Intrinsic::BlockDim,
    Intrinsic::GridDim,
    Intrinsic::Grid1d,
    Intrinsic::Grid2d,
    Intrinsic::Grid3d,
    Intrinsic::GridStride1d,
];

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
        }
    }

    pub fn arity(self) -> usize {
        0
    }

    pub fn ty(self) -> Ty {
        match self {
            Intrinsic::ThreadIdx
            | Intrinsic::BlockIdx
            | Intrinsic::BlockDim
            | Intrinsic::GridDim => Ty::Dim3,
            Intrinsic::Grid1d | Intrinsic::GridStride1d => Ty::Scalar(Scalar::Usize),
            Intrinsic::Grid2d => Ty::Tuple(vec![Ty::USIZE; 2]),
            Intrinsic::Grid3d => Ty::Tuple(vec![Ty::USIZE; 3]),
        }
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

    /// The C expression of the whole value (prelude helpers).
    pub fn c_call(self) -> &'static str {
        match self {
            Intrinsic::ThreadIdx => "ws_thread_idx()",
            Intrinsic::BlockIdx => "ws_block_idx()",
            Intrinsic::BlockDim => "ws_block_dim()",
            Intrinsic::GridDim => "ws_grid_dim()",
            Intrinsic::Grid1d => "ws_grid_1d()",
            Intrinsic::Grid2d => "ws_grid_2d()",
            Intrinsic::Grid3d => "ws_grid_3d()",
            Intrinsic::GridStride1d => "ws_grid_stride_1d()",
        }
    }
}
