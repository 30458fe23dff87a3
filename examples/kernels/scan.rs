//! Scan (prefix-sum) kernels of seed 000, shared by the `scan` and `sim_speed` examples, with
//! their CPU references:
//! - the naive (Hillis-Steele) scan of 1024 values in one block, and the seed's racy original;
//! - the work-efficient (Blelloch) up-sweep/down-sweep scan of a tile in shared memory, for
//!   any length (the last tile is padded with the identity inside the kernel), inclusive or
//!   exclusive, on `u32`, `i32` and `f64`; with `add_tile_offsets` it makes a multi-block
//!   scan of any length ([`MultiBlockScan`]);
//! - the seed's own work-efficient scan, one launch per level with the host waiting in
//!   between (`seed_up_sweep`, `seed_down_sweep`).

#![allow(dead_code)]

use warpspeed::prelude::*;
use warpspeed::{Device, DeviceBuffer, KernelScalar, LaunchConfig};

/// Seed 000's naive (Hillis-Steele) inclusive scan of up to 1024 values in one block, in
/// shared memory. The seed updates `sum_buf[tid]` in place while a neighbour reads it in the
/// same step (a data race the simulator reports); this version reads first, waits at a
/// barrier, then writes: 10 steps of two barriers each.
/// Written once, instantiated checked (the default) and `unchecked` below.
macro_rules! naive_prefix_kernel {
    ($($opt:tt)*) => {
        #[gpu_kernel($($opt)*)]
        pub fn naive_prefix(vec: &[f64], out: &mut [f64]) {
            let sum_buf = SharedArray::<f64, 1024>::new();
            let tid = thread_idx().x as usize;
            sum_buf[tid] = vec[tid];
            let mut iter = 1usize;
            for _ in 0..10 {
                sync_threads();
                let v = if tid >= iter {
                    sum_buf[tid] + sum_buf[tid - iter]
                } else {
                    sum_buf[tid]
                };
                sync_threads();
                sum_buf[tid] = v;
                iter *= 2;
            }
            sync_threads();
            out[tid] = sum_buf[tid];
        }
    };
}

/// Seed 000's host-synchronised work-efficient scan: its three kernels, written once and
/// instantiated checked (the default) and `unchecked` below.
macro_rules! seed_scan_kernels {
    ($($opt:tt)*) => {
        /// Seed 000's `up_ker`: level `k` of the up-sweep, one thread per pair. Reads the previous
        /// level from `x_old` and writes `x` (the host copies `x` to `x_old` after each level).
        #[gpu_kernel($($opt)*)]
        pub fn seed_up_sweep(x: &mut [f64], x_old: &[f64], k: u32) {
            let tid = grid_1d();
            let two_k = 1usize << k;
            let two_k1 = 1usize << (k + 1);
            let j = tid * two_k1;
            if j + two_k1 - 1 < x.len() {
                x[j + two_k1 - 1] = x_old[j + two_k - 1] + x_old[j + two_k1 - 1];
            }
        }

        /// Seed 000's `down_ker` (the seed's listing declares `j` twice and never defines `tid`;
        /// this is what it means): level `k` of the down-sweep.
        #[gpu_kernel($($opt)*)]
        pub fn seed_down_sweep(y: &mut [f64], y_old: &[f64], k: u32) {
            let tid = grid_1d();
            let two_k = 1usize << k;
            let two_k1 = 1usize << (k + 1);
            let j = tid * two_k1;
            if j + two_k1 - 1 < y.len() {
                y[j + two_k - 1] = y_old[j + two_k1 - 1];
                y[j + two_k1 - 1] = y_old[j + two_k1 - 1] + y_old[j + two_k - 1];
            }
        }

        /// `dst = src` (the seed's `x_old_gpu[:] = x_gpu[:]`); also sets the last element to
        /// `last` when `set_last` (the down-sweep's `y[-1] = 0`).
        #[gpu_kernel($($opt)*)]
        pub fn copy_f64(dst: &mut [f64], src: &[f64], set_last: bool, last: f64) {
            let i = grid_1d();
            if i < dst.len() {
                dst[i] = if set_last && i + 1 == dst.len() {
                    last
                } else {
                    src[i]
                };
            }
        }
    };
}

/// The naive scan and the seed's work-efficient scan with bounds checks (the default).
pub mod checked {
    use super::*;
    naive_prefix_kernel!();
    seed_scan_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    naive_prefix_kernel!(unchecked);
    seed_scan_kernels!(unchecked);
}

pub use checked::{copy_f64, naive_prefix, seed_down_sweep, seed_up_sweep};

/// The seed's original kernel, race included: kept to show the simulator's report.
#[gpu_kernel]
pub fn naive_prefix_racy(vec: &[f64], out: &mut [f64]) {
    let sum_buf = SharedArray::<f64, 1024>::new();
    let tid = thread_idx().x as usize;
    sum_buf[tid] = vec[tid];
    let mut iter = 1usize;
    for _ in 0..10 {
        sync_threads();
        if tid >= iter {
            sum_buf[tid] = sum_buf[tid] + sum_buf[tid - iter];
        }
        iter *= 2;
    }
    sync_threads();
    out[tid] = sum_buf[tid];
}

/// Inclusive prefix sums in the order the naive scan adds (so f64 results match exactly):
/// after step k, element i holds the sum of x[i - 2^k + 1 ..= i] as a tree of pairs.
pub fn cpu_naive_prefix(x: &[f64]) -> Vec<f64> {
    let mut buf = x.to_vec();
    let mut iter = 1;
    while iter < buf.len() {
        let prev = buf.clone();
        for i in iter..buf.len() {
            buf[i] = prev[i] + prev[i - iter];
        }
        iter *= 2;
    }
    buf
}

// ---- the work-efficient (Blelloch) scan ------------------------------------------------

/// The largest block the tile kernels take: a tile is two elements per thread.
pub const MAX_SCAN_BLOCK: usize = 1024;
/// The largest tile (elements scanned by one block).
pub const MAX_TILE: usize = 2 * MAX_SCAN_BLOCK;

/// The Blelloch tile scan and the offset pass for one element type. The kernel language
/// has no generics, so a `macro_rules!` writes the same kernels for each type (integer `+`
/// wraps in both the CUDA C and the simulator, like Rust's release builds).
///
/// `$tiles(input, out, sums, inclusive)`: block `b` scans the tile of `2 * block_dim().x`
/// elements starting at `b * tile` (a power of two), thread `t` loading elements `t` and
/// `t + block_dim().x` of it (coalesced). Past the end of `input` the tile holds the
/// identity `$zero`, so any length works. The tile lives in shared memory with one padding
/// slot every 32 elements (`i + i / 32`), so the strided accesses of the sweeps fall in
/// different banks (GPU Gems 3, ch. 39). Up-sweep: a reduction tree leaves the tile's total
/// in its last slot; the block writes it to `sums[b]` and replaces it with the identity;
/// down-sweep: the tree walked back turns the partial sums into the exclusive scan. The
/// inclusive scan adds each element back. `log2(tile)` barriers each way.
///
/// `$add(data, offsets, tile_log2)`: adds `offsets[i >> tile_log2]` to element `i` (the
/// exclusive scan of the tile totals, i.e. everything before element i's tile).
macro_rules! blelloch_kernels {
    ($tiles:ident, $add:ident, $unchecked:ident, $t:ident, $zero:tt) => {
        blelloch_kernels!(@kernels [] $tiles, $add, $t, $zero);

        /// The same kernels `#[gpu_kernel(unchecked)]`, under the same names (for the
        /// bench: what the checks cost).
        pub mod $unchecked {
            use super::*;
            blelloch_kernels!(@kernels [unchecked] $tiles, $add, $t, $zero);
        }

        blelloch_kernels!(@impl $tiles, $add, $unchecked, $t, $zero);
    };
    (@kernels [$($opt:tt)*] $tiles:ident, $add:ident, $t:ident, $zero:tt) => {
        #[gpu_kernel($($opt)*)]
        pub fn $tiles(input: &[$t], out: &mut [$t], sums: &mut [$t], inclusive: bool) {
            // 2048 elements + 64 padding slots (one per 32). Indices inside the tile are
            // u32 (64-bit multiplies cost several instructions on the GPU).
            let temp = SharedArray::<$t, 2112>::new();
            let tid = thread_idx().x;
            let half = block_dim().x;
            let tile = 2 * half;
            let base = block_idx().x as usize * tile as usize;
            // One bound for the loads and the stores (the host passes equal lengths): the
            // bounds prover then knows both `input[ga]` and `out[ga]` are in range.
            let n = input.len().min(out.len());
            let ai = tid;
            let bi = tid + half;
            let ga = base + ai as usize;
            let gb = base + bi as usize;
            let xa = if ga < n { input[ga] } else { $zero };
            let xb = if gb < n { input[gb] } else { $zero };
            temp[(ai + (ai >> 5)) as usize] = xa;
            temp[(bi + (bi >> 5)) as usize] = xb;

            // Up-sweep (reduce): at stride `offset`, `d` threads each add a left subtree
            // into its right sibling.
            let mut offset = 1u32;
            let mut d = half;
            while d > 0 {
                sync_threads();
                if tid < d {
                    // Both are below the tile (at most 2048): `& 2047` changes nothing and
                    // says so to the bounds prover, so `temp`'s indexes need no check.
                    let i = (offset * (2 * tid + 1) - 1) & 2047;
                    let j = (offset * (2 * tid + 2) - 1) & 2047;
                    let pi = (i + (i >> 5)) as usize;
                    let pj = (j + (j >> 5)) as usize;
                    temp[pj] = temp[pj] + temp[pi];
                }
                offset *= 2;
                d /= 2;
            }
            sync_threads();
            if tid == 0 {
                let last = (tile - 1 + ((tile - 1) >> 5)) as usize;
                sums[block_idx().x as usize] = temp[last];
                temp[last] = $zero;
            }

            // Down-sweep: each node passes its value to its left child and the sum of its
            // value and the left child's old value to its right child.
            let mut d = 1u32;
            while d < tile {
                offset /= 2;
                sync_threads();
                if tid < d {
                    // Both are below the tile (at most 2048): `& 2047` changes nothing and
                    // says so to the bounds prover, so `temp`'s indexes need no check.
                    let i = (offset * (2 * tid + 1) - 1) & 2047;
                    let j = (offset * (2 * tid + 2) - 1) & 2047;
                    let pi = (i + (i >> 5)) as usize;
                    let pj = (j + (j >> 5)) as usize;
                    let left = temp[pi];
                    temp[pi] = temp[pj];
                    temp[pj] = temp[pj] + left;
                }
                d *= 2;
            }
            sync_threads();

            let ea = temp[(ai + (ai >> 5)) as usize];
            let eb = temp[(bi + (bi >> 5)) as usize];
            if ga < n {
                out[ga] = if inclusive { ea + xa } else { ea };
            }
            if gb < n {
                out[gb] = if inclusive { eb + xb } else { eb };
            }
        }

        #[gpu_kernel($($opt)*)]
        pub fn $add(data: &mut [$t], offsets: &[$t], tile_log2: u32) {
            let i = grid_1d();
            if i < data.len() {
                data[i] = data[i] + offsets[i >> tile_log2];
            }
        }

    };
    (@impl $tiles:ident, $add:ident, $unchecked:ident, $t:ident, $zero:tt) => {
        impl ScanElem for $t {
            const NAME: &'static str = stringify!($t);
            const ZERO: $t = $zero;
            fn add(self, other: $t) -> $t {
                blelloch_kernels!(@add $t, self, other)
            }
            fn launch_tiles(
                dev: &Device,
                cfg: LaunchConfig,
                input: &DeviceBuffer<$t>,
                out: &mut DeviceBuffer<$t>,
                sums: &mut DeviceBuffer<$t>,
                inclusive: bool,
                checked: bool,
            ) -> Result<(), warpspeed::Error> {
                if checked {
                    $tiles::launch(dev, cfg, input, out, sums, inclusive)
                } else {
                    $unchecked::$tiles::launch(dev, cfg, input, out, sums, inclusive)
                }
            }
            fn launch_add(
                dev: &Device,
                cfg: LaunchConfig,
                data: &mut DeviceBuffer<$t>,
                offsets: &DeviceBuffer<$t>,
                tile_log2: u32,
                checked: bool,
            ) -> Result<(), warpspeed::Error> {
                if checked {
                    $add::launch(dev, cfg, data, offsets, tile_log2)
                } else {
                    $unchecked::$add::launch(dev, cfg, data, offsets, tile_log2)
                }
            }
            fn kernels() -> [&'static warpspeed::__private::KernelDef; 2] {
                [&$tiles::KERNEL, &$add::KERNEL]
            }
            fn unchecked_kernels() -> [&'static warpspeed::__private::KernelDef; 2] {
                [&$unchecked::$tiles::KERNEL, &$unchecked::$add::KERNEL]
            }
        }
    };
    (@add f64, $a:expr, $b:expr) => { $a + $b };
    (@add $t:ident, $a:expr, $b:expr) => { $a.wrapping_add($b) };
}

/// An element type the Blelloch kernels exist for: its identity, its `+` (wrapping for
/// integers, as the kernels compute it) and its kernels. Results are compared by
/// `KernelScalar::to_bits`.
pub trait ScanElem: KernelScalar + Copy + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    const ZERO: Self;
    fn add(self, other: Self) -> Self;
    fn launch_tiles(
        dev: &Device,
        cfg: LaunchConfig,
        input: &DeviceBuffer<Self>,
        out: &mut DeviceBuffer<Self>,
        sums: &mut DeviceBuffer<Self>,
        inclusive: bool,
        checked: bool,
    ) -> Result<(), warpspeed::Error>;
    fn launch_add(
        dev: &Device,
        cfg: LaunchConfig,
        data: &mut DeviceBuffer<Self>,
        offsets: &DeviceBuffer<Self>,
        tile_log2: u32,
        checked: bool,
    ) -> Result<(), warpspeed::Error>;
    /// Both kernels (for `--print-cuda` and `--check-nvrtc`).
    fn kernels() -> [&'static warpspeed::__private::KernelDef; 2];
    /// Both kernels `unchecked`.
    fn unchecked_kernels() -> [&'static warpspeed::__private::KernelDef; 2];
}

blelloch_kernels!(
    blelloch_tiles_u32,
    add_tile_offsets_u32,
    unchecked_u32,
    u32,
    0u32
);
blelloch_kernels!(
    blelloch_tiles_i32,
    add_tile_offsets_i32,
    unchecked_i32,
    i32,
    0i32
);
blelloch_kernels!(
    blelloch_tiles_f64,
    add_tile_offsets_f64,
    unchecked_f64,
    f64,
    0.0f64
);

/// A scan of any length as a sequence of launches with no host synchronisation between
/// them: level 0 scans tiles of the input into the output and writes each tile's total;
/// level 1 scans those totals (exclusively) the same way, and so on until one tile holds
/// them all; then, from the top level down, each level's scanned totals are added to the
/// tiles below. With 2048-element tiles, 2^28 elements need three levels (2^17 and 64
/// totals). The buffers for the totals are allocated once, in [`MultiBlockScan::new`].
pub struct MultiBlockScan<T: ScanElem> {
    len: usize,
    block: u32,
    /// `sums[j]`: the tile totals of level j (level 0 scans the input); the last has one.
    sums: Vec<DeviceBuffer<T>>,
    /// `offs[j]`: the exclusive scan of `sums[j]`, made global on the way down.
    offs: Vec<DeviceBuffer<T>>,
}

impl<T: ScanElem> MultiBlockScan<T> {
    /// A plan for `len` elements with blocks of `block` threads (a power of two up to 1024;
    /// tiles of `2 * block`).
    pub fn new(dev: &Device, len: usize, block: u32) -> Result<Self, warpspeed::Error> {
        assert!(
            block.is_power_of_two() && block as usize <= MAX_SCAN_BLOCK,
            "the scan block must be a power of two up to {MAX_SCAN_BLOCK}"
        );
        let tile = 2 * block as usize;
        let mut sums = Vec::new();
        let mut offs = Vec::new();
        let mut n = len.max(1);
        loop {
            let tiles = n.div_ceil(tile);
            sums.push(dev.zeros::<T>(tiles)?);
            if tiles == 1 {
                break;
            }
            offs.push(dev.zeros::<T>(tiles)?);
            n = tiles;
        }
        Ok(MultiBlockScan {
            len,
            block,
            sums,
            offs,
        })
    }

    /// Levels of tile scans (1 when the input fits one tile).
    pub fn levels(&self) -> usize {
        self.sums.len()
    }

    /// Launches in total (tile scans and offset passes).
    pub fn launches(&self) -> usize {
        2 * self.sums.len() - 1
    }

    /// Queues the scan of `input` into `out`; returns without waiting for the device.
    pub fn run(
        &mut self,
        dev: &Device,
        input: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        inclusive: bool,
    ) -> Result<(), warpspeed::Error> {
        self.run_with(dev, input, out, inclusive, true)
    }

    /// [`Self::run`] with the bounds-checked kernels or (`checked == false`) their
    /// `unchecked` twins.
    pub fn run_with(
        &mut self,
        dev: &Device,
        input: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
        inclusive: bool,
        checked: bool,
    ) -> Result<(), warpspeed::Error> {
        assert_eq!(input.len(), self.len);
        assert_eq!(out.len(), self.len);
        if self.len == 0 {
            return Ok(());
        }
        let tile = 2 * self.block as usize;
        let tile_log2 = tile.trailing_zeros();
        let grid = |n: usize| u32::try_from(n.div_ceil(tile)).expect("too many tiles");
        let add_cfg = |n: usize| LaunchConfig::for_num_elems(u32::try_from(n).expect("too long"));
        // Up: scan the input, then each level's totals.
        let cfg = LaunchConfig::new(grid(self.len), self.block);
        T::launch_tiles(dev, cfg, input, out, &mut self.sums[0], inclusive, checked)?;
        for j in 0..self.offs.len() {
            let (lower, upper) = self.sums.split_at_mut(j + 1);
            let n = lower[j].len();
            let cfg = LaunchConfig::new(grid(n), self.block);
            T::launch_tiles(
                dev,
                cfg,
                &lower[j],
                &mut self.offs[j],
                &mut upper[0],
                false,
                checked,
            )?;
        }
        // Down: make each level's offsets global, then offset the output's tiles.
        for j in (1..self.offs.len()).rev() {
            let (lower, upper) = self.offs.split_at_mut(j);
            let n = lower[j - 1].len();
            T::launch_add(
                dev,
                add_cfg(n),
                &mut lower[j - 1],
                &upper[0],
                tile_log2,
                checked,
            )?;
        }
        if let Some(offsets) = self.offs.first() {
            T::launch_add(dev, add_cfg(self.len), out, offsets, tile_log2, checked)?;
        }
        Ok(())
    }
}

/// The CPU reference for integers: a sequential scan with wrapping `+`.
pub fn cpu_scan<T: ScanElem>(x: &[T], inclusive: bool) -> Vec<T> {
    let mut acc = T::ZERO;
    x.iter()
        .map(|&v| {
            let before = acc;
            acc = acc.add(v);
            if inclusive {
                acc
            } else {
                before
            }
        })
        .collect()
}

/// The Blelloch scan of one tile on the CPU, adding in the kernel's order (for f64, whose
/// sums depend on the order): returns the tile's scan and its total.
pub fn cpu_blelloch_tile<T: ScanElem>(x: &[T], tile: usize, inclusive: bool) -> (Vec<T>, T) {
    let mut t = vec![T::ZERO; tile];
    t[..x.len()].copy_from_slice(x);
    let mut offset = 1;
    while offset < tile {
        for j in (2 * offset - 1..tile).step_by(2 * offset) {
            t[j] = t[j].add(t[j - offset]);
        }
        offset *= 2;
    }
    let total = t[tile - 1];
    t[tile - 1] = T::ZERO;
    while offset > 1 {
        offset /= 2;
        for j in (2 * offset - 1..tile).step_by(2 * offset) {
            let left = t[j - offset];
            t[j - offset] = t[j];
            t[j] = t[j].add(left);
        }
    }
    let out = x
        .iter()
        .zip(&t)
        .map(|(&v, &e)| if inclusive { e.add(v) } else { e })
        .collect();
    (out, total)
}

/// [`MultiBlockScan`] on the CPU, in the kernels' order of additions.
pub fn cpu_multi_block_scan<T: ScanElem>(x: &[T], tile: usize, inclusive: bool) -> Vec<T> {
    let mut out = Vec::with_capacity(x.len());
    let mut totals = Vec::new();
    for chunk in x.chunks(tile) {
        let (scanned, total) = cpu_blelloch_tile(chunk, tile, inclusive);
        out.extend(scanned);
        totals.push(total);
    }
    if totals.len() > 1 {
        let offsets = cpu_multi_block_scan(&totals, tile, false);
        for (i, v) in out.iter_mut().enumerate() {
            *v = v.add(offsets[i / tile]);
        }
    }
    out
}

// ---- the seed's host-synchronised work-efficient scan ---------------------------------

/// One launch (or wait) of the seed's work-efficient scan of `n` elements, in order: see
/// [`seed_scan_plan`].
#[derive(Clone, Copy, Debug)]
pub enum SeedStep {
    /// `copy_f64`: `old = x` (`to_x` false) or `x = old` (`to_x` true), with the last
    /// element set to 0 when `zero_last`.
    Copy { to_x: bool, zero_last: bool },
    /// `seed_up_sweep(x, old, k)` on `pairs` threads.
    Up(u32, LaunchConfig),
    /// `seed_down_sweep(x, old, k)` on `pairs` threads.
    Down(u32, LaunchConfig),
    /// The host waits for the device (the seed's PyCUDA copy after each level).
    Wait,
}

/// The seed's `efficient_prefix` (exclusive scan of a power-of-two length `n`) as the
/// launches it makes, with its launch configuration (blocks of 32 threads, one thread per
/// pair) and the host waiting after each level. `x` holds the input and receives the
/// result; `old` is scratch of the same length. Shared by [`seed_work_efficient_scan`] and
/// the bench's hand-written twin, so both make the same launches.
pub fn seed_scan_plan(n: usize) -> Vec<SeedStep> {
    assert!(
        n.is_power_of_two() && n >= 2,
        "the seed's scan needs a power of two"
    );
    let levels = n.trailing_zeros();
    let pairs = |k: u32| {
        let threads = (n >> (k + 1)) as u32;
        if threads > 32 {
            LaunchConfig::new(threads.div_ceil(32), 32)
        } else {
            LaunchConfig::new(1, threads)
        }
    };
    let copy = |to_x, zero_last| SeedStep::Copy { to_x, zero_last };
    let mut plan = vec![copy(false, false)];
    for k in 0..levels {
        plan.extend([
            SeedStep::Up(k, pairs(k)),
            copy(false, false),
            SeedStep::Wait,
        ]);
    }
    // y[-1] = 0, in both copies.
    plan.extend([copy(true, true), copy(false, false)]);
    for k in (0..levels).rev() {
        plan.extend([
            SeedStep::Down(k, pairs(k)),
            copy(false, false),
            SeedStep::Wait,
        ]);
    }
    plan
}

/// [`seed_scan_plan`] run with the checked kernels (the default).
pub fn seed_work_efficient_scan(
    dev: &Device,
    x: &mut DeviceBuffer<f64>,
    old: &mut DeviceBuffer<f64>,
) -> Result<(), warpspeed::Error> {
    seed_work_efficient_scan_with(dev, x, old, true)
}

/// A launch of `seed_up_sweep` or `seed_down_sweep`.
type SweepLaunch = fn(
    &Device,
    LaunchConfig,
    &mut DeviceBuffer<f64>,
    &DeviceBuffer<f64>,
    u32,
) -> Result<(), warpspeed::Error>;
/// A launch of `copy_f64`.
type CopyLaunch = fn(
    &Device,
    LaunchConfig,
    &mut DeviceBuffer<f64>,
    &DeviceBuffer<f64>,
    bool,
    f64,
) -> Result<(), warpspeed::Error>;

/// [`seed_scan_plan`] run with the checked or the `unchecked` kernels.
pub fn seed_work_efficient_scan_with(
    dev: &Device,
    x: &mut DeviceBuffer<f64>,
    old: &mut DeviceBuffer<f64>,
    checked: bool,
) -> Result<(), warpspeed::Error> {
    let (up, down, copy): (SweepLaunch, SweepLaunch, CopyLaunch) = if checked {
        (
            seed_up_sweep::launch,
            seed_down_sweep::launch,
            copy_f64::launch,
        )
    } else {
        use self::unchecked as u;
        (
            u::seed_up_sweep::launch,
            u::seed_down_sweep::launch,
            u::copy_f64::launch,
        )
    };
    let all = LaunchConfig::for_num_elems(u32::try_from(x.len()).expect("too long"));
    for step in seed_scan_plan(x.len()) {
        match step {
            SeedStep::Copy {
                to_x: false,
                zero_last,
            } => copy(dev, all, old, x, zero_last, 0.0)?,
            SeedStep::Copy {
                to_x: true,
                zero_last,
            } => copy(dev, all, x, old, zero_last, 0.0)?,
            SeedStep::Up(k, cfg) => up(dev, cfg, x, old, k)?,
            SeedStep::Down(k, cfg) => down(dev, cfg, x, old, k)?,
            SeedStep::Wait => dev.synchronize()?,
        }
    }
    Ok(())
}

/// The seed's work-efficient scan on the CPU, adding in its order (exclusive).
pub fn cpu_seed_work_efficient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let (out, _) = cpu_blelloch_tile(x, n, false);
    out
}
