//! Process start: the bench runs itself as a child (`--child-warm-start`) that opens the
//! GPU, uploads two vectors, launches the checked `vector_add` once and waits for it. The
//! first child starts with an empty disk cache (NVRTC compiles); the later ones find the
//! CUBIN there and must do no NVRTC work. Beside them runs `bench_raw_start`, a raw cudarc
//! program that loads the same CUBIN (read from warpspeed's disk cache entry, written to a
//! file) and does the same work. Times are from spawn to the kernel's end (the child prints
//! its wall clock), best of a few alternating runs; target: warpspeed within 10% of raw.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use warpspeed::__private::{proven_sites, KernelArgs};
use warpspeed::compile::{nvrtc_compile_count, nvrtc_version, CacheKey, DiskCache};
use warpspeed::{Device, LaunchConfig};

use crate::table::{Row, Unit, RAW_TARGET};
use crate::vector_add_kernels::vector_add;
use crate::{Bench, Res};

/// Warm starts of each program (the best counts).
const WARM_RUNS: usize = 3;
/// Elements of the child's vectors.
const CHILD_LEN: usize = 1 << 16;

/// What a child printed: NVRTC compilations, ms from its `main` to the kernel's end, and
/// ms from its spawn to the kernel's end.
struct Start {
    compiles: f64,
    main_ms: f64,
    spawn_ms: f64,
    /// `open:ms,upload:ms,launch:ms,sync:ms`: from `main` to the end of each step.
    phases: String,
}

/// Runs `cmd`, parses its `name=value` words.
fn spawn(mut cmd: Command, what: &str) -> Res<Start> {
    let spawned = SystemTime::now();
    let output = cmd.output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| -> Option<f64> {
        stdout
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
    };
    match (
        output.status.success(),
        field("nvrtc_compiles"),
        field("first_kernel_ms"),
        field("done_unix_ns"),
    ) {
        (true, Some(compiles), Some(main_ms), Some(done_ns)) => {
            let spawn_ns = spawned.duration_since(UNIX_EPOCH)?.as_nanos() as f64;
            Ok(Start {
                compiles,
                main_ms,
                spawn_ms: (done_ns - spawn_ns) / 1e6,
                phases: stdout
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("phases="))
                    .unwrap_or("?")
                    .to_string(),
            })
        }
        _ => Err(format!(
            "{what} failed ({}):\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into()),
    }
}

fn warpspeed_child(exe: &Path, cache: &Path) -> Res<Start> {
    let mut cmd = Command::new(exe);
    cmd.arg("--child-warm-start")
        .env("WARPSPEED_CACHE_DIR", cache)
        .env_remove("WARPSPEED_CACHE")
        .env("WARPSPEED_BACKEND", "cuda");
    spawn(cmd, "the warpspeed start child")
}

/// `bench_raw_start` next to this executable (cargo and gpu-bundle put examples together).
fn raw_program() -> Res<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(exe.with_file_name(format!("bench_raw_start{}", std::env::consts::EXE_SUFFIX)))
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let exe = std::env::current_exe()?;
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "warpspeed-bench-cache-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    let result = measure(b, &exe, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn measure(b: &Bench, exe: &Path, dir: &Path) -> Res<Vec<Row>> {
    let cold = warpspeed_child(exe, dir)?;
    if cold.compiles == 0.0 {
        b.mismatch("process start: a fresh cache directory should have needed NVRTC");
    }
    // The CUBIN the first child stored, as warpspeed's runtime looks it up.
    let arch = b.dev.compute_capability().expect("a CUDA device has one");
    let kernel = &vector_add::KERNEL;
    // The program the child's launch compiled: `vector_add` with the checks its launch
    // proves for three vectors of one length (docs/bounds.md, "Proven at launch").
    let (a, bb) = (
        b.dev.zeros::<f32>(CHILD_LEN)?,
        b.dev.zeros::<f32>(CHILD_LEN)?,
    );
    let mut out = b.dev.zeros::<f32>(CHILD_LEN)?;
    let mut args = KernelArgs::new();
    args.slice(&a).slice(&bb).slice_mut(&mut out);
    let proven = proven_sites(
        kernel,
        &LaunchConfig::for_num_elems(CHILD_LEN as u32),
        &args,
    );
    let key = CacheKey::new(
        &kernel.program(proven),
        arch,
        kernel.options,
        nvrtc_version()?,
    );
    let cubin = DiskCache::new(dir)
        .load(key)
        .ok_or("process start: the first child left no CUBIN in the disk cache")?;
    let cubin_path = dir.join("vector_add.cubin");
    std::fs::write(&cubin_path, cubin)?;
    let raw = raw_program()?;
    let have_raw = raw.exists();

    let (mut ws_best, mut raw_best): (Option<Start>, Option<Start>) = (None, None);
    let keep = |best: &mut Option<Start>, s: Start| {
        if best.as_ref().is_none_or(|b| s.spawn_ms < b.spawn_ms) {
            *best = Some(s);
        }
    };
    for _ in 0..WARM_RUNS {
        let ws = warpspeed_child(exe, dir)?;
        if ws.compiles != 0.0 {
            b.mismatch(format_args!(
                "process start: a warm start ran NVRTC {} times (the disk cache should have made it 0)",
                ws.compiles
            ));
        }
        keep(&mut ws_best, ws);
        if have_raw {
            let mut cmd = Command::new(&raw);
            let block = LaunchConfig::for_num_elems(CHILD_LEN as u32).block.x;
            cmd.arg(&cubin_path)
                .args(["--len", &CHILD_LEN.to_string()])
                .args(["--block", &block.to_string()])
                .args(["--entry", kernel.entry]);
            keep(&mut raw_best, spawn(cmd, "bench_raw_start")?);
        }
    }
    let ws = ws_best.expect("WARM_RUNS > 0");
    // The details, before the table (its rows keep to spawn-to-done times).
    println!(
        "process start: cold {:.1} ms from spawn ({:.1} ms from main, {} NVRTC compiles); \
         warm {:.1} ms ({:.1} ms from main, {} NVRTC compiles; {}); raw cudarc + CUBIN file: {}",
        cold.spawn_ms,
        cold.main_ms,
        cold.compiles,
        ws.spawn_ms,
        ws.main_ms,
        ws.compiles,
        ws.phases,
        match &raw_best {
            Some(r) => format!(
                "{:.1} ms ({:.1} ms from main; {})",
                r.spawn_ms, r.main_ms, r.phases
            ),
            None => format!("not run: no {}", raw.display()),
        }
    );
    let size = format!("vector add 2^{}", CHILD_LEN.trailing_zeros());
    let warm = Row {
        hand_target: RAW_TARGET,
        ..Row::new("process start, warm cache", &size, Unit::Ms).times(
            ws.spawn_ms,
            None,
            raw_best.as_ref().map(|r| r.spawn_ms),
        )
    };
    Ok(vec![
        Row::new("process start, cold cache", &size, Unit::Ms)
            .times(cold.spawn_ms, None, None)
            .note(format!("{} NVRTC compiles", cold.compiles)),
        warm.note(format!("{} NVRTC; hand = raw cudarc", ws.compiles)),
    ])
}

/// The child: open the GPU, run one kernel, report (the parent parses this line).
pub fn child(process_start: Instant) -> Res<bool> {
    let ms = || process_start.elapsed().as_secs_f64() * 1e3;
    let dev = Device::new()?;
    let open = ms();
    let n = CHILD_LEN;
    let ha: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let hb: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let (a, bb) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let mut out = dev.upload(&vec![f32::NAN; n])?;
    let upload = ms();
    vector_add::launch(
        &dev,
        LaunchConfig::for_num_elems(n as u32),
        &a,
        &bb,
        &mut out,
    )?;
    let launch = ms();
    dev.synchronize()?;
    let elapsed = process_start.elapsed();
    let done = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let got = out.download()?;
    let right = got
        .iter()
        .zip(ha.iter().zip(&hb))
        .all(|(g, (x, y))| *g == x + y);
    println!(
        "nvrtc_compiles={} first_kernel_ms={:.3} done_unix_ns={done} correct={right} \
         phases=open:{open:.1},upload:{upload:.1},launch:{launch:.1},sync:{:.1}",
        nvrtc_compile_count(),
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e3
    );
    Ok(right)
}
