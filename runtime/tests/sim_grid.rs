//! Cooperative launches and grid sync on the simulator: every block runs at once, a grid
//! sync orders accesses across blocks for the race checks, and what would hang on a GPU
//! (a block that returns, blocks at different grid syncs) or cannot launch (a grid sync
//! outside a cooperative launch, more blocks than fit at once) is an error.

#[macro_use]
mod sim_common;

use sim_common::{expect_err, run, run_cooperative, sim};
use warpspeed_runtime::__private::{AtomicSlice, SimFuture, SliceMut, ThreadCtx};
use warpspeed_runtime::{Device, Error, LaunchConfig, SimOptions};

const FILE: &str = "runtime/tests/sim_grid.rs";

// ---- exchange(a, b, rounds, sync): each round every thread writes an element of the
// next block's data, then (if `sync`) waits at the grid sync

fn exchange_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(exchange_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_slice_mut::<u32>(1),
        ctx.arg_scalar::<u32>(2),
        ctx.arg_scalar::<bool>(3),
    ))
}

site!(EXCHANGE_READ);
site!(EXCHANGE_WRITE);
site!(EXCHANGE_SYNC);

async fn exchange_sim(
    ctx: &ThreadCtx<'_>,
    a: SliceMut<u32>,
    b: SliceMut<u32>,
    rounds: u32,
    sync: bool,
) {
    let n = ctx.grid_stride_1d();
    let i = ctx.grid_1d();
    for r in 0..rounds {
        let (src, dst) = if r % 2 == 0 { (a, b) } else { (b, a) };
        let j = (i + ctx.block_dim().x as usize) % n;
        let v = src.load(ctx, j, &EXCHANGE_READ);
        dst.store(
            ctx,
            i,
            v.wrapping_mul(3).wrapping_add(r + 1),
            &EXCHANGE_WRITE,
        );
        if sync {
            ctx.sync_grid(&EXCHANGE_SYNC).await;
        }
    }
}

kernel!(grid_sync EXCHANGE, "exchange", ["a", "b", "rounds", "sync"], exchange_entry);

/// What `exchange` leaves in the buffer of its last round.
fn exchange_reference(input: &[u32], block: usize, rounds: u32) -> Vec<u32> {
    let n = input.len();
    let mut cur = input.to_vec();
    for r in 0..rounds {
        cur = (0..n)
            .map(|i| cur[(i + block) % n].wrapping_mul(3).wrapping_add(r + 1))
            .collect();
    }
    cur
}

fn run_exchange(dev: &Device, grid: u32, block: u32, rounds: u32) {
    let n = (grid * block) as usize;
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let mut a = dev.upload(&input).unwrap();
    let mut b = dev.zeros::<u32>(n).unwrap();
    run_cooperative(dev, &EXCHANGE, LaunchConfig::new(grid, block), |args| {
        args.slice_mut(&mut a)
            .slice_mut(&mut b)
            .scalar(rounds)
            .scalar(true);
    })
    .unwrap();
    let got = if rounds.is_multiple_of(2) { a } else { b };
    assert_eq!(
        got.download().unwrap(),
        exchange_reference(&input, block as usize, rounds),
        "grid {grid}, block {block}, rounds {rounds}"
    );
}

#[test]
fn grid_sync_orders_blocks() {
    let dev = sim();
    let sms = dev.limits().multiprocessor_count;
    for (grid, block, rounds) in [
        (1, 32, 3),
        (2, 64, 1),
        (8, 64, 5),
        (3, 100, 4),
        // More blocks than CPU workers: each worker interleaves several.
        (sms * 4, 96, 3),
    ] {
        run_exchange(&dev, grid, block, rounds);
    }
    // The same launch several times in a row, in shuffled thread orders.
    for seed in 0..4 {
        let dev = Device::simulator_with(SimOptions {
            race_checks: true,
            seed: Some(seed),
        });
        run_exchange(&dev, 6, 64, 4);
    }
}

#[test]
fn without_the_grid_sync_blocks_race() {
    let dev = sim();
    let mut a = dev.upload(&vec![1u32; 256]).unwrap();
    let mut b = dev.zeros::<u32>(256).unwrap();
    let err = expect_err(run_cooperative(
        &dev,
        &EXCHANGE,
        LaunchConfig::new(4, 64),
        |args| {
            args.slice_mut(&mut a)
                .slice_mut(&mut b)
                .scalar(2u32)
                .scalar(false);
        },
    ));
    match &err {
        Error::DataRace {
            kernel,
            first,
            second,
            ..
        } => {
            assert_eq!(kernel, "exchange");
            assert_ne!(first.block, second.block, "{err}");
            let lines = [first.line, second.line];
            assert!(
                lines.contains(&EXCHANGE_READ.line()) && lines.contains(&EXCHANGE_WRITE.line()),
                "{err}"
            );
            assert_eq!(first.file, FILE);
        }
        other => panic!("expected DataRace, got {other}"),
    }
}

#[test]
fn plain_launch_of_a_grid_sync_kernel_is_refused() {
    let dev = sim();
    let mut a = dev.zeros::<u32>(64).unwrap();
    let mut b = dev.zeros::<u32>(64).unwrap();
    let err = expect_err(run(&dev, &EXCHANGE, LaunchConfig::new(1, 64), |args| {
        args.slice_mut(&mut a)
            .slice_mut(&mut b)
            .scalar(1u32)
            .scalar(true);
    }));
    match &err {
        Error::InvalidLaunch { kernel, reason, .. } => {
            assert_eq!(kernel, "exchange");
            assert_eq!(
                reason,
                "the kernel calls this_grid().sync(): launch it with launch_cooperative"
            );
        }
        other => panic!("expected InvalidLaunch, got {other}"),
    }
}

#[test]
fn cooperative_launch_over_the_coresident_limit_is_refused() {
    let dev = sim();
    let sms = dev.limits().multiprocessor_count;
    // 1024 threads per block: two blocks per multiprocessor.
    for (block, shared, per_sm) in [(1024u32, 0u32, 2u32), (64, 100 * 1024, 2), (32, 0, 32)] {
        let max = per_sm * sms;
        let n = ((max + 1) * block) as usize;
        let mut a = dev.zeros::<u32>(n).unwrap();
        let mut b = dev.zeros::<u32>(n).unwrap();
        let cfg = LaunchConfig::new(max + 1, block).with_shared_mem(shared);
        let err = expect_err(run_cooperative(&dev, &EXCHANGE, cfg, |args| {
            args.slice_mut(&mut a)
                .slice_mut(&mut b)
                .scalar(1u32)
                .scalar(true);
        }));
        match &err {
            Error::InvalidLaunch { reason, .. } => assert_eq!(
                reason,
                &format!(
                    "a cooperative launch needs every block on the device at once, but the grid \
                     has {} blocks and at most {max} fit ({per_sm} per multiprocessor for this \
                     kernel with {block} threads and {shared} bytes of dynamic shared memory per \
                     block, times the simulator's {sms} multiprocessors)",
                    max + 1
                )
            ),
            other => panic!("expected InvalidLaunch, got {other}"),
        }
        // One block fewer fits (and runs).
        let cfg = LaunchConfig::new(max, block).with_shared_mem(shared);
        run_cooperative(&dev, &EXCHANGE, cfg, |args| {
            args.slice_mut(&mut a)
                .slice_mut(&mut b)
                .scalar(1u32)
                .scalar(true);
        })
        .unwrap();
    }
}

// ---- grid sync in a plain launch (a KernelDef that does not say it calls one)

fn sneaky_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(sneaky_sim(ctx))
}

site!(SNEAKY_SYNC);

async fn sneaky_sim(ctx: &ThreadCtx<'_>) {
    ctx.sync_grid(&SNEAKY_SYNC).await;
}

kernel!(SNEAKY, "sneaky", [], sneaky_entry);

#[test]
fn grid_sync_outside_a_cooperative_launch_is_an_error() {
    let err = expect_err(run(&sim(), &SNEAKY, LaunchConfig::new(2, 32), |_| {}));
    match &err {
        Error::InvalidLaunch { kernel, reason, .. } => {
            assert_eq!(kernel, "sneaky");
            assert_eq!(
                reason,
                &format!(
                    "the kernel calls this_grid().sync() (at {FILE}:{}), which needs every \
                     block of the grid running at once: launch it with launch_cooperative",
                    SNEAKY_SYNC.line()
                )
            );
        }
        other => panic!("expected InvalidLaunch, got {other}"),
    }
    // Cooperatively it runs.
    run_cooperative(&sim(), &SNEAKY, LaunchConfig::new(2, 32), |_| {}).unwrap();
}

// ---- what hangs on a GPU

fn hang_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(hang_sim(ctx, ctx.arg_scalar::<u32>(0)))
}

site!(HANG_A);
site!(HANG_B);
site!(HANG_BARRIER);

/// mode 0: block 1 returns at once; 1: thread 0 of block 1 returns, the others sync;
/// 2: block 1 syncs at another site; 3: in block 1, half the threads wait at a block
/// barrier; 4: every thread syncs twice, then block 0 returns and the others sync again.
async fn hang_sim(ctx: &ThreadCtx<'_>, mode: u32) {
    let (b, t) = (ctx.block_idx().x, ctx.thread_idx().x);
    match mode {
        0 if b == 1 => return,
        1 if b == 1 && t == 0 => return,
        2 if b == 1 => {
            ctx.sync_grid(&HANG_B).await;
            return;
        }
        3 if b == 1 && t >= 16 => {
            ctx.sync_threads(&HANG_BARRIER).await;
            return;
        }
        4 => {
            ctx.sync_grid(&HANG_A).await;
            ctx.sync_grid(&HANG_A).await;
            if b == 0 {
                return;
            }
        }
        _ => {}
    }
    ctx.sync_grid(&HANG_A).await;
}

kernel!(grid_sync HANG, "hang", ["mode"], hang_entry);

#[test]
fn what_hangs_on_a_gpu_is_an_error() {
    let (a, b) = (HANG_A.line(), HANG_B.line());
    for (mode, wanted) in [
        (
            0u32,
            format!(
                "block (1, 0, 0) has returned, but block (0, 0, 0) waits at this_grid().sync() \
                 at {FILE}:{a}: every block of a cooperative launch must reach each grid sync \
                 (on the GPU this hangs)"
            ),
        ),
        (
            1,
            format!(
                "thread (0, 0, 0) has returned, but the other threads of the block wait at \
                 this_grid().sync() at {FILE}:{a}: thread (0, 0, 0) of each block signals the \
                 block's arrival at a grid sync (as in CUDA's own grid.sync()), so on the GPU \
                 this hangs"
            ),
        ),
        (2, String::new()),
        (
            3,
            format!(
                "threads of the block wait at different barriers: thread (0, 0, 0) at \
                 this_grid().sync() at {FILE}:{a} and thread (16, 0, 0) at sync_threads at \
                 {FILE}:{} (every thread must reach the same barrier)",
                HANG_BARRIER.line()
            ),
        ),
        (
            4,
            format!(
                "block (0, 0, 0) has returned, but block (1, 0, 0) waits at this_grid().sync() \
                 at {FILE}:{a}: every block of a cooperative launch must reach each grid sync \
                 (on the GPU this hangs)"
            ),
        ),
    ] {
        for grid in [2u32, 3] {
            let err = expect_err(run_cooperative(
                &sim(),
                &HANG,
                LaunchConfig::new(grid, 32),
                |args| {
                    args.scalar(mode);
                },
            ));
            let Error::DivergentBarrier { kernel, detail, .. } = &err else {
                panic!("mode {mode}: expected DivergentBarrier, got {err}");
            };
            assert_eq!(kernel, "hang");
            if mode == 2 {
                // Which block arrives first depends on the workers.
                let one = |x: u32, sx: u32, y: u32, sy: u32| {
                    format!(
                        "blocks of the grid wait at different grid syncs: block ({x}, 0, 0) at \
                         this_grid().sync() at {FILE}:{sx} and block ({y}, 0, 0) at \
                         this_grid().sync() at {FILE}:{sy} (every block must reach the same grid \
                         sync)"
                    )
                };
                let choices = [
                    one(0, a, 1, b),
                    one(1, b, 0, a),
                    one(2, a, 1, b),
                    one(1, b, 2, a),
                ];
                let n = if grid == 2 { 2 } else { 4 };
                assert!(choices[..n].contains(detail), "grid {grid}: {detail}");
            } else if mode == 4 && grid == 3 {
                assert!(
                    detail.starts_with("block (0, 0, 0) has returned, but block ("),
                    "{detail}"
                );
            } else if mode == 0 && grid == 3 {
                assert!(
                    detail.starts_with("block (1, 0, 0) has returned, but block ("),
                    "{detail}"
                );
            } else {
                assert_eq!(detail, &wanted, "mode {mode}, grid {grid}");
            }
        }
    }
}

// ---- every block runs at once: a block may wait for another through an atomic

fn relay_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(relay_sim(ctx, ctx.arg_atomic::<u32>(0)))
}

/// Block b waits until `flag` is b, then sets it to b + 1: the blocks go in order, last
/// block first started or not. A plain launch may hang on this; a cooperative one may not.
async fn relay_sim(ctx: &ThreadCtx<'_>, flag: AtomicSlice<u32>) {
    let b = ctx.block_idx().x;
    if ctx.thread_idx().x == 0 {
        while flag.load(ctx, 0, at!()).await != b {}
        flag.store(ctx, 0, b + 1, at!()).await;
    }
}

kernel!(RELAY, "relay", ["flag"], relay_entry);

#[test]
fn blocks_of_a_cooperative_launch_run_at_once() {
    let dev = sim();
    let blocks = (dev.limits().multiprocessor_count * 3).min(64);
    let mut flag = dev.zeros::<u32>(1).unwrap();
    // Block 0 is the last block some worker reaches.
    run_cooperative(&dev, &RELAY, LaunchConfig::new(blocks, 64), |args| {
        args.slice_mut(&mut flag);
    })
    .unwrap();
    assert_eq!(flag.download().unwrap(), vec![blocks]);
}

// ---- shared memory and barriers go on working around grid syncs

fn reduce_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(reduce_sim(
        ctx,
        ctx.arg_slice_mut::<u64>(0),
        ctx.arg_slice_mut::<u64>(1),
    ))
}

/// Each block sums its part of `data` through shared memory into `partial[block]`; after
/// a grid sync, block 0 sums the partials into `data[0]`, after another one every block
/// reads it back into its `partial`.
async fn reduce_sim(ctx: &ThreadCtx<'_>, data: SliceMut<u64>, partial: SliceMut<u64>) {
    let t = ctx.thread_idx().x as usize;
    let (b, nb) = (ctx.block_idx().x as usize, ctx.grid_dim().x as usize);
    let s = ctx.shared_array::<u64>(64, at!());
    s.store(ctx, t, data.load(ctx, ctx.grid_1d(), at!()), at!());
    ctx.sync_threads(at!()).await;
    let mut width = 32;
    while width > 0 {
        if t < width {
            let v = s.load(ctx, t, at!()) + s.load(ctx, t + width, at!());
            s.store(ctx, t, v, at!());
        }
        ctx.sync_threads(at!()).await;
        width /= 2;
    }
    if t == 0 {
        partial.store(ctx, b, s.load(ctx, 0, at!()), at!());
    }
    ctx.sync_grid(at!()).await;
    if b == 0 && t == 0 {
        let mut total = 0;
        for k in 0..nb {
            total += partial.load(ctx, k, at!());
        }
        data.store(ctx, 0, total, at!());
    }
    ctx.sync_grid(at!()).await;
    if t == 0 {
        partial.store(ctx, b, data.load(ctx, 0, at!()), at!());
    }
}

kernel!(grid_sync REDUCE, "reduce", ["data", "partial"], reduce_entry);

#[test]
fn a_grid_wide_reduction() {
    let dev = sim();
    let blocks = 12u32;
    let data: Vec<u64> = (0..blocks as u64 * 64).map(|i| i * i + 1).collect();
    let want: u64 = data.iter().sum();
    let mut d = dev.upload(&data).unwrap();
    let mut partial = dev.zeros::<u64>(blocks as usize).unwrap();
    run_cooperative(&dev, &REDUCE, LaunchConfig::new(blocks, 64), |args| {
        args.slice_mut(&mut d).slice_mut(&mut partial);
    })
    .unwrap();
    assert_eq!(partial.download().unwrap(), vec![want; blocks as usize]);
}
