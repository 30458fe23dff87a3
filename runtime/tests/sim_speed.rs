//! Three hand-made kernels timed on the simulator with every check on, results checked
//! against the CPU. Prints the time per launch (no timing assertions: run
//! `cargo test --release -p warpspeed-runtime --test sim_speed -- --nocapture` to read them).
//! - Life, 64x64, one generation, blocks of 32x16 (8 neighbours with wrap-around);
//! - naive Hillis-Steele scan of 1024 f64 in one block of 1024 threads (10 steps, 2
//!   barriers each);
//! - histogram of 16384 bytes, 4 blocks of 256 threads (shared atomic counts, a barrier,
//!   global atomic adds).

#[macro_use]
mod sim_common;

use std::time::{Duration, Instant};

use sim_common::{run, sim, Rng};
use warpspeed_runtime::__private::{AtomicSlice, SimFuture, Slice, SliceMut, ThreadCtx};
use warpspeed_runtime::{Device, LaunchConfig};

/// The median time of `runs` calls of `f`, after one warm-up call.
fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn report(what: &str, t: Duration) {
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "sim speed ({build}, {} CPU threads): {what}: {:.3} ms per launch",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        t.as_secs_f64() * 1e3
    );
}

// ---- Life

fn life_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(life_sim(
        ctx,
        ctx.arg_slice_mut::<u8>(0),
        ctx.arg_slice::<u8>(1),
        ctx.arg_scalar::<u32>(2),
    ))
}

async fn life_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u8>, cells: Slice<u8>, n: u32) {
    let (x, y) = ctx.grid_2d();
    let n = n as usize;
    if x >= n || y >= n {
        return;
    }
    let mut alive = 0u32;
    for dy in [n - 1, 0, 1] {
        for dx in [n - 1, 0, 1] {
            if dx == 0 && dy == 0 {
                continue;
            }
            let (xx, yy) = ((x + dx) % n, (y + dy) % n);
            alive += u32::from(cells.load(ctx, yy * n + xx, at!()));
        }
    }
    let me = cells.load(ctx, y * n + x, at!());
    let next = u8::from(alive == 3 || (alive == 2 && me == 1));
    out.store(ctx, y * n + x, next, at!());
}

kernel!(LIFE, "life", ["out", "cells", "n"], life_entry);

#[test]
fn life_64x64() {
    let dev = sim();
    let n = 64usize;
    let mut rng = Rng::new(3);
    let cells: Vec<u8> = (0..n * n).map(|_| u8::from(rng.below(3) == 0)).collect();
    let input = dev.upload(&cells).unwrap();
    let mut out = dev.upload(&vec![7u8; n * n]).unwrap();
    let cfg = LaunchConfig::new((2, 4), (32, 16));
    let t = time(20, || {
        run(&dev, &LIFE, cfg, |a| {
            a.slice_mut(&mut out).slice(&input).scalar(n as u32);
        })
        .unwrap()
    });
    let got = out.download().unwrap();
    for y in 0..n {
        for x in 0..n {
            let mut alive = 0;
            for dy in [n - 1, 0, 1] {
                for dx in [n - 1, 0, 1] {
                    if (dx, dy) != (0, 0) {
                        alive += cells[(y + dy) % n * n + (x + dx) % n];
                    }
                }
            }
            let want = u8::from(alive == 3 || (alive == 2 && cells[y * n + x] == 1));
            assert_eq!(got[y * n + x], want, "cell ({x}, {y})");
        }
    }
    report("life 64x64, blocks of 32x16", t);
}

// ---- Hillis-Steele scan

fn scan_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(scan_sim(
        ctx,
        ctx.arg_slice_mut::<f64>(0),
        ctx.arg_slice::<f64>(1),
    ))
}

async fn scan_sim(ctx: &ThreadCtx<'_>, out: SliceMut<f64>, data: Slice<f64>) {
    let s = ctx.shared_array::<f64>(1024, at!());
    let t = ctx.thread_idx().x as usize;
    s.store(ctx, t, data.load(ctx, t, at!()), at!());
    ctx.sync_threads(at!()).await;
    let mut d = 1;
    while d < 1024 {
        let v = if t >= d {
            s.load(ctx, t - d, at!()) + s.load(ctx, t, at!())
        } else {
            s.load(ctx, t, at!())
        };
        ctx.sync_threads(at!()).await;
        s.store(ctx, t, v, at!());
        ctx.sync_threads(at!()).await;
        d *= 2;
    }
    out.store(ctx, t, s.load(ctx, t, at!()), at!());
}

kernel!(SCAN, "scan", ["out", "data"], scan_entry);

#[test]
fn hillis_steele_scan_1024() {
    let dev = sim();
    let mut rng = Rng::new(4);
    let data: Vec<f64> = (0..1024).map(|_| (rng.below(1000) as f64) * 0.25).collect();
    let input = dev.upload(&data).unwrap();
    let mut out = dev.upload(&[f64::NAN; 1024]).unwrap();
    let t = time(10, || {
        run(&dev, &SCAN, LaunchConfig::new(1, 1024), |a| {
            a.slice_mut(&mut out).slice(&input);
        })
        .unwrap()
    });
    // Quarter-integers below 2^40: every partial sum is exact in any order.
    let got = out.download().unwrap();
    let mut sum = 0.0;
    for i in 0..1024 {
        sum += data[i];
        assert_eq!(got[i], sum, "element {i}");
    }
    report("Hillis-Steele scan of 1024 f64, one block of 1024", t);
}

// ---- shared-memory histogram

fn histogram_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(histogram_sim(
        ctx,
        ctx.arg_atomic::<u32>(0),
        ctx.arg_slice::<u8>(1),
    ))
}

async fn histogram_sim(ctx: &ThreadCtx<'_>, hist: AtomicSlice<u32>, data: Slice<u8>) {
    let counts = ctx.shared_atomic_array::<u32>(256, at!());
    let t = ctx.thread_idx().x as usize;
    counts.store(ctx, t, 0, at!()).await;
    ctx.sync_threads(at!()).await;
    let mut i = ctx.grid_1d();
    while i < data.len() {
        let b = data.load(ctx, i, at!()) as usize;
        counts.fetch_add(ctx, b, 1, at!()).await;
        i += ctx.grid_stride_1d();
    }
    ctx.sync_threads(at!()).await;
    let c = counts.load(ctx, t, at!()).await;
    if c != 0 {
        hist.fetch_add(ctx, t, c, at!()).await;
    }
}

kernel!(HISTOGRAM, "histogram", ["hist", "data"], histogram_entry);

fn histogram(dev: &Device, data: &[u8]) -> (Vec<u32>, Duration) {
    let input = dev.upload(data).unwrap();
    let mut hist = dev.zeros::<u32>(256).unwrap();
    let t = time(20, || {
        hist.copy_from_host(&[0; 256]).unwrap();
        run(dev, &HISTOGRAM, LaunchConfig::new(4, 256), |a| {
            a.slice_mut(&mut hist).slice(&input);
        })
        .unwrap()
    });
    (hist.download().unwrap(), t)
}

#[test]
fn shared_histogram_16k() {
    let mut rng = Rng::new(5);
    // Skewed bytes, so some counters are hot.
    let data: Vec<u8> = (0..16384)
        .map(|_| {
            let r = rng.next_u32();
            if r.is_multiple_of(4) {
                (r >> 8) as u8 % 4
            } else {
                (r >> 8) as u8
            }
        })
        .collect();
    let mut want = vec![0u32; 256];
    for &b in &data {
        want[b as usize] += 1;
    }
    let (got, t) = histogram(&sim(), &data);
    assert_eq!(got, want);
    report("histogram of 16384 bytes, 4 blocks of 256", t);
}
