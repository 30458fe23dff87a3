//! The table of kernel intrinsics: the free functions and associated functions the kernel
//! language knows by name. Each is one [`Row`] of [`TABLE`]: its name, parameters and
//! result (the type checker's), its C (a prelude helper, a CUDA builtin, or a cast), its
//! simulator call (the `ThreadCtx` method of the same name, or a path), whether it is a
//! barrier or a fence, and its line in docs/methods.md. Adding an intrinsic is adding a
//! row (and its prelude helper and `ThreadCtx` method, which the drift tests in
//! ir/methods_doc.rs demand); nothing else in the macro names intrinsics one by one.

use crate::ir::groups::GroupKind;
use crate::ir::ty::{Scalar, Ty};
use std::fmt;

/// One intrinsic: everything the macro knows of it.
#[derive(Debug)]
pub struct Row {
    /// What users write: `thread_idx`, or `f32::from_bits` for associated functions.
    pub name: &'static str,
    pub params: &'static [ParamKind],
    /// Takes an optional last `width` (a power of two up to 32), as CUDA's shuffles'
    /// default argument `width = warpSize`.
    pub width: bool,
    pub result: Res,
    pub c: C,
    /// For `thread_idx()` and its kin: the CUDA built-in variable behind `.x`/`.y`/`.z`.
    pub builtin: Option<Builtin>,
    /// The path the simulator calls (`warpspeed::f16::from_f32`); `None`: the simulator's
    /// `ThreadCtx` method of the same name.
    pub sim: Option<&'static str>,
    pub effect: Effect,
    /// The call passes its source location (the simulator's site, the C's line and file)
    /// though it is not a sync point: `cp_async`, whose copy is reported at its line.
    pub site: bool,
    /// The line docs/methods.md shows.
    #[cfg_attr(not(test), allow(dead_code))]
    pub doc: &'static str,
}

/// What an intrinsic gives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Res {
    Scalar(Scalar),
    Unit,
    Dim3,
    /// `(usize, usize)` or `(usize, usize, usize)`.
    Usizes(usize),
    Group(GroupKind),
    /// The type of its `Value` argument (shuffles).
    Value,
    /// Four of the element of its slice argument, as a tuple (`load4`).
    Quad,
}

/// How the C spells a call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum C {
    /// A function: a prelude helper or a CUDA builtin; templated on the `Value`
    /// argument's C type where the row has one (`ws_shfl_sync<float>`).
    Fn(&'static str),
    /// `x as T`, which the C writer spells from the argument's type (`T::from`).
    Cast,
    /// No run-time value (cooperative groups: their methods are the code).
    NoValue,
}

/// The CUDA built-in variables behind `thread_idx()`, `block_idx()`, `block_dim()`,
/// `grid_dim()`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Builtin {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

impl Builtin {
    pub fn c_name(self) -> &'static str {
        match self {
            Builtin::ThreadIdx => "threadIdx",
            Builtin::BlockIdx => "blockIdx",
            Builtin::BlockDim => "blockDim",
            Builtin::GridDim => "gridDim",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// A value, nothing else: may be dropped or reordered.
    Pure,
    /// A memory fence: kept in order, but no thread waits.
    Fence,
    /// A barrier or warp collective: a point where simulated threads wait for each other
    /// (the simulator awaits it and passes the call site), kept in order in the C.
    Sync,
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
    /// `cp_async`'s destination: a writable slice of a shared array this function declares
    /// (`&mut tile[a..b]`).
    SharedDst,
    /// `cp_async`'s source: a slice of global memory with the destination's element type.
    GlobalSrc,
    /// `tma_load_2d`'s destination: a writable slice of a shared array this function
    /// declares or of its `dynamic_shared` memory.
    TmaDst,
    /// A `&TensorMap<T>` parameter, `T` the destination's element type.
    TensorMap,
    /// `&bars[i]` of a `SharedArray::<Mbarrier, N>`.
    Mbarrier,
    /// `load4`'s source: a slice of any element type, global or shared memory, four
    /// elements long (`&x[i..i + 4]`).
    QuadSrc,
    /// `store4`'s destination: a writable slice, four elements long.
    QuadDst,
    /// A value of the element type of the row's slice argument (`store4`'s values).
    Elem,
}

/// What an intrinsic gives, as the type checker reads it.
pub enum Result {
    Fixed(Ty),
    /// The type of its `Value` argument (shuffles).
    Value,
    /// `(T, T, T, T)` of the element `T` of its slice argument (`load4`).
    Quad,
}

/// A row with no parameters, no effect, a C function and a `ThreadCtx` method; the
/// builders below change what differs.
const fn row(
    name: &'static str,
    params: &'static [ParamKind],
    result: Res,
    c: &'static str,
    doc: &'static str,
) -> Row {
    Row {
        name,
        params,
        width: false,
        result,
        c: C::Fn(c),
        builtin: None,
        sim: None,
        effect: Effect::Pure,
        site: false,
        doc,
    }
}

impl Row {
    const fn sync(mut self) -> Row {
        self.effect = Effect::Sync;
        self
    }
    const fn fence(mut self) -> Row {
        self.effect = Effect::Fence;
        self
    }
    const fn width(mut self) -> Row {
        self.width = true;
        self
    }
    const fn builtin(mut self, b: Builtin) -> Row {
        self.builtin = Some(b);
        self
    }
    const fn sim(mut self, path: &'static str) -> Row {
        self.sim = Some(path);
        self
    }
    const fn site(mut self) -> Row {
        self.site = true;
        self
    }
    const fn no_value(mut self) -> Row {
        self.c = C::NoValue;
        self
    }
}

/// `u32::from(x)` and its kin: Rust's lossless `From` conversions, which are `x as T`.
const fn from(name: &'static str, to: Scalar, sim: &'static str) -> Row {
    let mut r = row(
        name,
        &[ParamKind::Lossless],
        Res::Scalar(to),
        "",
        "a lossless conversion (Rust's `From`): `x as T`",
    );
    r.c = C::Cast;
    r.sim = Some(sim);
    r
}

/// `f32x4::new(x, y, z, w)`: a vector from its lanes.
const fn vector_new(
    name: &'static str,
    v: Scalar,
    lanes: &'static [ParamKind],
    c: &'static str,
    sim: &'static str,
) -> Row {
    row(name, lanes, Res::Scalar(v), c, "a vector from its lanes").sim(sim)
}

/// `f32x4::splat(v)`: every lane `v`.
const fn vector_splat(
    name: &'static str,
    v: Scalar,
    lane: &'static [ParamKind],
    c: &'static str,
    sim: &'static str,
) -> Row {
    row(
        name,
        lane,
        Res::Scalar(v),
        c,
        "a vector with every lane the same",
    )
    .sim(sim)
}

use ParamKind::{Bool as B, Value as V, U32 as U};
const F32: ParamKind = ParamKind::Scalar(Scalar::F32);
const F64: ParamKind = ParamKind::Scalar(Scalar::F64);
const U32: ParamKind = ParamKind::Scalar(Scalar::U32);
const I32: ParamKind = ParamKind::Scalar(Scalar::I32);
const U64: ParamKind = ParamKind::Scalar(Scalar::U64);
const USIZE: ParamKind = ParamKind::Scalar(Scalar::Usize);
const F16: ParamKind = ParamKind::Scalar(Scalar::F16);
const U8: ParamKind = ParamKind::Scalar(Scalar::U8);
const BF16: ParamKind = ParamKind::Scalar(Scalar::Bf16);

/// Every intrinsic, in the order docs/methods.md lists them: one row each.
#[rustfmt::skip]
pub static TABLE: &[Row] = &[
    row("thread_idx", &[], Res::Dim3, "ws_thread_idx", "the thread's index in its block (`threadIdx`)").builtin(Builtin::ThreadIdx),
    row("block_idx", &[], Res::Dim3, "ws_block_idx", "the block's index in the grid (`blockIdx`)").builtin(Builtin::BlockIdx),
    row("block_dim", &[], Res::Dim3, "ws_block_dim", "the block's extent (`blockDim`)").builtin(Builtin::BlockDim),
    row("grid_dim", &[], Res::Dim3, "ws_grid_dim", "the grid's extent in blocks (`gridDim`)").builtin(Builtin::GridDim),
    row("grid_1d", &[], Res::Scalar(Scalar::Usize), "ws_grid_1d", "`block_idx().x * block_dim().x + thread_idx().x` (Numba's `cuda.grid(1)`)"),
    row("grid_2d", &[], Res::Usizes(2), "ws_grid_2d", "the global `(x, y)` index"),
    row("grid_3d", &[], Res::Usizes(3), "ws_grid_3d", "the global `(x, y, z)` index"),
    row("grid_stride_1d", &[], Res::Scalar(Scalar::Usize), "ws_grid_stride_1d", "the grid's thread count in x, a grid-stride loop's step"),
    row("lane_id", &[], Res::Scalar(Scalar::U32), "ws_lane_id", "the lane in the warp, 0..32"),
    // `active_mask()` gives the lanes converged here: the simulator waits to know.
    row("active_mask", &[], Res::Scalar(Scalar::U32), "ws_active_mask", "the lanes converged here (`__activemask`)").sync(),
    row("sync_threads", &[], Res::Unit, "__syncthreads", "block barrier (`__syncthreads`)").sync(),
    row("sync_threads_count", &[B], Res::Scalar(Scalar::U32), "ws_sync_threads_count", "block barrier; how many threads' predicate holds").sync(),
    row("sync_threads_and", &[B], Res::Scalar(Scalar::Bool), "ws_sync_threads_and", "block barrier; whether every thread's predicate holds").sync(),
    row("sync_threads_or", &[B], Res::Scalar(Scalar::Bool), "ws_sync_threads_or", "block barrier; whether some thread's predicate holds").sync(),
    row("sync_warp", &[U], Res::Unit, "__syncwarp", "barrier of the mask's lanes (`__syncwarp`)").sync(),
    row("thread_fence", &[], Res::Unit, "ws_thread_fence", "memory fence, device scope (`__threadfence`)").fence(),
    row("thread_fence_block", &[], Res::Unit, "ws_thread_fence_block", "memory fence, block scope").fence(),
    row("thread_fence_system", &[], Res::Unit, "ws_thread_fence_system", "memory fence, system scope").fence(),
    row("ballot_sync", &[U, B], Res::Scalar(Scalar::U32), "ws_ballot_sync", "the mask's lanes whose predicate holds, as bits").sync(),
    row("all_sync", &[U, B], Res::Scalar(Scalar::Bool), "ws_all_sync", "whether the predicate holds on every lane of the mask").sync(),
    row("any_sync", &[U, B], Res::Scalar(Scalar::Bool), "ws_any_sync", "whether the predicate holds on some lane of the mask").sync(),
    row("shfl_sync", &[U, V, U], Res::Value, "ws_shfl_sync", "the value of lane `src` (optional `width`)").sync().width(),
    row("shfl_up_sync", &[U, V, U], Res::Value, "ws_shfl_up_sync", "the value of lane `lane - delta` (optional `width`)").sync().width(),
    row("shfl_down_sync", &[U, V, U], Res::Value, "ws_shfl_down_sync", "the value of lane `lane + delta` (optional `width`)").sync().width(),
    row("shfl_xor_sync", &[U, V, U], Res::Value, "ws_shfl_xor_sync", "the value of lane `lane ^ mask` (optional `width`)").sync().width(),
    row("match_any_sync", &[U, V], Res::Scalar(Scalar::U32), "ws_match_any_sync", "the mask's lanes holding the same value").sync(),
    // Four consecutive elements as one access where their alignment allows (the map's
    // vector path, algorithms/src/map.rs); docs/vectors.md.
    row("load4", &[ParamKind::QuadSrc], Res::Quad, "ws_load4", "reads the four elements of `src` (`&x[i..i + 4]`): one 4-, 8- or 16-byte load (two to four 16-byte loads for 32 to 64 bytes) where the address is aligned to it, four loads otherwise").site(),
    row("store4", &[ParamKind::QuadDst, ParamKind::Elem, ParamKind::Elem, ParamKind::Elem, ParamKind::Elem], Res::Unit, "ws_store4", "writes `a, b, c, d` to the four elements of `dst` (`&mut out[i..i + 4]`): one wide store where aligned, as `load4`").fence().site(),
    // cp.async (sm_80): the copy lands at the wait that covers its group (docs/tensor-cores.md).
    row("cp_async", &[ParamKind::SharedDst, ParamKind::GlobalSrc], Res::Unit, "ws_cp_async", "asynchronous copy of 4, 8 or 16 bytes, global to shared (`cp.async`)").fence().site(),
    row("cp_async_commit", &[], Res::Unit, "ws_cp_async_commit", "closes this thread's group of `cp_async`s (`cp.async.commit_group`)").fence(),
    row("cp_async_wait", &[U], Res::Unit, "ws_cp_async_wait", "waits for all but the newest `n` committed groups (`cp.async.wait_group`)").fence(),
    row("cp_async_wait_all", &[], Res::Unit, "ws_cp_async_wait_all", "waits for every `cp_async` of this thread (`cp.async.wait_all`)").fence(),
    // Swizzled tiles: where element `i` of a tile of `size`-byte elements lives, as TMA's
    // swizzles lay it out; `size` a literal 1, 2, 4, 8 or 16 (docs/tensor-cores.md).
    row("swizzle_128b", &[USIZE, USIZE], Res::Scalar(Scalar::Usize), "ws_swizzle_128b", "the index of element `i` of a 128B-swizzled tile of `size`-byte elements (the 16-byte chunks of each 128-byte row XORed with the row's index among 8)").sim("warpspeed::kernel::swizzle_128b"),
    row("swizzle_64b", &[USIZE, USIZE], Res::Scalar(Scalar::Usize), "ws_swizzle_64b", "the index of element `i` of a 64B-swizzled tile of `size`-byte elements").sim("warpspeed::kernel::swizzle_64b"),
    row("swizzle_32b", &[USIZE, USIZE], Res::Scalar(Scalar::Usize), "ws_swizzle_32b", "the index of element `i` of a 32B-swizzled tile of `size`-byte elements").sim("warpspeed::kernel::swizzle_32b"),
    // Hopper (sm_90): mbarriers and TMA (docs/tensor-cores.md).
    row("fence_mbarrier_init", &[], Res::Unit, "ws_fence_mbarrier_init", "makes earlier mbarrier inits visible to the TMA unit (`fence.mbarrier_init.release.cluster`)").fence(),
    row("fence_proxy_async", &[], Res::Unit, "ws_fence_proxy_async", "makes this thread's shared-memory writes visible to the async proxy: `wgmma`, TMA (`fence.proxy.async.shared::cta`)").fence(),
    row("tma_load_2d", &[ParamKind::TmaDst, ParamKind::TensorMap, I32, I32, ParamKind::Mbarrier], Res::Unit, "ws_tma_load_2d", "copies the box at (`row`, `col`) of a tensor map into shared memory, completing its bytes on the mbarrier (`cp.async.bulk.tensor.2d`)").fence().site(),
    // Hopper (sm_90a; docs/tensor-cores.md, "Hopper: warpgroup MMA"): `acc.wgmma(..)` is a
    // fragment method; its groups are counted per thread, as cp.async's.
    row("wgmma_fence", &[], Res::Unit, "ws_wgmma_fence", "orders the warpgroup's accumulator and shared-memory accesses before the `wgmma`s after it (`wgmma.fence.sync.aligned`)").fence(),
    row("wgmma_commit_group", &[], Res::Unit, "ws_wgmma_commit_group", "closes this thread's group of `wgmma`s (`wgmma.commit_group.sync.aligned`)").fence(),
    row("wgmma_wait_group", &[U], Res::Unit, "ws_wgmma_wait_group", "waits until at most the newest `n` groups of `wgmma`s are in flight (`wgmma.wait_group.sync.aligned`)").fence(),
    row("setmaxnreg_inc", &[U], Res::Unit, "ws_setmaxnreg_inc", "raises the warpgroup's registers a thread to `n`, a literal multiple of 8 in 24..=256 (`setmaxnreg.inc.sync.aligned.u32`)").sync(),
    row("setmaxnreg_dec", &[U], Res::Unit, "ws_setmaxnreg_dec", "lowers the warpgroup's registers a thread to `n`, a literal multiple of 8 in 24..=256 (`setmaxnreg.dec.sync.aligned.u32`)").sync(),
    row("this_thread_block", &[], Res::Group(GroupKind::Block), "", "the block as a cooperative group").no_value(),
    row("this_grid", &[], Res::Group(GroupKind::Grid), "", "the grid as a cooperative group (`sync()` under `launch_cooperative`)").no_value(),
    // `from_f64` is warpspeed's correctly rounded one (as the GPU's single
    // `cvt.rn.f16.f64`), not `half`'s, which rounds through f32 on some CPUs.
    row("f16::from_f32", &[F32], Res::Scalar(Scalar::F16), "ws_f16_from_f32", "`f32` to `f16`, correctly rounded").sim("warpspeed::f16::from_f32"),
    row("f16::from_f64", &[F64], Res::Scalar(Scalar::F16), "ws_f16_from_f64", "`f64` to `f16`, correctly rounded (once)").sim("warpspeed::__private::f16_from_f64"),
    row("f16x2::new", &[F16, F16], Res::Scalar(Scalar::F16x2), "ws_f16x2_new", "two halves in one `f16x2`").sim("warpspeed::f16x2::new"),
    // fp8: round to nearest even, then saturate (an infinity too), as `cvt.rn.satfinite`.
    row("e4m3::from_f32", &[F32], Res::Scalar(Scalar::E4m3), "ws_e4m3_from_f32", "`f32` to `e4m3`: nearest even, saturated to ±448 (`cvt.rn.satfinite.e4m3x2.f32`)").sim("warpspeed::e4m3::from_f32"),
    row("e4m3::from_f16", &[F16], Res::Scalar(Scalar::E4m3), "ws_e4m3_from_f16", "`f16` to `e4m3`: nearest even, saturated to ±448 (`cvt.rn.satfinite.e4m3x2.f16x2`)").sim("warpspeed::e4m3::from_f16"),
    row("e4m3::from_bf16", &[BF16], Res::Scalar(Scalar::E4m3), "ws_e4m3_from_bf16", "`bf16` to `e4m3`: as `from_f32` of the (exact) `f32`, saturated to ±448").sim("warpspeed::e4m3::from_bf16"),
    row("e4m3::from_bits", &[U8], Res::Scalar(Scalar::E4m3), "ws_e4m3_from_bits", "the `e4m3` with these bits").sim("warpspeed::e4m3::from_bits"),
    row("e5m2::from_f32", &[F32], Res::Scalar(Scalar::E5m2), "ws_e5m2_from_f32", "`f32` to `e5m2`: nearest even, saturated to ±57344 (`cvt.rn.satfinite.e5m2x2.f32`)").sim("warpspeed::e5m2::from_f32"),
    row("e5m2::from_f16", &[F16], Res::Scalar(Scalar::E5m2), "ws_e5m2_from_f16", "`f16` to `e5m2`: nearest even, saturated to ±57344 (`cvt.rn.satfinite.e5m2x2.f16x2`)").sim("warpspeed::e5m2::from_f16"),
    row("e5m2::from_bf16", &[BF16], Res::Scalar(Scalar::E5m2), "ws_e5m2_from_bf16", "`bf16` to `e5m2`: as `from_f32` of the (exact) `f32`, saturated to ±57344").sim("warpspeed::e5m2::from_bf16"),
    row("e5m2::from_bits", &[U8], Res::Scalar(Scalar::E5m2), "ws_e5m2_from_bits", "the `e5m2` with these bits").sim("warpspeed::e5m2::from_bits"),
    // bf16's `from_f64` is warpspeed's too: `half`'s ignores the low 32 bits of the f64.
    row("bf16::from_f32", &[F32], Res::Scalar(Scalar::Bf16), "ws_bf16_from_f32", "`f32` to `bf16`, correctly rounded (ties to even; NaN stays quiet NaN)").sim("warpspeed::bf16::from_f32"),
    row("bf16::from_f64", &[F64], Res::Scalar(Scalar::Bf16), "ws_bf16_from_f64", "`f64` to `bf16`, correctly rounded (once)").sim("warpspeed::__private::bf16_from_f64"),
    row("bf16x2::new", &[BF16, BF16], Res::Scalar(Scalar::Bf16x2), "ws_bf16x2_new", "two `bf16`s in one `bf16x2`").sim("warpspeed::bf16x2::new"),
    vector_new("f32x2::new", Scalar::F32x2, &[F32; 2], "ws_f32x2_new", "warpspeed::f32x2::new"),
    vector_new("f32x4::new", Scalar::F32x4, &[F32; 4], "ws_f32x4_new", "warpspeed::f32x4::new"),
    vector_new("u32x2::new", Scalar::U32x2, &[U32; 2], "ws_u32x2_new", "warpspeed::u32x2::new"),
    vector_new("u32x4::new", Scalar::U32x4, &[U32; 4], "ws_u32x4_new", "warpspeed::u32x4::new"),
    vector_new("i32x2::new", Scalar::I32x2, &[I32; 2], "ws_i32x2_new", "warpspeed::i32x2::new"),
    vector_new("i32x4::new", Scalar::I32x4, &[I32; 4], "ws_i32x4_new", "warpspeed::i32x4::new"),
    vector_new("f64x2::new", Scalar::F64x2, &[F64; 2], "ws_f64x2_new", "warpspeed::f64x2::new"),
    vector_splat("f32x2::splat", Scalar::F32x2, &[F32], "ws_f32x2_splat", "warpspeed::f32x2::splat"),
    vector_splat("f32x4::splat", Scalar::F32x4, &[F32], "ws_f32x4_splat", "warpspeed::f32x4::splat"),
    vector_splat("u32x2::splat", Scalar::U32x2, &[U32], "ws_u32x2_splat", "warpspeed::u32x2::splat"),
    vector_splat("u32x4::splat", Scalar::U32x4, &[U32], "ws_u32x4_splat", "warpspeed::u32x4::splat"),
    vector_splat("i32x2::splat", Scalar::I32x2, &[I32], "ws_i32x2_splat", "warpspeed::i32x2::splat"),
    vector_splat("i32x4::splat", Scalar::I32x4, &[I32], "ws_i32x4_splat", "warpspeed::i32x4::splat"),
    vector_splat("f64x2::splat", Scalar::F64x2, &[F64], "ws_f64x2_splat", "warpspeed::f64x2::splat"),
    row("f32::from_bits", &[U32], Res::Scalar(Scalar::F32), "ws_f32_from_bits", "the float with these IEEE bits (exact, NaN payloads kept)").sim("core::primitive::f32::from_bits"),
    row("f64::from_bits", &[U64], Res::Scalar(Scalar::F64), "ws_f64_from_bits", "the float with these IEEE bits (exact, NaN payloads kept)").sim("core::primitive::f64::from_bits"),
    from("i8::from", Scalar::I8, "core::primitive::i8::from"),
    from("i16::from", Scalar::I16, "core::primitive::i16::from"),
    from("i32::from", Scalar::I32, "core::primitive::i32::from"),
    from("i64::from", Scalar::I64, "core::primitive::i64::from"),
    from("isize::from", Scalar::Isize, "core::primitive::isize::from"),
    from("u8::from", Scalar::U8, "core::primitive::u8::from"),
    from("u16::from", Scalar::U16, "core::primitive::u16::from"),
    from("u32::from", Scalar::U32, "core::primitive::u32::from"),
    from("u64::from", Scalar::U64, "core::primitive::u64::from"),
    from("usize::from", Scalar::Usize, "core::primitive::usize::from"),
    from("f32::from", Scalar::F32, "core::primitive::f32::from"),
    from("f64::from", Scalar::F64, "core::primitive::f64::from"),
];

/// An intrinsic: a row of [`TABLE`].
#[derive(Clone, Copy)]
pub struct Intrinsic(&'static Row);

impl PartialEq for Intrinsic {
    fn eq(&self, other: &Intrinsic) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for Intrinsic {}

impl fmt::Debug for Intrinsic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}()", self.0.name)
    }
}

/// Every intrinsic.
pub fn all() -> impl Iterator<Item = Intrinsic> {
    TABLE.iter().map(Intrinsic)
}

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

impl Intrinsic {
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        all().find(|i| i.0.name == name)
    }

    /// The name users write, which is also the simulator's `ThreadCtx` method.
    pub fn rust_name(self) -> &'static str {
        self.0.name
    }

    /// The path the simulator calls instead of a `ThreadCtx` method.
    pub fn sim_path(self) -> Option<&'static str> {
        self.0.sim
    }

    /// The line docs/methods.md shows (read by its generator, a test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn doc(self) -> &'static str {
        self.0.doc
    }

    /// The parameters, in order.
    pub fn params(self) -> &'static [ParamKind] {
        self.0.params
    }

    /// Shuffles take an optional last `width`.
    pub fn takes_width(self) -> bool {
        self.0.width
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
        Result::Fixed(match self.0.result {
            Res::Scalar(s) => Ty::Scalar(s),
            Res::Unit => Ty::Unit,
            Res::Dim3 => Ty::Dim3,
            Res::Usizes(n) => Ty::Tuple(vec![Ty::USIZE; n]),
            Res::Group(g) => Ty::Group(g),
            Res::Value => return Result::Value,
            Res::Quad => return Result::Quad,
        })
    }

    /// The scalar `T::from(x)` converts to, for the `From` rows.
    pub fn cast_to(self) -> Option<Scalar> {
        match (self.0.c, self.0.result) {
            (C::Cast, Res::Scalar(s)) => Some(s),
            _ => None,
        }
    }

    /// A cooperative group, which has no run-time value.
    pub fn is_group(self) -> bool {
        self.0.c == C::NoValue
    }

    /// A barrier or warp collective: a point where simulated threads wait for each other
    /// (the simulator awaits it), and an effect the C must keep in order.
    pub fn is_sync(self) -> bool {
        self.0.effect == Effect::Sync
    }

    /// Has an effect (barriers, collectives, fences): never dropped or reordered.
    pub fn has_effect(self) -> bool {
        self.0.effect != Effect::Pure
    }

    /// The simulator call takes the source location (sync points name their site).
    pub fn sim_takes_site(self) -> bool {
        self.is_sync() || self.0.site
    }

    /// The C call takes the Rust line and file too (`cp_async` reports a bad size there).
    pub fn c_takes_site(self) -> bool {
        self.0.site
    }

    /// The CUDA built-in variable behind a `Dim3` intrinsic, for `thread_idx().x`.
    pub fn builtin(self) -> Option<Builtin> {
        self.0.builtin
    }

    /// The C function (a builtin or a prelude helper) the call becomes; `value` is the C
    /// type of the `Value` argument for the templated warp functions. Empty for a cast,
    /// "0" for a group.
    pub fn c_function(self, value: Option<&str>) -> String {
        let plain = match self.0.c {
            C::Fn(f) => f,
            C::Cast => "",
            C::NoValue => "0",
        };
        match value {
            Some(t) if self.params().contains(&ParamKind::Value) => format!("{plain}<{t}>"),
            _ => plain.to_string(),
        }
    }
}

#[test]
fn names_are_unique() {
    for (k, a) in TABLE.iter().enumerate() {
        assert!(
            TABLE[k + 1..].iter().all(|b| b.name != a.name),
            "two rows named `{}`",
            a.name
        );
    }
}
