//! `gpu_print!`: what the simulator prints is what the GPU's `printf` prints, line for line,
//! for every scalar type and format spec the kernel language accepts. On a GPU the test
//! runs the kernel in a child process (the driver writes `printf` output to the process's
//! stdout) and compares its lines with the simulator's.

mod common;

use warpspeed::__private::{capture_sim_prints, format_g};
use warpspeed::prelude::*;
use warpspeed::{Backend, Device, LaunchConfig};

#[gpu_kernel]
fn show(xs: &[f32], ds: &[f64], ns: &[i32], bs: &[u8], wide: &[i64]) {
    let t = thread_idx().x as usize;
    let n = ns[t];
    gpu_print!(
        "t={} n={:5} z={:03} hex={:x} HEX={:X} byte={:x} fix={:.3} g={} d={:10.4} dg={} big={} flag={:6}|\n",
        t,
        n,
        n,
        n,
        bs[t],
        bs[t] as i8,
        xs[t],
        xs[t],
        ds[t],
        ds[t],
        wide[t],
        n > 0
    );
    gpu_println!("{t}: 100%");
}

struct Inputs {
    xs: Vec<f32>,
    ds: Vec<f64>,
    ns: Vec<i32>,
    bs: Vec<u8>,
    wide: Vec<i64>,
}

const THREADS: usize = 40;

fn inputs() -> Inputs {
    let mut rng = common::Rng::new(31);
    let specials = [
        0.0,
        -0.0,
        1.5,
        1e20,
        1.25e-5,
        123456.0,
        1234567.0,
        f64::INFINITY,
        -3.0,
    ];
    Inputs {
        xs: (0..THREADS)
            .map(|i| {
                specials
                    .get(i)
                    .map_or((rng.next_u32() % 20000) as f32 / 7.0 - 1000.0, |&v| {
                        v as f32
                    })
            })
            .collect(),
        ds: (0..THREADS)
            .map(|i| {
                specials
                    .get(i)
                    .map_or(f64::from(rng.next_u32()) / 3.0 - 1e9, |&v| v)
            })
            .collect(),
        ns: (0..THREADS)
            .map(|_| rng.next_u32() as i32 >> (rng.next_u32() % 31))
            .collect(),
        bs: (0..THREADS).map(|_| rng.next_u32() as u8).collect(),
        wide: (0..THREADS).map(|_| rng.next_u64() as i64).collect(),
    }
}

/// What Rust's formatting says each thread prints (floats without a precision as C's %g).
fn expected(i: &Inputs) -> Vec<String> {
    let mut lines = Vec::new();
    for t in 0..THREADS {
        let n = i.ns[t];
        lines.push(format!(
            "t={} n={:5} z={:03} hex={:x} HEX={:X} byte={:x} fix={:.3} g={} d={:10.4} dg={} big={} flag={:6}|",
            t,
            n,
            n,
            n,
            i.bs[t],
            i.bs[t] as i8,
            i.xs[t],
            format_g(f64::from(i.xs[t])),
            i.ds[t],
            format_g(i.ds[t]),
            i.wide[t],
            n > 0
        ));
        lines.push(format!("{t}: 100%"));
    }
    lines.sort();
    lines
}

fn launch(dev: &Device, i: &Inputs) {
    let (xs, ds, ns) = (
        dev.upload(&i.xs).unwrap(),
        dev.upload(&i.ds).unwrap(),
        dev.upload(&i.ns).unwrap(),
    );
    let (bs, wide) = (dev.upload(&i.bs).unwrap(), dev.upload(&i.wide).unwrap());
    show::launch(
        dev,
        LaunchConfig::new(1, THREADS as u32),
        &xs,
        &ds,
        &ns,
        &bs,
        &wide,
    )
    .unwrap();
    dev.synchronize().unwrap();
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn simulator_prints_what_rust_formats() {
    let i = inputs();
    let ((), text) = capture_sim_prints(|| launch(&Device::simulator(), &i));
    assert_eq!(sorted_lines(&text), expected(&i));
    // A warp prints in lane order: thread 0's lines come before thread 1's.
    let first: Vec<&str> = text.lines().take(3).collect();
    assert!(
        first[0].starts_with("t=0 ") && first[1].starts_with("t=1 "),
        "{text}"
    );
}

/// Run by `gpu_printf_matches_the_simulator` in a child process.
#[test]
fn child_prints_on_the_gpu() {
    if std::env::var_os("WARPSPEED_PRINT_CHILD").is_none() {
        return;
    }
    launch(&Device::cuda(0).unwrap(), &inputs());
}

#[test]
fn gpu_printf_matches_the_simulator() {
    let Some(dev) = common::devices("gpu_printf")
        .into_iter()
        .find(|d| d.backend() == Backend::Cuda)
    else {
        return;
    };
    drop(dev);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_prints_on_the_gpu",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("WARPSPEED_PRINT_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The harness's "test child_prints_on_the_gpu ... " has no newline before printf's.
    let text = String::from_utf8_lossy(&out.stdout).replace(" ... ", " ...\n");
    // The test harness adds its own lines; keep the kernel's.
    let kernel: Vec<String> = sorted_lines(&text)
        .into_iter()
        .filter(|l| l.starts_with("t=") || l.ends_with(": 100%"))
        .collect();
    assert_eq!(kernel, expected(&inputs()), "GPU printf output:\n{text}");
}
