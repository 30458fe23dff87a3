//! A single-pass prefix scan with decoupled look-back (Merrill and Garland, "Single-pass
//! Parallel Prefix Scan with Decoupled Look-back", NVIDIA 2016; CUB's `DeviceScan`), for
//! `u32` and `i32` with wrapping `+`, inclusive or exclusive: one launch reads every element
//! once and writes it once. Shared by the `scan` example (checks and timing) and the bench
//! (`#[path = "kernels/scan_lookback.rs"] mod scan_lookback;`), with a hand-written CUDA C
//! twin of the same algorithm, [`LOOKBACK_HAND_CUDA`].
//!
//! The kernels are the library's, `warpspeed::algorithms::scan::kernels::lookback_sums_u32`
//! and `lookback_sums_i32` (bounds-checked: only the status and counter indexes keep a
//! check, the prover removes the others) and their `unchecked::` twins; their text, the
//! launch they expect and the algorithm are in algorithms/src/template/lookback.rs (one
//! template for the library's sums, minima and maxima; `scan::inclusive_sum` of `u32` and
//! `i32` launches it). This module keeps what the example and the bench add around them:
//! [`LookbackScan`], a plan that owns the look-back state (status words, tile counter,
//! epochs) for any block size, [`LookbackElem`], which names each type's kernels, and the
//! hand-written twin.
//!
//! # How to launch (what [`LookbackScan::run`] does)
//!
//! ```text
//! lookback_sums_u32::launch(&dev, LaunchConfig::new(tiles, block),
//!                           &input, &mut out, &mut status, &mut counter, epoch, inclusive)
//! ```
//! - `block`: threads per block, a multiple of 32 up to [`MAX_LOOKBACK_BLOCK`] (256, the
//!   default [`LOOKBACK_BLOCK`]). A tile is `32 * block` elements ([`ITEMS_PER_THREAD`]):
//!   8192 with 256 threads, so 2^28 elements are 32768 tiles.
//! - grid: exactly `tiles = len.div_ceil(32 * block)` blocks; `status` one zeroed `u64` a
//!   tile, `counter` one zeroed `u32`, `epoch` 1, 2, .. (the template's docs say why).
//!
//! The hand-written `lookback_scan_hand_u32` takes the same grid, block, status buffer,
//! counter and epochs, as `(const unsigned* in, unsigned long long in_len, unsigned* out,
//! unsigned long long out_len, unsigned long long* status, unsigned* counter, unsigned
//! epoch, unsigned inclusive)` (each buffer with its length, as the kernels get them), and
//! scans `i32` data too (a wrapping sum has the same bits either way). [`HandLookback`]
//! compiles it as the kernels are compiled, loads it with cudarc and launches it on a
//! [`LookbackScan`]'s status words, counter and epochs ([`LookbackScan::next_launch`]), so
//! one plan serves both kernels.

#![allow(dead_code)]

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError, PushKernelArg};
use cudarc::nvrtc::Ptx;
use warpspeed::__private::KernelDef;
use warpspeed::{Device, DeviceBuffer, KernelScalar, LaunchConfig};

/// Threads per block [`LookbackScan`] uses unless told otherwise.
pub const LOOKBACK_BLOCK: u32 = 256;
/// The largest block the kernels take (their shared memory holds 8 warps' buffers).
pub const MAX_LOOKBACK_BLOCK: u32 = 256;
/// Elements each thread scans (the kernels' local array and loops are written for 32).
/// 32 rather than 16: the longer tile halves the look-back steps per element; on an H100
/// the hand-written twin ran 2^28 `u32` at 71% of copy bandwidth with 16 and 77% with 32
/// (docs/scan.md).
pub const ITEMS_PER_THREAD: u32 = 32;

// The kernels are the library's (`warpspeed::algorithms::scan` launches them for `u32` and
// `i32` sums): one text, algorithms/src/template/lookback.rs, serves the library, this
// example and the bench.
use warpspeed::algorithms::scan::kernels::{lookback_sums_i32, lookback_sums_u32, unchecked};

/// An element type the look-back kernels exist for (`u32`, `i32`): its kernels, checked
/// and unchecked.
pub trait LookbackElem: KernelScalar {
    /// `(checked, unchecked)`, for `--print-cuda` and `--check-nvrtc`.
    fn lookback_kernels() -> [&'static KernelDef; 2];
    /// Launches the checked or the unchecked kernel (arguments as the module says).
    #[allow(clippy::too_many_arguments)]
    fn launch_lookback(
        dev: &Device,
        cfg: LaunchConfig,
        checked: bool,
        input: &DeviceBuffer<Self>,
        out: &mut DeviceBuffer<Self>,
        status: &mut DeviceBuffer<u64>,
        counter: &mut DeviceBuffer<u32>,
        epoch: u32,
        inclusive: bool,
    ) -> Result<(), warpspeed::Error>;
}

macro_rules! lookback_elem {
    ($t:ident, $checked:ident, $($unchecked:ident)::+) => {
        impl LookbackElem for $t {
            fn lookback_kernels() -> [&'static KernelDef; 2] {
                [&$checked::KERNEL, &$($unchecked)::+::KERNEL]
            }
            fn launch_lookback(
                dev: &Device,
                cfg: LaunchConfig,
                checked: bool,
                input: &DeviceBuffer<$t>,
                out: &mut DeviceBuffer<$t>,
                status: &mut DeviceBuffer<u64>,
                counter: &mut DeviceBuffer<u32>,
                epoch: u32,
                inclusive: bool,
            ) -> Result<(), warpspeed::Error> {
                if checked {
                    $checked::launch(dev, cfg, input, out, status, counter, epoch, inclusive)
                } else {
                    $($unchecked)::+::launch(dev, cfg, input, out, status, counter, epoch, inclusive)
                }
            }
        }
    };
}

lookback_elem!(u32, lookback_sums_u32, unchecked::lookback_sums_u32);
lookback_elem!(i32, lookback_sums_i32, unchecked::lookback_sums_i32);

/// The state of look-back scans of `len` elements: the tiles' status words, the tile
/// counter and the epoch. Allocated once; [`LookbackScan::run`] launches one kernel and
/// returns without waiting. One plan serves `u32` and `i32` scans, checked or not, and the
/// hand-written kernel ([`LookbackScan::next_launch`]), as long as its launches are queued
/// one after another on the device's stream.
pub struct LookbackScan {
    len: usize,
    block: u32,
    status: DeviceBuffer<u64>,
    counter: DeviceBuffer<u32>,
    /// The epoch of the last launch (0: none yet).
    epoch: u32,
    /// A launch failed: the counter may not have come back to zero.
    counter_unknown: bool,
}

impl LookbackScan {
    /// A plan for `len > 0` elements with blocks of `block` threads (a multiple of 32 up to
    /// [`MAX_LOOKBACK_BLOCK`]; tiles of `32 * block` elements).
    pub fn new(dev: &Device, len: usize, block: u32) -> Result<Self, warpspeed::Error> {
        assert!(
            block.is_multiple_of(32) && (32..=MAX_LOOKBACK_BLOCK).contains(&block),
            "the look-back scan's block must be a multiple of 32 up to {MAX_LOOKBACK_BLOCK}"
        );
        assert!(len > 0, "the look-back scan needs at least one element");
        let tiles = len.div_ceil((block * ITEMS_PER_THREAD) as usize);
        assert!(
            tiles <= u32::MAX as usize,
            "too many tiles for the grid's x dimension"
        );
        Ok(LookbackScan {
            len,
            block,
            status: dev.zeros::<u64>(tiles)?,
            counter: dev.zeros::<u32>(1)?,
            epoch: 0,
            counter_unknown: false,
        })
    }

    /// Elements per tile (one block's share).
    pub fn tile(&self) -> usize {
        (self.block * ITEMS_PER_THREAD) as usize
    }

    /// Tiles, i.e. blocks of the launch.
    pub fn tiles(&self) -> u32 {
        self.status.len() as u32
    }

    /// The launch configuration: one block per tile, no dynamic shared memory.
    pub fn config(&self) -> LaunchConfig {
        LaunchConfig::new(self.tiles(), self.block)
    }

    /// Prepares the next launch and returns its epoch, for a launch by hand (the hand
    /// kernel with cudarc) with [`Self::status`] and [`Self::counter`]: zeroes the
    /// counter after a failed launch and the status words when the epochs run out.
    pub fn next_launch(&mut self) -> Result<u32, warpspeed::Error> {
        if self.counter_unknown {
            self.counter.copy_from_host(&[0])?;
            self.counter_unknown = false;
        }
        if self.epoch >= (1 << 31) - 1 {
            self.status.copy_from_host(&vec![0; self.status.len()])?;
            self.epoch = 0;
        }
        self.epoch += 1;
        Ok(self.epoch)
    }

    /// Says that a launch queued after [`Self::next_launch`] failed (the counter is reset
    /// before the next one).
    pub fn launch_failed(&mut self) {
        self.counter_unknown = true;
    }

    /// The status words (one per tile), for a launch by hand.
    pub fn status(&self) -> &DeviceBuffer<u64> {
        &self.status
    }

    /// The tile counter (zero between launches), for a launch by hand.
    pub fn counter(&self) -> &DeviceBuffer<u32> {
        &self.counter
    }

    /// Queues the scan of `input` into `out` (both `len` long) with the checked or the
    /// unchecked kernel; returns without waiting for the device.
    pub fn run<T: LookbackElem>(
        &mut self,
        dev: &Device,
        input: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        inclusive: bool,
        checked: bool,
    ) -> Result<(), warpspeed::Error> {
        assert_eq!(input.len(), self.len);
        assert_eq!(out.len(), self.len);
        let epoch = self.next_launch()?;
        let cfg = self.config();
        let result = T::launch_lookback(
            dev,
            cfg,
            checked,
            input,
            out,
            &mut self.status,
            &mut self.counter,
            epoch,
            inclusive,
        );
        if result.is_err() {
            self.launch_failed();
        }
        result
    }
}

/// The same algorithm written by hand in CUDA C (no headers: builtins and inline PTX), for
/// the bench: `lookback_scan_hand_u32`, launched as the module's documentation says.
/// `i32` data scans the same (wrapping `+` gives the same bits).
pub const LOOKBACK_HAND_CUDA: &str = r#"
__device__ __forceinline__ unsigned long long lb_load_relaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void lb_store_relaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}

// blockDim.x: a multiple of 32 up to 256; a tile is blockDim.x * 32 elements; one block
// per tile; counter zero before the first launch; epoch 1, 2, ... (below 2^31).
extern "C" __global__ void lookback_scan_hand_u32(
        const unsigned int* __restrict__ in, unsigned long long in_len,
        unsigned int* __restrict__ out, unsigned long long out_len,
        unsigned long long* __restrict__ status,
        unsigned int* __restrict__ counter, unsigned int epoch, unsigned int inclusive) {
    __shared__ unsigned int stage[8 * 1056];  // per warp 1024 elements, s at s + s / 32
    __shared__ unsigned int warp_totals[8];
    __shared__ unsigned int tile_id, tile_prefix;
    const unsigned int full = 0xffffffffu;
    const unsigned int tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;
    const unsigned int warps = blockDim.x >> 5;

    // Tile ids in the order blocks start; the block with the last one resets the counter.
    if (tid == 0) {
        unsigned int t = atomicAdd(counter, 1u);
        if (t + 1u == gridDim.x) atomicExch(counter, 0u);
        tile_id = t;
    }
    __syncthreads();
    const unsigned int tile = tile_id;
    if (tile >= gridDim.x) return;  // one status word per block, as the DSL kernel checks

    // Coalesced loads, transposed through shared memory: 32 consecutive elements a lane.
    const unsigned long long warp_base =
        (unsigned long long)tile * (blockDim.x * 32u) + warp * 1024u;
    unsigned int* striped = stage + warp * 1056u + lane;       // [33 j]: lane + 32 j
    unsigned int* blocked = stage + warp * 1056u + lane * 33u; // [j]: 32 lane + j
#pragma unroll
    for (unsigned int j = 0; j < 32u; ++j) {
        unsigned long long g = warp_base + lane + 32u * j;
        striped[33u * j] = g < in_len ? in[g] : 0u;
    }
    __syncwarp(full);
    unsigned int x[32];
    unsigned int acc = 0u;
#pragma unroll
    for (unsigned int j = 0; j < 32u; ++j) {
        acc += blocked[j];
        x[j] = acc;
    }
    const unsigned int total = acc;
    unsigned int lanes_incl = total;
#pragma unroll
    for (unsigned int d = 1u; d < 32u; d *= 2u) {
        unsigned int y = __shfl_up_sync(full, lanes_incl, d);
        if (lane >= d) lanes_incl += y;
    }
    if (lane == 31u) warp_totals[warp] = lanes_incl;
    __syncthreads();
    unsigned int warp_prefix = 0u, aggregate = 0u;
    for (unsigned int w = 0; w < warps; ++w) {
        unsigned int t = warp_totals[w];
        if (w < warp) warp_prefix += t;
        aggregate += t;
    }

    // Warp 0: publish the aggregate, look back 32 tiles at a time, publish the prefix.
    if (warp == 0u) {
        const unsigned long long flag_aggregate = 2ull * epoch;
        const unsigned long long flag_prefix = flag_aggregate + 1ull;
        unsigned int exclusive = 0u;
        if (tile == 0u) {
            if (lane == 0u) lb_store_relaxed(&status[0], (flag_prefix << 32) | aggregate);
        } else {
            if (lane == 0u) lb_store_relaxed(&status[tile], (flag_aggregate << 32) | aggregate);
            unsigned int back = lane + 1u;
            for (;;) {
                unsigned long long word = flag_prefix << 32;
                if (back <= tile) word = lb_load_relaxed(&status[tile - back]);
                unsigned long long flag = word >> 32;
                while (__any_sync(full, flag != flag_aggregate && flag != flag_prefix)) {
                    if (flag != flag_aggregate && flag != flag_prefix && back <= tile) {
                        word = lb_load_relaxed(&status[tile - back]);
                        flag = word >> 32;
                    }
                }
                unsigned int prefixes = __ballot_sync(full, flag == flag_prefix);
                unsigned int v = (unsigned int)word;
                if (prefixes != 0u && lane > (unsigned int)(__ffs(prefixes) - 1)) v = 0u;
#pragma unroll
                for (unsigned int m = 16u; m > 0u; m >>= 1) v += __shfl_xor_sync(full, v, m);
                exclusive += v;
                if (prefixes != 0u) break;
                back += 32u;
            }
            if (lane == 0u)
                lb_store_relaxed(&status[tile], (flag_prefix << 32) | (exclusive + aggregate));
        }
        if (lane == 0u) tile_prefix = exclusive;
    }
    __syncthreads();

    // Offsets added, back through shared memory, coalesced stores.
    const unsigned int offset = tile_prefix + warp_prefix + (lanes_incl - total);
    unsigned int before = 0u;
#pragma unroll
    for (unsigned int j = 0; j < 32u; ++j) {
        unsigned int v = inclusive ? x[j] : before;
        before = x[j];
        blocked[j] = offset + v;
    }
    __syncwarp(full);
#pragma unroll
    for (unsigned int j = 0; j < 32u; ++j) {
        unsigned long long g = warp_base + lane + 32u * j;
        if (g < out_len) out[g] = striped[33u * j];
    }
}
"#;

/// The hand-written kernel's name in [`LOOKBACK_HAND_CUDA`].
pub const LOOKBACK_HAND_KERNEL: &str = "lookback_scan_hand_u32";

/// [`LOOKBACK_HAND_CUDA`] compiled (as warpspeed compiles its kernels), loaded and launched
/// with cudarc on the device's stream, with a [`LookbackScan`]'s status words, counter and
/// epochs (GPU only).
pub struct HandLookback {
    stream: Arc<CudaStream>,
    function: CudaFunction,
}

/// A buffer's allocation on the GPU.
fn gpu(bytes: Option<&CudaSlice<u8>>) -> &CudaSlice<u8> {
    bytes.expect("a buffer of a GPU")
}

/// A driver error as warpspeed's.
fn driver(what: &'static str) -> impl Fn(DriverError) -> warpspeed::Error {
    move |source| warpspeed::Error::Driver {
        kernel: None,
        what: what.into(),
        source,
    }
}

impl HandLookback {
    /// Compiles the hand-written kernel for `dev` (a GPU) with the kernels' NVRTC options.
    pub fn load(dev: &Device) -> Result<Self, warpspeed::Error> {
        let cc = dev
            .compute_capability()
            .expect("a GPU has a compute capability");
        let options = lookback_sums_u32::KERNEL.options;
        let cubin = warpspeed::compile::compile_cubin(LOOKBACK_HAND_CUDA, cc, options)?;
        let stream = dev.cuda_stream().expect("a GPU has a stream").clone();
        let module = stream
            .context()
            .load_module(Ptx::from_binary(cubin))
            .map_err(driver("loading the hand-written look-back scan"))?;
        let function = module
            .load_function(LOOKBACK_HAND_KERNEL)
            .map_err(driver("loading the hand-written look-back scan"))?;
        Ok(HandLookback { stream, function })
    }

    /// Queues the hand-written scan of `input` into `out` (32-bit elements, `u32` or `i32`)
    /// on `plan`'s state; returns without waiting for the device.
    pub fn run<T: KernelScalar>(
        &self,
        plan: &mut LookbackScan,
        input: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        inclusive: bool,
    ) -> Result<(), warpspeed::Error> {
        assert_eq!(
            std::mem::size_of::<T>(),
            4,
            "the hand kernel scans 32-bit words"
        );
        assert_eq!(input.len(), plan.len);
        assert_eq!(out.len(), plan.len);
        let epoch = plan.next_launch()?;
        let config = cudarc::driver::LaunchConfig {
            grid_dim: (plan.tiles(), 1, 1),
            block_dim: (plan.block, 1, 1),
            shared_mem_bytes: 0,
        };
        let n = plan.len as u64;
        let inclusive = u32::from(inclusive);
        let mut launch = self.stream.launch_builder(&self.function);
        launch
            .arg(gpu(input.cuda_bytes()))
            .arg(&n)
            .arg(gpu(out.cuda_bytes()))
            .arg(&n)
            .arg(gpu(plan.status.cuda_bytes()))
            .arg(gpu(plan.counter.cuda_bytes()))
            .arg(&epoch)
            .arg(&inclusive);
        // SAFETY: the arguments are those of lookback_scan_hand_u32 (const unsigned* in,
        // unsigned long long in_len, unsigned* out, unsigned long long out_len, unsigned long
        // long* status, unsigned* counter, unsigned epoch, unsigned inclusive), in this order
        // and these sizes. `input` and `out` are live buffers of n 32-bit words of this context, distinct (`out` is
        // borrowed mutably); the grid has one block per status word; the counter is one
        // word and zero (the block with the last tile zeroes it; the plan resets it after a
        // failed launch); the epoch is new for the status words. Every access of the kernel
        // is guarded by its buffer's length or within the tile's shared memory.
        let result = unsafe { launch.launch(config) };
        if result.is_err() {
            plan.launch_failed();
        }
        result
            .map(drop)
            .map_err(driver("launching the hand-written look-back scan"))
    }
}
