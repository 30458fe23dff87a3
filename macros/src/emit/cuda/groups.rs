//! Cooperative-group methods as C: barriers, lane arithmetic and warp functions over the
//! lanes of the caller's tile (`ir::groups` says why groups have no value of their own).

use super::FnWriter;
use crate::ir::ast::*;
use crate::ir::groups::{GroupKind, GroupMethod};

/// The linear index of the thread in its block, x fastest (CUDA's numbering).
const BLOCK_RANK: &str = "((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x)";
const BLOCK_SIZE: &str = "(blockDim.x * blockDim.y * blockDim.z)";

impl FnWriter<'_> {
    pub(super) fn group_c(&mut self, kind: GroupKind, m: GroupMethod, args: &[Expr]) -> String {
        use GroupMethod::*;
        let ops: Vec<&Expr> = args.iter().collect();
        let v = self.operands(&ops);
        let n = match kind {
            GroupKind::Tile(n) => n,
            _ => 32,
        };
        let mask = tile_mask_c(n);
        let low = !(n - 1) & 31;
        match (kind, m) {
            (GroupKind::Grid, _) => "ws_grid_sync()".into(),
            (GroupKind::Block, Sync) => "__syncthreads()".into(),
            (GroupKind::Block, ThreadRank) => BLOCK_RANK.into(),
            (GroupKind::Block, Size) => BLOCK_SIZE.into(),
            (GroupKind::Block, GroupIndex) => "ws_block_idx()".into(),
            (GroupKind::Block, ThreadIndex) => "ws_thread_idx()".into(),
            (GroupKind::Block, DimThreads) => "ws_block_dim()".into(),
            (GroupKind::Block, _) => "0".into(),
            (GroupKind::Tile(_), Sync) => format!("__syncwarp({mask})"),
            (GroupKind::Tile(_), ThreadRank) => format!("(ws_lane_id() & {}u)", n - 1),
            (GroupKind::Tile(_), Size) => format!("{n}u"),
            (GroupKind::Tile(_), MetaGroupRank) => format!("({BLOCK_RANK} / {n}u)"),
            (GroupKind::Tile(_), MetaGroupSize) => format!("(({BLOCK_SIZE} + {}u) / {n}u)", n - 1),
            (GroupKind::Tile(_), Shfl | ShflUp | ShflDown | ShflXor) => {
                let f = match m {
                    Shfl => "ws_shfl_sync",
                    ShflUp => "ws_shfl_up_sync",
                    ShflDown => "ws_shfl_down_sync",
                    _ => "ws_shfl_xor_sync",
                };
                let t = super::c_type(self.ty(&args[0]));
                format!("{f}<{t}>({mask}, {}, {}, {n}u)", v[0], v[1])
            }
            (GroupKind::Tile(_), Any) => format!("ws_any_sync({mask}, {})", v[0]),
            (GroupKind::Tile(_), All) => format!("ws_all_sync({mask}, {})", v[0]),
            // The tile's own bits, as cooperative groups gives them.
            (GroupKind::Tile(_), Ballot) => {
                format!(
                    "(ws_ballot_sync({mask}, {}) >> (ws_lane_id() & {low}u))",
                    v[0]
                )
            }
            (GroupKind::Tile(_), _) => "0".into(),
        }
    }
}

/// The lanes of the calling thread's tile of `n`, as a C expression.
fn tile_mask_c(n: u32) -> String {
    if n == 32 {
        "0xffffffffu".into()
    } else {
        format!(
            "({:#x}u << (ws_lane_id() & {}u))",
            (1u64 << n) - 1,
            !(n - 1) & 31
        )
    }
}
