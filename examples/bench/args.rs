//! The bench's flags ([`Args`]), the groups of rows `--only` picks from ([`Group`]), and the
//! problem sizes of a run ([`Sizes`]: the full ones, which are the peers' sizes too, or
//! `--quick`'s).

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// The groups of rows, in the order the table shows them (`--only` picks some).
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Group {
    Copy,
    VectorAdd,
    Life,
    Scan,
    Histogram,
    Matmul,
    /// Tensor-core GEMM (examples/kernels/gemm.rs) beside cuBLAS and Triton.
    Gemm,
    /// Flash-attention forward (examples/kernels/attention.rs) beside torch SDPA and Triton.
    Attention,
    Convolve,
    Polyval,
    /// Kernels written as users write them, declaring nothing (examples/kernels/user_kernels.rs).
    UserKernels,
    /// `warpspeed::algorithms::reduce`: sum, max, min_max, arg_max beside torch and cupy (CUB).
    Reduce,
    /// `warpspeed::algorithms::random`: Philox fills beside torch.rand/randn and CuPy.
    Random,
    /// `warpspeed::algorithms::sort`: radix sorts of keys (i32, f32, i64) beside cupy.sort
    /// (CUB) and torch.sort.
    Sort,
    /// `warpspeed::algorithms::sort` with values: `sort_pairs` (i64 and u32 indices, struct
    /// values) and `sort_with_indices`, beside torch.sort's values and indices.
    #[value(name = "sort_pairs")]
    SortPairs,
    /// `warpspeed::algorithms::sort`'s tiles: each tile of `sort::TILES_32` forced, and the
    /// tuner's choice, for 2^28 i32 keys and with i64 indices, beside cupy.sort and
    /// torch.sort.
    #[value(name = "sort_tiles")]
    SortTiles,
    /// `warpspeed::algorithms::sort::top_k` (radix select) beside torch.topk.
    #[value(name = "top_k")]
    TopK,
    /// `warpspeed::algorithms::select`: flagged, select_if and unique beside
    /// torch.masked_select, boolean indexing, torch.unique_consecutive and cupy.
    Select,
    /// `warpspeed::algorithms::select`'s tilings (`select::TUNED_TILINGS`): each forced,
    /// checked and unchecked, then the tuner's choice, beside the `select` group's peers.
    #[value(name = "select_tiling")]
    SelectTiling,
    /// `warpspeed::algorithms::histogram`: `histogram::even` of f32 (256, 4096 and 65536
    /// bins) beside cupy.histogram, torch.histc and torch.bincount.
    #[value(name = "histogram_lib")]
    HistogramLib,
    /// `warpspeed::algorithms::xoroshiro`: seed 002's Monte Carlo π and a fill by per-thread
    /// generators, beside torch and CuPy.
    Xoroshiro,
    /// `warpspeed::algorithms::map!`: an elementwise `a * x + y` beside torch and CuPy.
    Map,
    /// `warpspeed::autotune` in the library: each candidate of the reduce's, the
    /// histogram's and the scan's tuned parameter beside the tuner's choice.
    Autotune,
    Launch,
    Start,
}

#[derive(Parser)]
#[command(
    about = "Every example kernel, checked and unchecked, beside hand-written CUDA C and the \
             peers (needs a GPU; --check-nvrtc does not)"
)]
pub struct Args {
    /// Small sizes for a quick smoke run (Life 1024², 2^22 elements, matmul 512, 2 rounds).
    #[arg(long)]
    pub quick: bool,
    /// JSON written by bench/peers.py: adds the peers' figures and ratios to the table.
    #[arg(long, value_name = "FILE.json")]
    pub peers: Option<PathBuf>,
    /// Only these groups of rows (comma separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Group>,
    /// Life lattice sides of the naive and tiled rows [default: 4096,16384; --quick: 1024].
    #[arg(long, value_delimiter = ',')]
    pub life_sizes: Vec<usize>,
    /// Lattice sides of the bit-packed Life rows, multiples of 64 [default: 16384,65536;
    /// --quick: 1024].
    #[arg(long, value_delimiter = ',')]
    pub life_bits_sizes: Vec<usize>,
    /// Generations per launch of the bit-packed Life rows (1..=16) [default: 8].
    #[arg(long)]
    pub life_bits_per_launch: Option<u32>,
    /// Timed rounds per row (the best round counts; rounds alternate between contestants).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// GPU time one round of one contestant should take, in milliseconds.
    #[arg(long)]
    pub round_ms: Option<f64>,
    /// Exit with 1 when a ratio misses its target (outputs that differ always fail).
    #[arg(long)]
    pub strict: bool,
    /// Only compile every hand-written and generated CUDA source with NVRTC (no GPU needed).
    #[arg(long)]
    pub check_nvrtc: bool,
    /// Architecture for --check-nvrtc, e.g. 90 for sm_90 (default: the GPU's, else 90).
    #[arg(long)]
    pub arch: Option<u32>,
    /// Internal: the child process of the second-process-start rows.
    #[arg(long, hide = true)]
    pub child_warm_start: bool,
}

/// The problem sizes of one run: the full ones (the peers' sizes, those of the reference figures in docs/benchmarks.md) or
/// `--quick`'s.
pub struct Sizes {
    pub life: Vec<usize>,
    /// Sides of the bit-packed Life lattices (multiples of 64).
    pub life_bits: Vec<usize>,
    /// Generations per launch of the bit-packed Life rows.
    pub life_bits_per_launch: u32,
    /// Generations per launch of the one-block Life kernels (32x32 cells).
    pub block_generations: u32,
    pub vector_log2: u32,
    pub scan_log2: u32,
    pub histogram_log2: u32,
    pub matmul: usize,
    /// Sides of the tensor-core GEMM rows (n^3).
    pub gemm: Vec<usize>,
    /// Shapes (batch, heads, length, head dim) of the attention rows, full and causal.
    pub attention: Vec<(usize, usize, usize, usize)>,
    pub convolve: usize,
    pub polyval_log2: u32,
    /// Side of the user kernels' 2-D grids (heat, transpose, row sums); its square is the
    /// length of their 1-D ones (gather, conv1d). Their matmul uses `matmul`.
    pub user_2d: usize,
    /// Side of the user kernels' 3-D grid (heat_3d).
    pub user_3d: usize,
    /// log2 of the rows of the user kernels' CSR SpMV (about 16 nonzeros a row).
    pub user_spmv_log2: u32,
    pub copy_log2: u32,
    /// log2 of the length of the `reduce::sum` row.
    pub reduce_log2: u32,
    /// Empty launches per round of the launch-overhead rows.
    pub launches: usize,
    pub rounds: usize,
    pub round_ms: f64,
}

impl Sizes {
    pub fn new(args: &Args) -> Sizes {
        let mut s = if args.quick {
            Sizes {
                life: vec![1024],
                life_bits: vec![1024],
                life_bits_per_launch: 8,
                block_generations: 1000,
                vector_log2: 22,
                scan_log2: 22,
                histogram_log2: 22,
                matmul: 512,
                gemm: vec![512],
                attention: vec![(1, 2, 256, 64), (1, 2, 256, 128)],
                convolve: 1024,
                polyval_log2: 20,
                user_2d: 1024,
                user_3d: 64,
                user_spmv_log2: 18,
                copy_log2: 26,
                reduce_log2: 22,
                launches: 10_000,
                rounds: 2,
                round_ms: 50.0,
            }
        } else {
            Sizes {
                life: vec![4096, 16384],
                life_bits: vec![16384, 65536],
                life_bits_per_launch: 8,
                block_generations: 100_000,
                vector_log2: 28,
                scan_log2: 28,
                histogram_log2: 28,
                matmul: 4096,
                gemm: vec![4096, 8192],
                attention: vec![(4, 32, 4096, 128), (16, 16, 2048, 64)],
                convolve: 4096,
                polyval_log2: 26,
                user_2d: 8192,
                user_3d: 256,
                user_spmv_log2: 24,
                copy_log2: 30,
                reduce_log2: 28,
                launches: 100_000,
                rounds: 5,
                round_ms: 200.0,
            }
        };
        if !args.life_sizes.is_empty() {
            s.life.clone_from(&args.life_sizes);
        }
        if !args.life_bits_sizes.is_empty() {
            s.life_bits.clone_from(&args.life_bits_sizes);
        }
        s.life_bits_per_launch = args.life_bits_per_launch.unwrap_or(s.life_bits_per_launch);
        s.rounds = args.rounds.unwrap_or(s.rounds).max(1);
        s.round_ms = args.round_ms.unwrap_or(s.round_ms);
        s
    }
}
