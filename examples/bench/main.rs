//! GPU benchmark: every example kernel, checked and `unchecked`, beside the same algorithm
//! written by hand in CUDA C and the peers a user would pick instead, in one run and one
//! table (docs/benchmarks.md says what is measured and how to read it).
//!
//! Data flow: `main` parses the flags; `--check-nvrtc` compiles every CUDA source the bench
//! uses and stops (no GPU needed). Otherwise [`Bench::open`] opens the GPU and compiles and
//! loads the hand-written twins (`cuda/*.cu`, through warpspeed's NVRTC path with the twin
//! kernel's options); each group module (life, scan, histogram, ...) prepares its inputs,
//! checks every contestant's output against the CPU or against warpspeed's, times the
//! contestants in alternating rounds (`timing.rs`) and returns rows; `peers.rs` adds the
//! figures `bench/peers.py` measured (`--peers FILE.json`); `table.rs` prints the table
//! and counts missed targets. Outputs that differ always fail the run; a missed ratio
//! target is marked MISSED and fails it only with `--strict`.
//!
//! ```text
//! cargo run --release --example bench                       # on a GPU machine
//! cargo run --release --example bench -- --quick            # small sizes, a smoke run
//! cargo run --release --example bench -- --peers peers.json # with bench/peers.py's figures
//! cargo run --release --example bench -- --check-nvrtc --arch 90   # no GPU needed
//! bash bench/run.sh                                         # peers.py, then this, one table
//! ```

#[path = "../kernels/attention.rs"]
mod attention_kernels;
#[path = "../common/mod.rs"]
mod common;
#[path = "../kernels/convolve.rs"]
mod convolve_kernels;
#[path = "../kernels/gemm_hopper.rs"]
mod gemm_hopper;
#[path = "../kernels/gemm.rs"]
mod gemm_kernels;
#[path = "../kernels/histogram.rs"]
mod histogram_kernels;
#[path = "../kernels/life_bits.rs"]
mod life_bits_kernels;
#[path = "../kernels/life.rs"]
mod life_kernels;
#[path = "../kernels/matmul.rs"]
mod matmul_kernels;
#[path = "../kernels/monte_carlo_pi.rs"]
mod monte_carlo_pi_kernels;
#[path = "../kernels/polyval.rs"]
mod polyval_kernels;
#[path = "../kernels/scan.rs"]
mod scan_kernels;
#[path = "../kernels/scan_lookback.rs"]
mod scan_lookback;
#[path = "../kernels/user_kernels.rs"]
mod user_kernels;
#[path = "../kernels/vector_add.rs"]
mod vector_add_kernels;

mod args;
mod attention;
mod autotune;
mod convolve;
mod copy;
mod gemm;
mod hand;
mod histogram;
mod histogram_lib;
mod launch;
mod life;
mod life_bits;
mod life_texture;
mod map;
mod matmul;
mod peers;
mod polyval;
mod random;
mod reduce;
mod scan;
mod select;
mod sort;
mod sort_tiles;
mod start;
mod table;
mod timing;
mod user;
mod vector_add;
mod xoroshiro;

use std::cell::Cell;
use std::fmt::Display;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use cudarc::driver::CudaStream;
use warpspeed::__private::KernelDef;
use warpspeed::{Backend, Device};

use crate::args::{Args, Group, Sizes};
use crate::peers::Peers;
use crate::table::{Peer, Row, Unit};

/// What every fallible step of the bench returns.
pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// A group's measurement: its rows of the table.
type RowsOf = fn(&Bench) -> Res<Vec<Row>>;

/// A warpspeed kernel the bench launches, and its form ("checked", "unchecked", ...).
pub type Kernel = (&'static str, &'static KernelDef);

fn main() -> ExitCode {
    // The warm-start child's clock starts before anything else runs.
    let process_start = Instant::now();
    let args = Args::parse();
    let outcome = if args.child_warm_start {
        start::child(process_start)
    } else if args.check_nvrtc {
        check_nvrtc(args.arch)
    } else {
        run(args)
    };
    common::exit_code(outcome)
}

/// Every warpspeed kernel the bench launches (checked and unchecked).
fn kernels() -> Vec<Kernel> {
    let mut all = Vec::new();
    all.extend(life::kernels());
    all.extend(life_bits::kernels());
    all.extend(scan::kernels());
    all.extend(histogram::kernels());
    all.extend(matmul::kernels());
    all.extend(gemm::kernels());
    all.extend(attention::kernels());
    all.extend(convolve::kernels());
    all.extend(polyval::kernels());
    all.extend(vector_add::kernels());
    all.extend(launch::kernels());
    all.extend(user::kernels());
    all.extend(reduce::kernels());
    all.extend(random::kernels());
    all.extend(sort::kernels());
    all.extend(sort_tiles::kernels());
    all.extend(select::kernels());
    all.extend(histogram_lib::kernels());
    all.extend(autotune::kernels());
    all.extend(xoroshiro::kernels());
    all.extend(map::kernels());
    all
}

/// `--check-nvrtc`: every hand-written source and every warpspeed kernel through NVRTC.
fn check_nvrtc(arch: Option<u32>) -> Res<bool> {
    let arch = match arch {
        Some(a) => common::sm(a),
        None => Device::cuda(0)
            .ok()
            .and_then(|d| d.compute_capability())
            .unwrap_or((9, 0)),
    };
    let hand = hand::sources();
    let mut sources: Vec<(&str, &str, _)> = hand
        .iter()
        .map(|s| (s.file, s.source, s.twin.options))
        .collect();
    let generated = kernels();
    let names: Vec<String> = generated
        .iter()
        .map(|(form, k)| format!("{} ({form})", k.rust_name))
        .collect();
    sources.extend(
        generated
            .iter()
            .zip(&names)
            .map(|((_, k), name)| (name.as_str(), k.source.as_str(), k.options)),
    );
    let ok = common::compile_sources(&sources, &[arch])?;
    println!(
        "{} hand-written sources and {} warpspeed kernels: {}",
        hand.len(),
        generated.len(),
        if ok { "all compiled" } else { "SOME FAILED" }
    );
    Ok(ok)
}

/// The open GPU and what every group needs: sizes, the hand-written kernels, the peers'
/// figures, the memory ceiling, and whether every output so far was right.
pub struct Bench {
    pub dev: Device,
    pub stream: Arc<CudaStream>,
    pub sizes: Sizes,
    pub hand: hand::Hand,
    peers: Option<Peers>,
    /// Device-to-device copy bandwidth (read + write), GB/s, once measured.
    copy_gbs: Cell<Option<f64>>,
    ok: Cell<bool>,
}

impl Bench {
    /// Opens the GPU; `None` (said on stdout) on the simulator.
    fn open(args: &Args) -> Res<Option<Bench>> {
        let dev = Device::new()?;
        if dev.backend() != Backend::Cuda {
            println!(
                "bench: needs a CUDA GPU, but the device is {}; nothing to measure on the \
                 simulator.",
                dev.name()
            );
            return Ok(None);
        }
        let cc = dev.compute_capability().expect("a CUDA device has one");
        let stream = dev
            .cuda_stream()
            .expect("a CUDA device has a stream")
            .clone();
        let peers = args.peers.as_deref().map(Peers::load).transpose()?;
        let hand = hand::Hand::load(&stream, cc)?;
        Ok(Some(Bench {
            dev,
            stream,
            sizes: Sizes::new(args),
            hand,
            peers,
            copy_gbs: Cell::new(None),
            ok: Cell::new(true),
        }))
    }

    /// Says that an output differs from what it must be, and fails the run.
    pub fn mismatch(&self, what: impl Display) {
        eprintln!("MISMATCH {what}");
        self.ok.set(false);
    }

    /// Compares `got` with `want` bit for bit; a difference is a [`Bench::mismatch`].
    pub fn check<T: Copy + PartialEq + std::fmt::Debug, B: Eq>(
        &self,
        what: &str,
        got: &[T],
        want: &[T],
        bits: impl Fn(T) -> B,
    ) -> bool {
        match common::first_difference(got, want, bits) {
            None => true,
            Some((i, count)) => {
                self.mismatch(format_args!(
                    "{what}: {count} of {} elements differ, first at {i}: got {:?}, expected {:?}",
                    got.len(),
                    got[i],
                    want[i]
                ));
                false
            }
        }
    }

    /// The peers' figures for `key` (`peers.py`'s row name without its `_ms`/`_us`), in
    /// `unit`; empty without `--peers`.
    pub fn peers(&self, key: &str, unit: Unit) -> Vec<Peer> {
        self.peers
            .as_ref()
            .map_or_else(Vec::new, |p| p.row(key, unit))
    }

    /// The memory ceiling (GB/s moved, read + write), once the copy group measured it.
    pub fn copy_gbs(&self) -> Option<f64> {
        self.copy_gbs.get()
    }

    /// A note saying what fraction of the copy bandwidth `bytes` moved in `ms` is.
    pub fn bandwidth_note(&self, bytes: f64, ms: f64) -> String {
        let gbs = bytes / (ms * 1e-3) / 1e9;
        match self.copy_gbs() {
            Some(copy) => format!("{gbs:.0} GB/s, {:.0}% of copy", 100.0 * gbs / copy),
            None => format!("{gbs:.0} GB/s"),
        }
    }
}

fn run(args: Args) -> Res<bool> {
    let Some(b) = Bench::open(&args)? else {
        let required = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");
        if required {
            eprintln!("bench: WARPSPEED_REQUIRE_GPU=1 but no GPU is present");
        }
        return Ok(!required);
    };
    let (major, minor) = b.dev.compute_capability().unwrap_or((0, 0));
    let header = format!(
        "warpspeed bench: {} (sm_{major}{minor}), {}{}",
        b.dev.name(),
        table::now_utc(),
        if args.quick { ", --quick sizes" } else { "" }
    );
    println!("{header}");
    if let Some(p) = &b.peers {
        println!("peers: {}", p.describe());
    }
    let wanted = |g: Group| args.only.is_empty() || args.only.contains(&g);
    let mut rows: Vec<Row> = Vec::new();
    let groups: [(Group, RowsOf); 25] = [
        (Group::Copy, copy::rows),
        (Group::VectorAdd, vector_add::rows),
        (Group::Life, life::rows),
        (Group::Scan, scan::rows),
        (Group::Histogram, histogram::rows),
        (Group::Matmul, matmul::rows),
        (Group::Gemm, gemm::rows),
        (Group::Attention, attention::rows),
        (Group::Convolve, convolve::rows),
        (Group::Polyval, polyval::rows),
        (Group::UserKernels, user::rows),
        (Group::Reduce, reduce::rows),
        (Group::Random, random::rows),
        (Group::Sort, sort::rows),
        (Group::SortPairs, sort::pairs_rows),
        (Group::SortTiles, sort_tiles::rows),
        (Group::TopK, sort::top_k_rows),
        (Group::Select, select::rows),
        (Group::SelectTiling, select::tiling_rows),
        (Group::HistogramLib, histogram_lib::rows),
        (Group::Xoroshiro, xoroshiro::rows),
        (Group::Map, map::rows),
        (Group::Autotune, autotune::rows),
        (Group::Launch, launch::rows),
        (Group::Start, start::rows),
    ];
    for (group, rows_of) in groups {
        // The copy ceiling is measured whenever a streaming row needs it.
        let ceiling = group == Group::Copy && b.copy_gbs().is_none();
        if wanted(group) || ceiling {
            eprintln!("bench: {group:?}...");
            // A group that fails (a driver error, a missing program) fails the run; the
            // others still run and the table still prints.
            match rows_of(&b) {
                Ok(new) if wanted(group) => rows.extend(new),
                Ok(_) => {}
                Err(e) => {
                    eprintln!("bench: FAILED {group:?}: {e}");
                    b.ok.set(false);
                }
            }
        }
    }
    println!();
    println!("{header}");
    let missed = table::print(&rows);
    let ok = b.ok.get();
    println!(
        "outputs: {}; ratio targets missed: {missed}{}",
        if ok {
            "all equal to their references"
        } else {
            "SOME DIFFER OR FAILED (see MISMATCH and FAILED above)"
        },
        if args.strict { " (--strict)" } else { "" }
    );
    Ok(ok && !(args.strict && missed > 0))
}
