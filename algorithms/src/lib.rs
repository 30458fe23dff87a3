//! Algorithms written in warpspeed, for buffers and views on a GPU or the simulator
//! (issue 22; re-exported as `warpspeed::algorithms`).
//!
//! Every kernel here is an ordinary `#[gpu_kernel]`, written with the public API only, as a
//! user's crate would: read them, copy them. Each algorithm runs on both backends and
//! checks its input before anything is launched.
//!
//! | module | what |
//! |---|---|
//! | [`reduce`] | [`reduce::sum`], [`reduce::min`], [`reduce::max`], [`reduce::min_max`], [`reduce::arg_min`], [`reduce::arg_max`] of any integer or float buffer or view; [`reduce::reduce`] with any [`Operator`](operator::Operator) |
//! | [`random`] | Philox4x32-10 counter-based random numbers: device functions (`random::uniform_f32_at`, ..) and bulk fills (`random::fill_uniform_f32`, ..), the same bits on the GPU, the simulator and the host |
//! | [`xoroshiro`] | Numba's per-thread xoroshiro128+ generators: [`xoroshiro::create_xoroshiro128p_states`] and device functions (`xoroshiro128p_uniform_f32(states, i)`, ..) any kernel calls |
//! | [`scan`] | [`scan::inclusive`], [`scan::exclusive`] with any operator; [`scan::inclusive_sum`], [`scan::exclusive_sum`]; one launch (a look-back) for every integer, `f32` and `f64`, deterministic for floats |
//! | [`select`] | stream compaction: [`select::flagged`], [`select::select_if`] and [`select::partition`] with a user's predicate ([`predicate!`]), [`select::unique`], [`select::run_length_encode`], one pass with a look-back over tile counts, its tiling ([`select::Tiling`]) chosen by the autotuner |
//! | [`histogram`] | [`histogram::even`] (bins of equal width) and [`histogram::range`] (bins between levels) of any integer or `f32`/`f64` buffer or view, 1 to 65536 bins, into `u32` counts |
//! | [`sort`] | [`sort::sort`], [`sort::sort_descending`], [`sort::sort_pairs`], [`sort::sort_pairs_descending`], [`sort::top_k`], [`sort::gather`]: stable radix sorts of every integer type and `f32`/`f64` (`total_cmp` order), keys alone or with values of any kernel scalar or `#[gpu_struct]` |
//! | [`segmented`] | [`segmented::reduce`] with any operator and [`segmented::sum`] over [`segmented::Segments`] (offsets checked once); segmented scans [`segmented::inclusive`], [`segmented::exclusive`] with any operator, [`segmented::inclusive_sum`], [`segmented::exclusive_sum`] |
//! | [`map`](mod@map) | [`map!`]: a user's `#[gpu_device]` function made an elementwise map over buffers and views (Numba's `@vectorize`), lengths checked before the launch; vector loads (`load4`/`store4`) where every view is aligned, a grid-stride loop otherwise |
//! | autotuning | [`warpspeed::autotune`](warpspeed_core::autotune) times candidates of the reduce's grid and the single-pass scan's tile ([`reduce::TUNED_BLOCKS`], [`scan::TUNED_BLOCKS`]: integer operators only, so results never change), the histogram's grid ([`histogram::TUNED_BLOCKS_PER_SM`]), the sort's tile ([`sort::TILES_32`], [`sort::TILES_64`]: keys a thread of the pass kernel) and the select kernels' tiling ([`select::TUNED_TILINGS`]: items a thread, blocks an SM) once per GPU and size bucket; `WARPSPEED_AUTOTUNE=off` keeps the defaults (docs/algorithms.md, "Autotuning") |
//! | [`operator`](mod@operator) | what reductions combine with: [`operator::Sum`], [`operator::Min`], [`operator::Max`], and a user's `#[gpu_device]` function made one by [`operator!`] |

// The generated code names the facade `::warpspeed`, as it does in a user's crate; this
// crate sits below the facade, so the name is given to the core crate the facade
// re-exports. So the library's kernels read as a user's (no `crate = ".."` option), and
// the templates `operator!` expands in a user's crate are the ones the library uses.
extern crate warpspeed_core as warpspeed;

/// `kernels::NAME::launch(..)` or its `#[gpu_kernel(unchecked)]` twin
/// `kernels::unchecked::NAME::launch(..)`, as `$unchecked` says (the bench's comparison):
/// the one place a library kernel's checked or unchecked launch is chosen.
macro_rules! checked_or_not {
    ($unchecked:expr, $kernels:ident :: $name:ident :: $($call:tt)*) => {
        if $unchecked {
            $kernels::unchecked::$name::$($call)*
        } else {
            $kernels::$name::$($call)*
        }
    };
}

mod builtin;
pub mod histogram;
pub mod kernels;
pub mod map;
pub mod operator;
#[doc(hidden)]
pub mod radix_select;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod segmented;
pub mod select;
pub mod sort;
mod status;
mod template;
mod tune;
pub mod xoroshiro;
