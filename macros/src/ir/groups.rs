//! Cooperative groups (`this_thread_block()`, `tiled_partition::<N>(block)`, `this_grid()`)
//! and their methods. A group is known entirely at compile time (its kind and tile size),
//! so it has no run-time value: its methods become the barriers, lane arithmetic and warp
//! functions they stand for, as DESIGN.md asks (the emitted C includes no
//! `<cooperative_groups.h>`).

pub use crate::ir::ty::GroupKind;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GroupMethod {
    Sync,
    ThreadRank,
    Size,
    GroupIndex,
    ThreadIndex,
    DimThreads,
    MetaGroupRank,
    MetaGroupSize,
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    Any,
    All,
    Ballot,
}

/// What a group method takes and gives.
pub enum Sig {
    /// No arguments; the result type is fixed.
    Plain(crate::ir::ty::Ty),
    /// `(value, u32)`, giving the value's type (shuffles).
    Shuffle,
    /// `(bool)` giving bool (`any`, `all`) or u32 (`ballot`).
    Vote(crate::ir::ty::Ty),
}

impl GroupMethod {
    /// The method, if `kind` has one of this name.
    pub fn lookup(kind: GroupKind, name: &str) -> Option<GroupMethod> {
        use GroupMethod::*;
        let m = match name {
            "sync" => Sync,
            "thread_rank" => ThreadRank,
            "size" | "num_threads" => Size,
            "group_index" => GroupIndex,
            "thread_index" => ThreadIndex,
            "dim_threads" => DimThreads,
            "meta_group_rank" => MetaGroupRank,
            "meta_group_size" => MetaGroupSize,
            "shfl" => Shfl,
            "shfl_up" => ShflUp,
            "shfl_down" => ShflDown,
            "shfl_xor" => ShflXor,
            "any" => Any,
            "all" => All,
            "ballot" => Ballot,
            _ => return None,
        };
        let ok = match kind {
            GroupKind::Block => matches!(
                m,
                Sync | ThreadRank | Size | GroupIndex | ThreadIndex | DimThreads
            ),
            GroupKind::Tile(_) => !matches!(m, GroupIndex | ThreadIndex | DimThreads),
            GroupKind::Grid => m == Sync,
        };
        ok.then_some(m)
    }

    /// The names a group kind has, for messages.
    pub fn names(kind: GroupKind) -> &'static str {
        match kind {
            GroupKind::Block => "sync, thread_rank, size, group_index, thread_index, dim_threads",
            GroupKind::Tile(_) => "sync, thread_rank, size, meta_group_rank, meta_group_size, shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot",
            GroupKind::Grid => "sync (under launch_cooperative)",
        }
    }

    pub fn sig(self) -> Sig {
        use crate::ir::ty::Ty;
        use GroupMethod::*;
        match self {
            Sync => Sig::Plain(Ty::Unit),
            ThreadRank | Size | MetaGroupRank | MetaGroupSize => Sig::Plain(Ty::U32),
            GroupIndex | ThreadIndex | DimThreads => Sig::Plain(Ty::Dim3),
            Shfl | ShflUp | ShflDown | ShflXor => Sig::Shuffle,
            Any | All => Sig::Vote(Ty::BOOL),
            Ballot => Sig::Vote(Ty::U32),
        }
    }

    /// A collective: every thread of the group takes part (the C writer keeps it in order
    /// against other calls).
    pub fn is_collective(self) -> bool {
        use GroupMethod::*;
        matches!(
            self,
            Sync | Shfl | ShflUp | ShflDown | ShflXor | Any | All | Ballot
        )
    }
}
