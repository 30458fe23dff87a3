//! Block barriers and warp collectives on the simulator: their results, early exits,
//! the errors for divergent barriers, bad collectives and deadlocks, and seeded order.

#[macro_use]
mod sim_common;

use sim_common::{expect_err, run, sim, Rng};
use warpspeed_runtime::__private::{AtomicSlice, SimFuture, Slice, SliceMut, ThreadCtx};
use warpspeed_runtime::{Device, Error, LaunchConfig, SimOptions};

const FILE: &str = "runtime/tests/sim_sync.rs";

/// The detail of a `DivergentBarrier`, or a panic.
fn detail(err: &Error) -> &str {
    match err {
        Error::DivergentBarrier { detail, .. } => detail,
        other => panic!("expected DivergentBarrier, got {other}"),
    }
}

// ---- divergent barriers

site!(BARRIER_A);
site!(BARRIER_B);

fn divergent_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(divergent_sim(ctx, ctx.arg_scalar::<u32>(0)))
}

/// mode 0: threads below 16 and the others reach `sync_threads` at two sites;
/// 1: the others reach a `sync_threads_count` (another kind) at the second site.
async fn divergent_sim(ctx: &ThreadCtx<'_>, mode: u32) {
    let t = ctx.thread_idx().x;
    if t < 16 {
        ctx.sync_threads(&BARRIER_A).await;
    } else if mode == 0 {
        ctx.sync_threads(&BARRIER_B).await;
    } else {
        ctx.sync_threads_count(true, &BARRIER_B).await;
    }
}

kernel!(DIVERGENT, "divergent", ["mode"], divergent_entry);

#[test]
fn divergent_barrier_names_both_sites() {
    for mode in [0u32, 1] {
        let err = expect_err(run(&sim(), &DIVERGENT, LaunchConfig::new(2, 64), |a| {
            a.scalar(mode);
        }));
        let d = detail(&err);
        let b = if mode == 0 {
            "sync_threads"
        } else {
            "sync_threads_count"
        };
        assert_eq!(
            d,
            format!(
                "threads of the block wait at different barriers: thread (0, 0, 0) at \
                 sync_threads at {FILE}:{} and thread (16, 0, 0) at {b} at {FILE}:{} (every \
                 thread must reach the same barrier)",
                BARRIER_A.line(),
                BARRIER_B.line()
            )
        );
        assert!(
            err.to_string()
                .starts_with("kernel `divergent` cannot go on in block"),
            "{err}"
        );
    }
}

// ---- early return, and the barrier still works for the others

fn early_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(early_sim(
        ctx,
        ctx.arg_slice_mut::<i32>(0),
        ctx.arg_slice::<i32>(1),
        ctx.arg_scalar::<u32>(2),
    ))
}

/// Threads at or past `n` return at once; the others reverse `data[..n]` through shared
/// memory, twice (two barriers), and count themselves with sync_threads_count.
async fn early_sim(ctx: &ThreadCtx<'_>, out: SliceMut<i32>, data: Slice<i32>, n: u32) {
    let t = ctx.thread_idx().x;
    if t >= n {
        return;
    }
    let s = ctx.shared_array::<i32>(256, at!());
    let (t, n) = (t as usize, n as usize);
    s.store(ctx, t, data.load(ctx, t, at!()), at!());
    ctx.sync_threads(at!()).await;
    let v = s.load(ctx, n - 1 - t, at!());
    ctx.sync_threads(at!()).await;
    s.store(ctx, t, v * 2, at!());
    let live = ctx.sync_threads_count(true, at!()).await;
    out.store(
        ctx,
        t,
        s.load(ctx, t, at!()) + live as i32 * 1_000_000,
        at!(),
    );
}

kernel!(EARLY, "early", ["out", "data", "n"], early_entry);

#[test]
fn early_return_before_a_barrier_is_fine() {
    let dev = sim();
    let mut rng = Rng::new(11);
    let data: Vec<i32> = (0..256).map(|_| (rng.next_u32() % 1000) as i32).collect();
    let input = dev.upload(&data).unwrap();
    for n in [1u32, 37, 200, 256] {
        let mut out = dev.upload(&[-7i32; 256]).unwrap();
        run(&dev, &EARLY, LaunchConfig::new(1, 256), |a| {
            a.slice_mut(&mut out).slice(&input).scalar(n);
        })
        .unwrap();
        let got = out.download().unwrap();
        for t in 0..256usize {
            let want = if t < n as usize {
                data[n as usize - 1 - t] * 2 + n as i32 * 1_000_000
            } else {
                -7
            };
            assert_eq!(got[t], want, "n {n} thread {t}");
        }
    }
}

// ---- sync_threads_count / and / or, over live threads

fn votes_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(votes_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_slice::<u32>(1),
    ))
}

/// `preds[t]`: bit 0 the predicate, bit 1 "exit first"; out[3t..3t+3] = count, and, or.
async fn votes_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, preds: Slice<u32>) {
    let (tx, ty) = (ctx.thread_idx().x, ctx.thread_idx().y);
    let t = (ty * ctx.block_dim().x + tx) as usize;
    let b = ctx.block_idx().x as usize;
    let n = (ctx.block_dim().x * ctx.block_dim().y) as usize;
    let p = preds.load(ctx, b * n + t, at!());
    if p & 2 != 0 {
        return;
    }
    let pred = p & 1 != 0;
    let count = ctx.sync_threads_count(pred, at!()).await;
    let all = ctx.sync_threads_and(pred, at!()).await;
    let any = ctx.sync_threads_or(pred, at!()).await;
    let o = (b * n + t) * 3;
    out.store(ctx, o, count, at!());
    out.store(ctx, o + 1, all as u32, at!());
    out.store(ctx, o + 2, any as u32, at!());
}

kernel!(VOTES, "votes", ["out", "preds"], votes_entry);

#[test]
fn sync_threads_count_and_or() {
    let dev = sim();
    let (blocks, per) = (6usize, 96usize);
    let mut rng = Rng::new(5);
    let mut preds: Vec<u32> = (0..blocks * per)
        .map(|_| {
            let exit = u32::from(rng.below(8) == 0) << 1;
            exit | (rng.next_u32() & 1)
        })
        .collect();
    // Block 1: every live pred true; block 2: every live pred false; block 3: all exit but one.
    for t in 0..per {
        preds[per + t] |= 1;
        preds[2 * per + t] &= !1;
        preds[3 * per + t] = if t == 50 { 1 } else { 2 };
    }
    let input = dev.upload(&preds).unwrap();
    let mut out = dev.upload(&vec![u32::MAX; blocks * per * 3]).unwrap();
    run(
        &dev,
        &VOTES,
        LaunchConfig::new(blocks as u32, (32, 3)),
        |a| {
            a.slice_mut(&mut out).slice(&input);
        },
    )
    .unwrap();
    let got = out.download().unwrap();
    for b in 0..blocks {
        let live: Vec<u32> = preds[b * per..(b + 1) * per]
            .iter()
            .copied()
            .filter(|p| p & 2 == 0)
            .collect();
        let count = live.iter().filter(|p| *p & 1 != 0).count() as u32;
        let want = [
            count,
            u32::from(count == live.len() as u32),
            u32::from(count > 0),
        ];
        for t in 0..per {
            let i = b * per + t;
            let expect = if preds[i] & 2 != 0 {
                [u32::MAX; 3]
            } else {
                want
            };
            assert_eq!(got[i * 3..i * 3 + 3], expect, "block {b} thread {t}");
        }
    }
}

// ---- warp-collective errors and deadlocks

site!(SHFL_SITE);
site!(OTHER_SITE);

fn bad_warp_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(bad_warp_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// One wrong use of a collective per mode (see the test).
async fn bad_warp_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, mode: u32) {
    let t = ctx.thread_idx().x;
    let v = t * 10;
    let r = match mode {
        // Lane 3 exits; the others ballot over the full mask.
        0 => {
            if t == 3 {
                return;
            }
            ctx.ballot_sync(u32::MAX, true, &SHFL_SITE).await
        }
        // Lanes 0..16 shuffle from lane 20, outside their mask.
        1 => {
            if t >= 16 {
                return;
            }
            ctx.shfl_sync(0xFFFF, v, 20, 32, &SHFL_SITE).await
        }
        // Lane 5 goes to a block barrier while its warp shuffles: deadlock.
        2 => {
            if t == 5 {
                ctx.sync_threads(&OTHER_SITE).await;
                0
            } else {
                ctx.shfl_down_sync(u32::MAX, v, 1, 32, &SHFL_SITE).await
            }
        }
        // Lanes of one mask at different collectives.
        3 => {
            if t == 7 {
                ctx.any_sync(u32::MAX, true, &OTHER_SITE).await as u32
            } else {
                ctx.shfl_sync(u32::MAX, v, 0, 32, &SHFL_SITE).await
            }
        }
        // The calling lane is not in its own mask.
        4 => ctx.ballot_sync(0xFFFF_FFFE, true, &SHFL_SITE).await,
        // A width that is not a power of two.
        5 => ctx.shfl_xor_sync(u32::MAX, v, 1, 12, &SHFL_SITE).await,
        // Lanes of one mask with different masks.
        6 => {
            let mask = if t == 9 { 0x0000_FFFF } else { u32::MAX };
            if t >= 16 && t != 9 {
                ctx.sync_warp(u32::MAX, &SHFL_SITE).await;
                0
            } else {
                ctx.sync_warp(mask, &OTHER_SITE).await;
                0
            }
        }
        // The full mask in a warp of 20 threads (the block is 52 threads).
        _ => ctx.ballot_sync(u32::MAX, true, &SHFL_SITE).await,
    };
    out.store(ctx, t as usize, r, at!());
}

kernel!(BAD_WARP, "bad_warp", ["out", "mode"], bad_warp_entry);

fn launch_bad_warp(mode: u32, threads: u32) -> Error {
    let dev = sim();
    let mut out = dev.zeros::<u32>(64).unwrap();
    expect_err(run(&dev, &BAD_WARP, LaunchConfig::new(1, threads), |a| {
        a.slice_mut(&mut out).scalar(mode);
    }))
}

/// CUDA asks only the non-exited lanes of a mask to arrive: exited lanes, and lanes a
/// partial last warp does not have, take no part (their ballot bits are 0).
fn ballot_with_missing_lanes(mode: u32, threads: u32) -> Vec<u32> {
    let dev = sim();
    let mut out = dev.upload(&vec![7u32; 64]).unwrap();
    run(&dev, &BAD_WARP, LaunchConfig::new(1, threads), |a| {
        a.slice_mut(&mut out).scalar(mode);
    })
    .unwrap();
    out.download().unwrap()
}

#[test]
fn exited_and_missing_lanes_take_no_part() {
    let got = ballot_with_missing_lanes(0, 32);
    for (t, &r) in got.iter().enumerate().take(32) {
        let want = if t == 3 { 7 } else { !(1u32 << 3) };
        assert_eq!(r, want, "thread {t}");
    }
    // A block of 52 threads: the second warp has lanes 0..20.
    let got = ballot_with_missing_lanes(7, 52);
    assert!(got[..32].iter().all(|&r| r == u32::MAX), "{got:?}");
    assert!(got[32..52].iter().all(|&r| r == (1 << 20) - 1), "{got:?}");
}

#[test]
fn shuffle_from_a_lane_outside_the_mask() {
    let err = launch_bad_warp(1, 32);
    let d = detail(&err);
    assert!(
        d.contains("shfl_sync reads from lane 20, which is not in the mask 0x0000ffff"),
        "{d}"
    );
    assert!(d.contains(&format!("{FILE}:{}", SHFL_SITE.line())), "{d}");
}

#[test]
fn deadlock_between_a_shuffle_and_a_barrier() {
    let err = launch_bad_warp(2, 32);
    assert_eq!(
        detail(&err),
        format!(
            "deadlock: thread (0, 0, 0) (lane 0 of warp 0) waits at shfl_down_sync (mask \
             0xffffffff) at {FILE}:{} for lane 5, but thread (5, 0, 0) (lane 5 of warp 0) waits \
             at sync_threads at {FILE}:{}",
            SHFL_SITE.line(),
            OTHER_SITE.line()
        )
    );
}

#[test]
fn lanes_at_different_collectives() {
    let err = launch_bad_warp(3, 32);
    let d = detail(&err);
    assert!(
        d.starts_with("lanes of one mask wait at different warp collectives"),
        "{d}"
    );
    assert!(
        d.contains(&format!(
            "shfl_sync (mask 0xffffffff) at {FILE}:{}",
            SHFL_SITE.line()
        )),
        "{d}"
    );
    assert!(
        d.contains(&format!(
            "any_sync (mask 0xffffffff) at {FILE}:{}",
            OTHER_SITE.line()
        )),
        "{d}"
    );
    let err = launch_bad_warp(6, 32);
    let d = detail(&err);
    assert!(
        d.contains("mask 0x0000ffff") && d.contains("mask 0xffffffff"),
        "{d}"
    );
}

#[test]
fn bad_masks_and_widths() {
    let d = launch_bad_warp(4, 32);
    assert!(
        detail(&d).contains("calls ballot_sync at")
            && detail(&d).contains("does not name the calling lane 0"),
        "{d}"
    );
    let d = launch_bad_warp(5, 32);
    assert!(
        detail(&d).contains("the width 12 is not a power of two"),
        "{d}"
    );
}

// ---- seeded order

fn tickets_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(tickets_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_atomic::<u32>(1),
    ))
}

/// Each thread takes a ticket (the order threads run in), then the block sums the
/// tickets in shared memory with a tree reduction (a race-free result).
async fn tickets_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, next: AtomicSlice<u32>) {
    let t = ctx.thread_idx().x as usize;
    let n = ctx.block_dim().x as usize;
    let ticket = next.fetch_add(ctx, 0, 1, at!()).await;
    out.store(ctx, t, ticket, at!());
    let s = ctx.shared_array::<u32>(256, at!());
    s.store(ctx, t, ticket, at!());
    ctx.sync_threads(at!()).await;
    let mut stride = n / 2;
    while stride > 0 {
        if t < stride {
            let v = s.load(ctx, t, at!()) + s.load(ctx, t + stride, at!());
            s.store(ctx, t, v, at!());
        }
        ctx.sync_threads(at!()).await;
        stride /= 2;
    }
    if t == 0 {
        out.store(ctx, n, s.load(ctx, 0, at!()), at!());
    }
}

kernel!(TICKETS, "tickets", ["out", "next"], tickets_entry);

fn tickets(seed: Option<u64>) -> Vec<u32> {
    let dev = Device::simulator_with(SimOptions {
        race_checks: true,
        seed,
    });
    let mut out = dev.zeros::<u32>(257).unwrap();
    let mut next = dev.zeros::<u32>(1).unwrap();
    run(&dev, &TICKETS, LaunchConfig::new(1, 256), |a| {
        a.slice_mut(&mut out).slice_mut(&mut next);
    })
    .unwrap();
    out.download().unwrap()
}

#[test]
fn seeded_order_is_deterministic_and_race_free_kernels_pass() {
    let plain = tickets(None);
    assert_eq!(plain[..256], (0..256).collect::<Vec<u32>>());
    let a = tickets(Some(1));
    let b = tickets(Some(1));
    let c = tickets(Some(2));
    assert_eq!(a, b, "the same seed gives the same order");
    assert_ne!(a[..256], plain[..256], "a seed shuffles the order");
    assert_ne!(a[..256], c[..256], "another seed, another order");
    for v in [&plain, &a, &c] {
        let mut sorted = v[..256].to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..256).collect::<Vec<u32>>());
        assert_eq!(v[256], 255 * 256 / 2);
    }
}

// ---- active_mask: the lanes converged at the call

fn active_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(active_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// Threads at or past `n` return; the others split on bit 2 of the lane, ask for their
/// active mask in each branch, and ballot over it.
async fn active_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, n: u32) {
    let t = ctx.thread_idx().x;
    if t >= n {
        return;
    }
    let (mask, ballot) = if ctx.lane_id() & 4 == 0 {
        let m = ctx.active_mask(at!()).await;
        (m, ctx.ballot_sync(m, t % 3 == 0, at!()).await)
    } else {
        let m = ctx.active_mask(at!()).await;
        (m, ctx.ballot_sync(m, t % 3 == 0, at!()).await)
    };
    out.store(ctx, 2 * t as usize, mask, at!());
    out.store(ctx, 2 * t as usize + 1, ballot, at!());
}

kernel!(ACTIVE, "active", ["out", "n"], active_entry);

#[test]
fn active_mask_gives_the_converged_lanes() {
    for seed in [None, Some(3)] {
        let dev = Device::simulator_with(SimOptions {
            race_checks: true,
            seed,
        });
        for n in [70u32, 64, 37, 5] {
            let mut out = dev.upload(&[u32::MAX; 192]).unwrap();
            run(&dev, &ACTIVE, LaunchConfig::new(1, 96), |a| {
                a.slice_mut(&mut out).scalar(n);
            })
            .unwrap_or_else(|e| panic!("n {n}: {e}"));
            let got = out.download().unwrap();
            for t in 0..96u32 {
                let i = 2 * t as usize;
                if t >= n {
                    assert_eq!(got[i..i + 2], [u32::MAX; 2]);
                    continue;
                }
                let w = t / 32 * 32;
                let branch = |l: u32| w + l < n && (l & 4) == ((t % 32) & 4);
                let mask = (0..32).filter(|&l| branch(l)).fold(0u32, |m, l| m | 1 << l);
                let ballot = (0..32)
                    .filter(|&l| branch(l) && (w + l) % 3 == 0)
                    .fold(0u32, |m, l| m | 1 << l);
                assert_eq!(
                    got[i..i + 2],
                    [mask, ballot],
                    "seed {seed:?} n {n} thread {t}"
                );
            }
        }
    }
}

#[test]
fn seeded_order_keeps_race_free_results() {
    let dev = Device::simulator_with(SimOptions {
        race_checks: true,
        seed: Some(0xC0FFEE),
    });
    let mut rng = Rng::new(12);
    let data: Vec<i32> = (0..256).map(|_| (rng.next_u32() % 1000) as i32).collect();
    let input = dev.upload(&data).unwrap();
    let mut out = dev.upload(&[-7i32; 256]).unwrap();
    run(&dev, &EARLY, LaunchConfig::new(1, 256), |a| {
        a.slice_mut(&mut out).slice(&input).scalar(200u32);
    })
    .unwrap();
    let got = out.download().unwrap();
    for t in 0..200usize {
        assert_eq!(got[t], data[199 - t] * 2 + 200 * 1_000_000, "thread {t}");
    }
}
