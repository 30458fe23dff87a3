//! Every example, run as a user runs it (`cargo run --example NAME`) on the simulator
//! (`WARPSPEED_BACKEND=sim`), with sizes small enough for a debug build. Each example checks
//! its own results against a CPU reference and exits non-zero on a difference, so this
//! runs every example's kernels on the simulator in CI.

use std::path::PathBuf;
use std::process::Command;

/// (example, arguments): the same command as on the GPU, smaller.
const EXAMPLES: &[(&str, &[&str])] = &[
    ("life", &["--size", "70", "--generations", "3"]),
    (
        "life",
        &[
            "--variant",
            "all",
            "--size",
            "45",
            "--block-size",
            "20",
            "--generations",
            "4",
        ],
    ),
    (
        "life",
        &["--variant", "bits", "--size", "128", "--generations", "19"],
    ),
    ("matmul", &["--m", "37", "--k", "29", "--n", "41"]),
    ("gemm", &["--m", "64", "--n", "96", "--k", "48"]),
    // Three tiles on the simulator's two SMs: the ring of stages wraps across tiles.
    (
        "gemm",
        &[
            "--kernel", "hopper", "--m", "384", "--n", "256", "--k", "192",
        ],
    ),
    // Both head dimensions (two orders of the consumer's loop), full and causal, checked and
    // unchecked: one head of 256 keys, two query blocks, two key blocks each.
    (
        "attention",
        &["--batch", "1", "--heads", "1", "--len", "256"],
    ),
    (
        "convolve",
        &["--rows", "70", "--cols", "45", "--mask", "5x3"],
    ),
    ("warp_primitives", &[]),
    ("scan", &["--len", "20001", "--f64-len", "256"]),
    ("histogram", &["--len", "20001"]),
    ("vector_add", &["--len", "20001"]),
    ("scalar_multiply", &["--len", "20001"]),
    ("polyval", &["--len", "20001"]),
    (
        "monte_carlo_pi",
        &[
            "--blocks",
            "3",
            "--threads-per-block",
            "50",
            "--iterations",
            "300",
        ],
    ),
    ("sort", &["--len", "9001"]),
    ("sort", &["--len", "4097", "--descending"]),
    ("nbody", &["--n", "200", "--steps", "2", "--tile", "64"]),
    (
        "nbody",
        &[
            "--n",
            "130",
            "--steps",
            "2",
            "--tile",
            "128",
            "--precision",
            "f64",
        ],
    ),
    ("sim_speed", &["--runs", "1"]),
    ("bench", &["--quick"]),
    ("bench_raw_start", &[]),
    ("cudarc_interop", &["--len", "20001"]),
    ("streams", &["--len", "20001", "--streams", "3"]),
    (
        "life_multi",
        &[
            "--side",
            "48",
            "--strong",
            "72",
            "--gpus",
            "1,2,3",
            "--generations",
            "5",
        ],
    ),
    ("all_reduce", &["--gpus", "3", "--max-mib", "1"]),
    (
        "histogram_multi",
        &["--gpus", "3", "--len", "20001", "--bins", "37"],
    ),
];

/// target/<profile>/examples/, next to this test's own target/<profile>/deps/.
fn examples_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(|deps| deps.parent())
        .expect("test binary lives in target/<profile>/deps")
        .join("examples")
}

/// The built example, building it first when `cargo test` was asked for this test alone.
fn example_binary(name: &str) -> PathBuf {
    let path = examples_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let release = examples_dir()
            .parent()
            .is_some_and(|p| p.ends_with("release"));
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--example", name]);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("run cargo build");
        assert!(status.success(), "cargo build --example {name} failed");
    }
    path
}

#[test]
fn every_example_runs_on_the_simulator() {
    let mut failures = Vec::new();
    for (name, args) in EXAMPLES {
        let out = Command::new(example_binary(name))
            .args(*args)
            .env("WARPSPEED_BACKEND", "sim")
            .output()
            .unwrap_or_else(|e| panic!("could not start example {name}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        println!("=== {name} {}\n{stdout}{stderr}", args.join(" "));
        if !out.status.success() {
            failures.push(format!("{name}: {}\n{stdout}{stderr}", out.status));
        }
        if *name == "warp_primitives" {
            // The kernel's own printing, before the example shows what the seed expects.
            let (printed, expected) = stdout
                .split_once("expected (the seed's comments):\n")
                .unwrap_or((&stdout, ""));
            let expected = expected.trim_end_matches('\n');
            if expected.is_empty() || !printed.contains(expected) {
                failures.push(format!(
                    "warp_primitives printed\n{printed}\nbut the seed expects\n{expected}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "examples failed on the simulator:\n{}",
        failures.join("\n")
    );
}
