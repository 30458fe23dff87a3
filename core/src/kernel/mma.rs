//! Tensor-core fragments and `mma.sync` in a kernel (docs/tensor-cores.md): `FragmentA`,
//! `FragmentB` and `FragmentAcc`, typed with their element type and shape, made with
//! `zeroed()`, read and written per lane through `x`, loaded from shared memory with
//! `ldmatrix` ([`FragmentA::ldmatrix`]), multiplied with [`FragmentAcc::mma_sync`]. Which (row, column) each `x[i]` of each lane is:
//! [`fragment_owner`](crate::mma::fragment_owner).

use super::outside_kernel;
use super::SharedArray;

/// An `mma.sync` shape: the per-lane element arrays of its three fragments.
pub trait FragmentShape {
    /// A's elements of one lane (16-bit elements).
    type A<T>;
    /// B's elements of one lane (16-bit elements).
    type B<T>;
    /// C's and D's elements of one lane.
    type Acc<T>;
}

/// PTX's `.m16n8k16`: A 16 x 16 (8 elements a lane), B 16 x 8 (4), C/D 16 x 8 (4).
pub struct M16N8K16;

/// PTX's `.m16n8k8`: A 16 x 8 (4 elements a lane), B 8 x 8 (2), C/D 16 x 8 (4).
pub struct M16N8K8;

/// PTX's `.m16n8k32`, 8-bit operands (`i8`, `u8` into an `i32` accumulator; `e4m3`,
/// `e5m2` into `f32`, sm_89 and later): A 16 x 32 (16 elements a lane), B 32 x 8 (8), C/D
/// 16 x 8 (4).
pub struct M16N8K32;

impl FragmentShape for M16N8K32 {
    type A<T> = [T; 16];
    type B<T> = [T; 8];
    type Acc<T> = [T; 4];
}

impl FragmentShape for M16N8K16 {
    type A<T> = [T; 8];
    type B<T> = [T; 4];
    type Acc<T> = [T; 4];
}

impl FragmentShape for M16N8K8 {
    type A<T> = [T; 4];
    type B<T> = [T; 2];
    type Acc<T> = [T; 4];
}

/// One lane's share of the A operand (M x K, row major) of `mma.sync`: `T` is `f16` or
/// `bf16`, `f32` in [`M16N8K8`] (multiplied as tf32), or an 8-bit type in [`M16N8K32`]
/// (`i8`, `u8`, `e4m3`, `e5m2`).
pub struct FragmentA<T, S: FragmentShape> {
    /// The lane's elements, in the order of the PTX ISA's fragment table
    /// ([`fragment_owner`](crate::mma::fragment_owner) with `FragmentRole::A`).
    pub x: S::A<T>,
}

/// One lane's share of the B operand (K x N, column major) of `mma.sync`: `T` is as A's
/// (`f16`, `bf16`, tf32 as `f32` in [`M16N8K8`], 8-bit types in [`M16N8K32`]).
pub struct FragmentB<T, S: FragmentShape> {
    /// The lane's elements ([`fragment_owner`](crate::mma::fragment_owner) with
    /// `FragmentRole::B`: row is the K index, column the N index).
    pub x: S::B<T>,
}

/// One lane's share of the accumulator (C and D, M x N) of `mma.sync`: `T` is `f32` or
/// `f16`, or `i32` for `i8` and `u8` operands in [`M16N8K32`].
pub struct FragmentAcc<T, S: FragmentShape> {
    /// The lane's elements ([`fragment_owner`](crate::mma::fragment_owner) with
    /// `FragmentRole::Acc`).
    pub x: S::Acc<T>,
}

impl<T, S: FragmentShape> FragmentA<T, S> {
    /// PTX `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` into this fragment (16-bit
    /// elements; one 8 x 8 matrix per two elements a lane, so x4 for an m16n8k16 A, x2 for
    /// its B, x1 for an m16n8k8 B). Every lane of the warp calls it; lanes `0..8 * matrices`
    /// each give `row`, the index in `tile` where one 8-element row starts (lanes 0-7 the
    /// rows of matrix 0, 8-15 of matrix 1, ...), a multiple of 8; each lane receives
    /// element pairs as [`fragment_owner`](crate::mma::fragment_owner) lays them out. The row
    /// is checked as the sub-slice `&tile[row..row + 8]` is: `Error::OutOfBounds` on both
    /// backends. docs/tensor-cores.md gives the `row` of each fragment.
    pub fn ldmatrix<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentA::ldmatrix")
    }

    /// [`FragmentA::ldmatrix`] with `.trans`: each matrix transposed on the way (lane `l` gets
    /// column `l / 4` of rows `2 * (l % 4)` and `2 * (l % 4) + 1`), so a B stored K x N
    /// (row major) loads as the column-major B fragment.
    pub fn ldmatrix_trans<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentA::ldmatrix_trans")
    }

    /// PTX `stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` (sm_90): [`FragmentA::ldmatrix`]
    /// the other way, lanes `0..8 * matrices` each storing one 8-element row at `row`
    /// (checked as the sub-slice `&mut tile[row..row + 8]` is).
    pub fn stmatrix<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentA::stmatrix")
    }

    /// [`FragmentA::stmatrix`] with `.trans`: each matrix transposed on the way.
    pub fn stmatrix_trans<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentA::stmatrix_trans")
    }

    /// A fragment with every element zero: `FragmentA::<f16, M16N8K16>::zeroed()`.
    pub fn zeroed() -> Self {
        outside_kernel("FragmentA::zeroed")
    }

    /// `self` (a `FragmentA<bf16, M64N{N}K16>` or `f16`: a `wgmma`'s A in registers) set to
    /// columns `16 j .. 16 j + 16` of the f32 `wgmma` accumulator `acc` (any `M64N{N'}K16`,
    /// `j < N' / 16`), each rounded as `T::from_f32` (to nearest even), but that a NaN
    /// becomes the canonical NaN `0x7fff` (what the GPU's `cvt.rn.bf16x2.f32` gives; the
    /// simulator does the same): `self.x[e] = T::from_f32(acc.x[8 * j + e])`, because the
    /// two layouts agree element for
    /// element ([`wgmma_a_owner`](crate::mma::wgmma_a_owner)). This is how a product is fed
    /// back to the next `wgmma` without shared memory (attention's `P V`). On the GPU it
    /// converts two elements an instruction (`cvt.rn.bf16x2.f32`, sm_80). A `j` past the
    /// accumulator's slabs is [`Error::OutOfBounds`](crate::Error::OutOfBounds) (a literal
    /// one a compile error).
    pub fn load_acc<U: FragmentShape>(&mut self, acc: FragmentAcc<f32, U>, j: usize) {
        let _ = (acc, j);
        outside_kernel("FragmentA::load_acc")
    }
}

impl<T, S: FragmentShape> FragmentB<T, S> {
    /// PTX `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` into this fragment (16-bit
    /// elements; one 8 x 8 matrix per two elements a lane, so x4 for an m16n8k16 A, x2 for
    /// its B, x1 for an m16n8k8 B). Every lane of the warp calls it; lanes `0..8 * matrices`
    /// each give `row`, the index in `tile` where one 8-element row starts (lanes 0-7 the
    /// rows of matrix 0, 8-15 of matrix 1, ...), a multiple of 8; each lane receives
    /// element pairs as [`fragment_owner`](crate::mma::fragment_owner) lays them out. The row
    /// is checked as the sub-slice `&tile[row..row + 8]` is: `Error::OutOfBounds` on both
    /// backends. docs/tensor-cores.md gives the `row` of each fragment.
    pub fn ldmatrix<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentB::ldmatrix")
    }

    /// [`FragmentB::ldmatrix`] with `.trans`: each matrix transposed on the way (lane `l` gets
    /// column `l / 4` of rows `2 * (l % 4)` and `2 * (l % 4) + 1`), so a B stored K x N
    /// (row major) loads as the column-major B fragment.
    pub fn ldmatrix_trans<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentB::ldmatrix_trans")
    }

    /// PTX `stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` (sm_90): [`FragmentB::ldmatrix`]
    /// the other way, lanes `0..8 * matrices` each storing one 8-element row at `row`
    /// (checked as the sub-slice `&mut tile[row..row + 8]` is).
    pub fn stmatrix<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentB::stmatrix")
    }

    /// [`FragmentB::stmatrix`] with `.trans`: each matrix transposed on the way.
    pub fn stmatrix_trans<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentB::stmatrix_trans")
    }

    /// A fragment with every element zero: `FragmentB::<f16, M16N8K16>::zeroed()`.
    pub fn zeroed() -> Self {
        outside_kernel("FragmentB::zeroed")
    }
}

impl<T, S: FragmentShape> FragmentAcc<T, S> {
    /// PTX `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` into this fragment (16-bit
    /// elements; one 8 x 8 matrix per two elements a lane, so x4 for an m16n8k16 A, x2 for
    /// its B, x1 for an m16n8k8 B). Every lane of the warp calls it; lanes `0..8 * matrices`
    /// each give `row`, the index in `tile` where one 8-element row starts (lanes 0-7 the
    /// rows of matrix 0, 8-15 of matrix 1, ...), a multiple of 8; each lane receives
    /// element pairs as [`fragment_owner`](crate::mma::fragment_owner) lays them out. The row
    /// is checked as the sub-slice `&tile[row..row + 8]` is: `Error::OutOfBounds` on both
    /// backends. docs/tensor-cores.md gives the `row` of each fragment.
    pub fn ldmatrix<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentAcc::ldmatrix")
    }

    /// [`FragmentAcc::ldmatrix`] with `.trans`: each matrix transposed on the way (lane `l` gets
    /// column `l / 4` of rows `2 * (l % 4)` and `2 * (l % 4) + 1`), so a B stored K x N
    /// (row major) loads as the column-major B fragment.
    pub fn ldmatrix_trans<const N: usize>(&mut self, tile: &SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentAcc::ldmatrix_trans")
    }

    /// PTX `stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16` (sm_90): [`FragmentAcc::ldmatrix`]
    /// the other way, lanes `0..8 * matrices` each storing one 8-element row at `row`
    /// (checked as the sub-slice `&mut tile[row..row + 8]` is).
    pub fn stmatrix<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentAcc::stmatrix")
    }

    /// [`FragmentAcc::stmatrix`] with `.trans`: each matrix transposed on the way.
    pub fn stmatrix_trans<const N: usize>(&self, tile: &mut SharedArray<T, N>, row: usize) {
        let _ = (tile, row);
        outside_kernel("FragmentAcc::stmatrix_trans")
    }

    /// An accumulator with every element zero: `FragmentAcc::<f32, M16N8K16>::zeroed()`.
    pub fn zeroed() -> Self {
        outside_kernel("FragmentAcc::zeroed")
    }

    /// `self = a * b + self`: PTX `mma.sync.aligned.<shape>.row.col` with D = C = `self`.
    /// Every lane of the warp calls it together (`.aligned`); the element types must be an
    /// instruction's (f16 x f16 into f32 or f16; bf16 x bf16 into f32; tf32 x tf32 into f32
    /// in [`M16N8K8`]; in [`M16N8K32`], i8 or u8 x i8 or u8 into i32, wrapping modulo 2^32,
    /// and e4m3 or e5m2 x e4m3 or e5m2 into f32 on sm_89 and later: A and B of one type but
    /// in these mixed forms). On the simulator the sum
    /// is exact, rounded once (docs/tensor-cores.md bounds the GPU's difference).
    pub fn mma_sync<U, V>(&mut self, a: FragmentA<U, S>, b: FragmentB<V, S>) {
        let _ = (a, b);
        outside_kernel("FragmentAcc::mma_sync")
    }

    /// `self = A * B^T + self` for one slab of K: PTX
    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16` (or `.f16`), sm_90a, with `self`
    /// a `FragmentAcc<f32, M64N{N}K16>` ([`M64N128K16`](super::M64N128K16)), 16-wide slabs;
    /// or `.m64nNk8.f32.tf32.tf32` with `self` a `FragmentAcc<f32, M64N{N}K8>`
    /// ([`M64N128K8`](super::M64N128K8)) and `f32` tiles, 8-wide slabs, each element read as
    /// tf32 (its low 13 mantissa bits ignored). A tile row is 128 bytes of K (64 16-bit
    /// elements, 32 f32): `a` holds the 64-row tile A at its start (K-major), `b` the N-row
    /// tile B (row `n` holds `B[k][n]`), both 128B-swizzled
    /// ([`swizzle_byte_offset`](crate::swizzle::swizzle_byte_offset) with `Swizzle::B128`)
    /// and 1024-byte aligned in shared memory: sub-slices of a `SharedArray` the kernel
    /// declares or of `dynamic_shared::<T>()`, of one type. `k` in 0..4 picks the slab
    /// (columns `16 * k ..` of 16-bit tiles, `8 * k ..` of f32 ones).
    ///
    /// `a` may instead be a [`FragmentA<T, M64N{N}K16>`](FragmentA) in registers (16-bit
    /// types; `.m64nNk16` with A in registers): the slab of A itself, 8 elements a thread
    /// as [`wgmma_a_owner`](crate::mma::wgmma_a_owner) lays them out, which is the layout
    /// of the accumulator's columns `16 j .. 16 j + 16`: `a.x[e] = acc.x[8 * j + e]`
    /// (rounded) feeds a product back without shared memory.
    ///
    /// Every thread of the warpgroup calls it; it is asynchronous: read `self`, or write
    /// the tiles, only after the [`wgmma_wait_group`](super::wgmma_wait_group) that covers
    /// it, and call [`wgmma_fence`](super::wgmma_fence) after writing `self` or `a`'s
    /// registers. A tile shorter than its shape or `k` past 3 is
    /// [`Error::OutOfBounds`](crate::Error::OutOfBounds) at this line; a misaligned tile a
    /// kernel panic on the simulator.
    pub fn wgmma<U>(&mut self, a: impl super::WgmmaOperandA<U>, b: &[U], k: usize) {
        let _ = (a, b, k);
        outside_kernel("FragmentAcc::wgmma")
    }

    /// `self = A * B + self` for one slab of K, B MN-major: as [`FragmentAcc::wgmma`]
    /// (`bf16` or `f16` only, imm-trans-b 1), with B given K x N, rows of N (a row-major
    /// `V` of attention, a row-major `B` of a GEMM). `self` is a `FragmentAcc<f32,
    /// M64N{N}K16>` with N a multiple of 64. `b` holds N / 64 column blocks one after
    /// another, each `rows` rows of 64 elements of N (128 bytes, 128B-swizzled: one TMA box
    /// `[rows, 64]` with `Swizzle::B128`), `rows = b.len() / N` a multiple of 16 (of 8 at
    /// least where N > 64); slab `k` is rows `16 k .. 16 k + 16` of every block, `k <
    /// rows / 16` (and `k < 4` where A is a tile). Element `B[r][c]` is at byte
    /// `swizzle(((c / 64) * rows + r) * 128 + (c % 64) * 2)` of the tile.
    pub fn wgmma_trans_b<U>(&mut self, a: impl super::WgmmaOperandA<U>, b: &[U], k: usize) {
        let _ = (a, b, k);
        outside_kernel("FragmentAcc::wgmma_trans_b")
    }
}
