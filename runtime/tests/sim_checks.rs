//! The simulator's checks: data races on shared and global memory, uninitialised shared
//! reads, out-of-bounds indexing, and the option that turns the race checks off. Each
//! check fires on a deliberately wrong kernel and stays silent on the corrected one.

#[macro_use]
mod sim_common;

use sim_common::{expect_err, run, sim};
use warpspeed_runtime::__private::{AtomicSlice, SimFuture, SliceMut, ThreadCtx};
use warpspeed_runtime::{Device, Dim3, Error, LaunchConfig, RaceAccess, SimOptions};

const FILE: &str = "runtime/tests/sim_checks.rs";

// ---- shared memory: write my element, read my left neighbour's (barrier on demand)

site!(SHARED_ARRAY);
site!(SHARED_WRITE);
site!(SHARED_READ);

fn left_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(left_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
        ctx.arg_scalar::<u32>(2),
    ))
}

/// `right == 0`: thread t reads s[t - 1] (thread 0 its own); else s[(t + 1) % n].
async fn left_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, barrier: u32, right: u32) {
    let s = ctx.shared_array::<u32>(128, &SHARED_ARRAY);
    let n = ctx.block_dim().x as usize;
    let t = ctx.thread_idx().x as usize;
    s.store(ctx, t, t as u32 * 3 + 1, &SHARED_WRITE);
    if barrier != 0 {
        ctx.sync_threads(at!()).await;
    }
    let j = if right != 0 {
        (t + 1) % n
    } else {
        t.saturating_sub(1)
    };
    let v = s.load(ctx, j, &SHARED_READ);
    out.store(ctx, ctx.block_idx().x as usize * n + t, v, at!());
}

kernel!(LEFT, "left", ["out", "barrier", "right"], left_entry);

fn launch_left(dev: &Device, barrier: u32, right: u32) -> Result<Vec<u32>, Error> {
    let mut out = dev.upload(&[0xDEAD_BEEFu32; 4 * 128]).unwrap();
    run(dev, &LEFT, LaunchConfig::new(4, 128), |a| {
        a.slice_mut(&mut out).scalar(barrier).scalar(right);
    })?;
    Ok(out.download().unwrap())
}

fn race_of(err: &Error) -> (&str, u64, &RaceAccess, &RaceAccess) {
    match err {
        Error::DataRace {
            memory,
            index,
            first,
            second,
            ..
        } => (memory.as_str(), *index, first, second),
        other => panic!("expected a data race, got {other}"),
    }
}

#[test]
fn shared_race_without_barrier() {
    let err = expect_err(launch_left(&sim(), 0, 0));
    let (memory, index, first, second) = race_of(&err);
    assert_eq!(
        memory,
        format!("shared array at {FILE}:{}", SHARED_ARRAY.line())
    );
    assert_eq!(index, 0);
    assert_eq!(
        (first.kind.as_str(), first.line, first.thread),
        ("write", SHARED_WRITE.line(), Dim3::new(0, 0, 0))
    );
    assert_eq!(
        (second.kind.as_str(), second.line, second.thread),
        ("read", SHARED_READ.line(), Dim3::new(1, 0, 0))
    );
    assert_eq!(first.block, second.block);
    assert_eq!((first.file.as_str(), second.file.as_str()), (FILE, FILE));
    let text = err.to_string();
    let expected = format!(
        "data race in kernel `left` on shared array at {FILE}:{} index 0: thread (0, 0, 0) of \
         block {b} wrote at {FILE}:{} and thread (1, 0, 0) of block {b} read at {FILE}:{} with \
         no barrier between them",
        SHARED_ARRAY.line(),
        SHARED_WRITE.line(),
        SHARED_READ.line(),
        b = first.block,
    );
    assert_eq!(text, expected);
}

#[test]
fn shared_with_barrier_is_fine() {
    for right in [0, 1] {
        let got = launch_left(&sim(), 1, right).unwrap();
        for b in 0..4 {
            for t in 0..128usize {
                let j = if right != 0 {
                    (t + 1) % 128
                } else {
                    t.saturating_sub(1)
                };
                assert_eq!(got[b * 128 + t], j as u32 * 3 + 1, "block {b} thread {t}");
            }
        }
    }
}

#[test]
fn reading_before_the_neighbour_writes_is_a_race() {
    // Thread 0 reads s[1] before thread 1 writes it (threads run in order without a
    // seed): the read saw garbage because of the race, so the race is the report.
    let err = expect_err(launch_left(&sim(), 0, 1));
    let (_, index, first, second) = race_of(&err);
    assert_eq!(index, 1);
    assert_eq!(
        (first.kind.as_str(), first.line, first.thread),
        ("read", SHARED_READ.line(), Dim3::new(0, 0, 0))
    );
    assert_eq!(
        (second.kind.as_str(), second.line, second.thread),
        ("write", SHARED_WRITE.line(), Dim3::new(1, 0, 0))
    );
}

site!(UNINIT_ARRAY);
site!(UNINIT_READ);

fn uninit_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(uninit_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: s[t] written, barrier, s[t + 64] read (nobody wrote it); 1: each thread reads
/// s[t] before writing it itself, then a barrier; 2: as 0 but thread 3 then indexes out
/// of bounds with the garbage; 3: the corrected kernel.
async fn uninit_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, mode: u32) {
    let s = ctx.shared_array::<u32>(128, &UNINIT_ARRAY);
    let t = ctx.thread_idx().x as usize;
    if mode == 1 {
        let v = s.load(ctx, t, &UNINIT_READ);
        s.store(ctx, t, v + 1, at!());
        ctx.sync_threads(at!()).await;
        return;
    }
    s.store(ctx, t, t as u32, at!());
    if mode == 3 {
        s.store(ctx, t + 64, 0, at!());
    }
    ctx.sync_threads(at!()).await;
    let v = s.load(ctx, t + 64, &UNINIT_READ);
    if mode == 2 && t == 3 {
        out.store(ctx, v as usize, 1, at!());
    }
    out.store(ctx, t, v, at!());
}

kernel!(UNINIT, "uninit", ["out", "mode"], uninit_entry);

#[test]
fn uninitialised_shared_read() {
    let dev = sim();
    let mut out = dev.zeros::<u32>(64).unwrap();
    for mode in [0u32, 1, 2] {
        let err = expect_err(run(&dev, &UNINIT, LaunchConfig::new(1, 64), |a| {
            a.slice_mut(&mut out).scalar(mode);
        }));
        match &err {
            Error::UninitializedShared {
                kernel,
                memory,
                file,
                line,
                index,
                thread,
                ..
            } => {
                assert_eq!((kernel.as_str(), file.as_str()), ("uninit", FILE));
                let want = if mode == 1 { 0 } else { 64 };
                assert_eq!(
                    (*line, *index, *thread),
                    (UNINIT_READ.line(), want, Dim3::new(0, 0, 0)),
                    "mode {mode}"
                );
                assert_eq!(
                    memory,
                    &format!("shared array at {FILE}:{}", UNINIT_ARRAY.line())
                );
            }
            other => panic!("mode {mode}: expected UninitializedShared, got {other}"),
        }
        assert!(
            err.to_string().contains(&format!(
                "read uninitialised shared memory at {FILE}:{}: index",
                UNINIT_READ.line()
            )),
            "{err}"
        );
    }
    run(&dev, &UNINIT, LaunchConfig::new(1, 64), |a| {
        a.slice_mut(&mut out).scalar(3u32);
    })
    .unwrap();
    assert_eq!(out.download().unwrap(), vec![0; 64]);
}

// ---- global memory

site!(GLOBAL_WRITE);
site!(GLOBAL_READ);

fn global_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(global_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: every block writes out[t] (blocks race); 1: out[block * n + t] (fine);
/// 2: thread t reads out[t + 1] then writes out[t] (a race inside the block);
/// 3: as 2 with a barrier between read and write (fine).
async fn global_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, mode: u32) {
    let n = ctx.block_dim().x as usize;
    let t = ctx.thread_idx().x as usize;
    let b = ctx.block_idx().x as usize;
    match mode {
        0 => out.store(ctx, t, 7, &GLOBAL_WRITE),
        1 => out.store(ctx, b * n + t, 7, &GLOBAL_WRITE),
        _ => {
            let next = out.load(ctx, b * n + (t + 1) % n, &GLOBAL_READ);
            if mode == 3 {
                ctx.sync_threads(at!()).await;
            }
            out.store(ctx, b * n + t, next + 1, &GLOBAL_WRITE);
        }
    }
}

kernel!(GLOBAL, "global", ["out", "mode"], global_entry);

fn launch_global(dev: &Device, mode: u32) -> Result<Vec<u32>, Error> {
    let mut out = dev.zeros::<u32>(8 * 64).unwrap();
    run(dev, &GLOBAL, LaunchConfig::new(8, 64), |a| {
        a.slice_mut(&mut out).scalar(mode);
    })?;
    Ok(out.download().unwrap())
}

#[test]
fn global_race_between_blocks() {
    let err = expect_err(launch_global(&sim(), 0));
    let (memory, _, first, second) = race_of(&err);
    assert_eq!(memory, "global buffer `out` (parameter 0)");
    assert_ne!(first.block, second.block, "{err}");
    assert_eq!(first.thread, second.thread);
    assert_eq!(
        (first.kind.as_str(), second.kind.as_str()),
        ("write", "write")
    );
    assert_eq!(first.line, GLOBAL_WRITE.line());
    assert!(
        err.to_string()
            .contains("global buffer `out` (parameter 0)"),
        "{err}"
    );
}

#[test]
fn global_disjoint_blocks_are_fine() {
    assert_eq!(launch_global(&sim(), 1).unwrap(), vec![7; 8 * 64]);
}

#[test]
fn global_race_within_a_block() {
    let err = expect_err(launch_global(&sim(), 2));
    let (_, index, first, second) = race_of(&err);
    // Thread 0 read out[1], then thread 1 wrote it.
    assert_eq!(index % 64, 1);
    assert_eq!(first.block, second.block);
    assert_eq!(
        (first.kind.as_str(), first.line, first.thread),
        ("read", GLOBAL_READ.line(), Dim3::new(0, 0, 0))
    );
    assert_eq!(
        (second.kind.as_str(), second.line, second.thread),
        ("write", GLOBAL_WRITE.line(), Dim3::new(1, 0, 0))
    );
}

#[test]
fn global_with_barrier_is_fine() {
    assert_eq!(launch_global(&sim(), 3).unwrap(), vec![1; 8 * 64]);
}

#[test]
fn race_checks_can_be_turned_off() {
    let dev = Device::simulator_with(SimOptions {
        race_checks: false,
        seed: None,
    });
    launch_global(&dev, 0).unwrap();
    launch_global(&dev, 2).unwrap();
    launch_left(&dev, 0, 0).unwrap();
}

// ---- atomics

site!(PLAIN_WRITE);
site!(ATOMIC_ADD);
site!(PLAIN_READ);

fn atomic_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    // A hand-made kernel that views one buffer both plainly and atomically (generated
    // code cannot: a buffer is one parameter), to test the rule between the two.
    Box::pin(atomic_sim(
        ctx,
        ctx.arg_atomic::<u32>(0),
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: everybody fetch_adds counter[0] (fine); 1: thread 0 writes it plainly, the
/// others fetch_add (race); 2: as 1 with a barrier after the write (fine); 3: everybody
/// fetch_adds, then thread 0 reads plainly without a barrier (race).
async fn atomic_sim(
    ctx: &ThreadCtx<'_>,
    counter: AtomicSlice<u32>,
    plain: SliceMut<u32>,
    mode: u32,
) {
    let first = ctx.block_idx().x == 0 && ctx.thread_idx().x == 0;
    if mode == 1 || mode == 2 {
        if first {
            plain.store(ctx, 0, 1000, &PLAIN_WRITE);
        }
        if mode == 2 {
            ctx.sync_threads(at!()).await;
        }
        if !first {
            counter.fetch_add(ctx, 0, 1, &ATOMIC_ADD).await;
        }
        return;
    }
    counter.fetch_add(ctx, 0, 1, &ATOMIC_ADD).await;
    if mode == 3 && ctx.thread_idx().x == 0 {
        plain.load(ctx, 0, &PLAIN_READ);
    }
}

kernel!(ATOMIC, "atomic", ["counter", "mode"], atomic_entry);

fn launch_atomic(blocks: u32, mode: u32) -> Result<u32, Error> {
    let dev = sim();
    let mut counter = dev.zeros::<u32>(1).unwrap();
    run(&dev, &ATOMIC, LaunchConfig::new(blocks, 256), |a| {
        a.slice_mut(&mut counter).scalar(mode);
    })?;
    Ok(counter.download().unwrap()[0])
}

#[test]
fn atomics_do_not_race_with_atomics() {
    assert_eq!(launch_atomic(64, 0).unwrap(), 64 * 256);
}

#[test]
fn plain_write_races_with_atomics() {
    let err = expect_err(launch_atomic(1, 1));
    let (_, index, first, second) = race_of(&err);
    assert_eq!(index, 0);
    assert_eq!(
        (first.kind.as_str(), first.line),
        ("write", PLAIN_WRITE.line())
    );
    assert_eq!(
        (second.kind.as_str(), second.line),
        ("atomic", ATOMIC_ADD.line())
    );
    assert!(err.to_string().contains("accessed atomically"), "{err}");
    assert_eq!(launch_atomic(1, 2).unwrap(), 1000 + 255);
}

#[test]
fn plain_read_races_with_atomics() {
    let err = expect_err(launch_atomic(1, 3));
    let (_, _, first, second) = race_of(&err);
    // Thread 0 read right after its own add; thread 1's add then met that read.
    assert_eq!(
        (first.kind.as_str(), second.kind.as_str()),
        ("read", "atomic")
    );
    assert_eq!(
        (first.line, second.line),
        (PLAIN_READ.line(), ATOMIC_ADD.line())
    );
}

// ---- warp synchronisation orders accesses inside a warp, not across warps

site!(WARP_WRITE);
site!(WARP_READ);

fn warp_order_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(warp_order_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: write s[t], read s[t & !1] (odd threads race); 1: write s[t], sync_warp, read
/// s[t ^ 1] (fine);
/// 2: with a shuffle between (fine); 3: sync_warp, then read across warps s[t ^ 32] (race).
async fn warp_order_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, mode: u32) {
    let s = ctx.shared_array::<u32>(64, at!());
    let t = ctx.thread_idx().x as usize;
    s.store(ctx, t, t as u32, &WARP_WRITE);
    match mode {
        1 | 3 => ctx.sync_warp(u32::MAX, at!()).await,
        2 => {
            ctx.shfl_xor_sync(u32::MAX, 0u32, 1, 32, at!()).await;
        }
        _ => {}
    }
    let other = match mode {
        0 => t & !1,
        3 => t ^ 32,
        _ => t ^ 1,
    };
    let v = s.load(ctx, other, &WARP_READ);
    out.store(ctx, t, v, at!());
}

kernel!(WARP_ORDER, "warp_order", ["out", "mode"], warp_order_entry);

fn launch_warp_order(mode: u32) -> Result<Vec<u32>, Error> {
    let dev = sim();
    let mut out = dev.zeros::<u32>(64).unwrap();
    run(&dev, &WARP_ORDER, LaunchConfig::new(1, 64), |a| {
        a.slice_mut(&mut out).scalar(mode);
    })?;
    Ok(out.download().unwrap())
}

#[test]
fn warp_collectives_order_accesses_within_the_warp() {
    let err = expect_err(launch_warp_order(0));
    let (_, _, first, second) = race_of(&err);
    assert_eq!(
        (first.line, second.line),
        (WARP_WRITE.line(), WARP_READ.line())
    );
    for mode in [1, 2] {
        let got = launch_warp_order(mode).unwrap();
        assert_eq!(
            got,
            (0..64).map(|t| t ^ 1).collect::<Vec<u32>>(),
            "mode {mode}"
        );
    }
    // Warp 1's threads never synchronised with warp 0's.
    let err = expect_err(launch_warp_order(3));
    let (_, _, first, second) = race_of(&err);
    assert_eq!(first.thread.x / 32 + second.thread.x / 32, 1, "{err}");
}

// ---- bounds

site!(OOB_STORE);
site!(OOB_ROW);

fn oob_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(oob_sim(
        ctx,
        ctx.arg_slice_mut::<f32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: thread 3 of block 1 stores one past the end; 1: a shared 2-D tile indexed at
/// row 4 of 4.
async fn oob_sim(ctx: &ThreadCtx<'_>, out: SliceMut<f32>, mode: u32) {
    let t = ctx.thread_idx().x as usize;
    if mode == 0 {
        if ctx.block_idx().x == 1 && t == 3 {
            out.store(ctx, out.len(), 1.0, &OOB_STORE);
        }
        return;
    }
    let tile = ctx.shared_array::<f32>(4 * 17, at!());
    if t < 4 {
        tile.row(t, 17, at!()).store(ctx, 16, 0.5, at!());
    }
    if t == 5 {
        tile.row(4, 17, &OOB_ROW);
    }
}

kernel!(OOB, "oob", ["out", "mode"], oob_entry);

#[test]
fn out_of_bounds_names_file_and_line() {
    let dev = sim();
    let mut out = dev.zeros::<f32>(8).unwrap();
    let err = expect_err(run(&dev, &OOB, LaunchConfig::new(2, 8), |a| {
        a.slice_mut(&mut out).scalar(0u32);
    }));
    match &err {
        Error::OutOfBounds {
            kernel,
            file,
            line,
            index,
            len,
            block,
            thread,
        } => {
            assert_eq!((kernel.as_str(), file.as_str()), ("oob", FILE));
            assert_eq!((*line, *index, *len), (OOB_STORE.line(), 8, 8));
            assert_eq!((*block, *thread), (Dim3::new(1, 0, 0), Dim3::new(3, 0, 0)));
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "kernel `oob` indexed out of bounds at {FILE}:{}: index 8, length 8 (block (1, 0, 0), \
             thread (3, 0, 0))",
            OOB_STORE.line()
        )
    );
    let err = expect_err(run(&dev, &OOB, LaunchConfig::new(1, 8), |a| {
        a.slice_mut(&mut out).scalar(1u32);
    }));
    match err {
        Error::OutOfBounds {
            line,
            index,
            len,
            thread,
            ..
        } => assert_eq!(
            (line, index, len, thread),
            (OOB_ROW.line(), 4, 4, Dim3::new(5, 0, 0))
        ),
        other => panic!("expected OutOfBounds, got {other}"),
    }
}

// ---- dynamic shared memory, and the shared-memory limit

fn dynamic_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(dynamic_sim(
        ctx,
        ctx.arg_slice_mut::<f32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

/// mode 0: reverse through `dynamic_shared::<f32>()`; 1: also view it as bytes (checks
/// on that memory go off, results stay); 2: static arrays over the 48 KiB a block may
/// have statically; 3: a static array that with the dynamic memory is over the opt-in
/// limit; 4: a 40000-byte static array with 2048 bytes of dynamic memory (over 48 KiB in
/// all, which the opt-in allows).
async fn dynamic_sim(ctx: &ThreadCtx<'_>, out: SliceMut<f32>, mode: u32) {
    let t = ctx.thread_idx().x as usize;
    if mode == 2 {
        let big = ctx.shared_array::<f64>(6000, at!());
        big.store(ctx, t, 1.0, at!());
        let more = ctx.shared_array::<f64>(200, at!());
        more.store(ctx, t, 1.0, at!());
        return;
    }
    if mode == 3 || mode == 4 {
        let big = ctx.shared_array::<f64>(5000, at!());
        big.store(ctx, t, 1.0, at!());
        out.store(ctx, t, big.load(ctx, t, at!()) as f32, at!());
        return;
    }
    let s = ctx.dynamic_shared::<f32>(at!());
    let n = s.len();
    s.store(ctx, t, t as f32 * 0.5, at!());
    ctx.sync_threads(at!()).await;
    let mut v = s.load(ctx, n - 1 - t, at!());
    if mode == 1 {
        let bytes = ctx.dynamic_shared::<u8>(at!());
        v += bytes.len() as f32;
    }
    out.store(ctx, t, v, at!());
}

kernel!(DYNAMIC, "dynamic", ["out", "mode"], dynamic_entry);

#[test]
fn dynamic_shared_memory() {
    let dev = sim();
    let mut out = dev.zeros::<f32>(64).unwrap();
    for mode in [0u32, 1] {
        run(
            &dev,
            &DYNAMIC,
            LaunchConfig::new(1, 64).with_shared_mem(256),
            |a| {
                a.slice_mut(&mut out).scalar(mode);
            },
        )
        .unwrap();
        let extra = if mode == 1 { 256.0 } else { 0.0 };
        let want: Vec<f32> = (0..64).map(|t| (63 - t) as f32 * 0.5 + extra).collect();
        assert_eq!(out.download().unwrap(), want, "mode {mode}");
    }
    for (mode, dynamic, wanted) in [
        (
            2u32,
            0u32,
            &[
                "49600 bytes per block",
                "over the 49152 bytes of static shared memory",
            ][..],
        ),
        (
            3,
            200 * 1024,
            &[
                "40000 bytes per block",
                "204800 bytes of dynamic",
                "232448 bytes",
            ][..],
        ),
    ] {
        let err = expect_err(run(
            &dev,
            &DYNAMIC,
            LaunchConfig::new(1, 64).with_shared_mem(dynamic),
            |a| {
                a.slice_mut(&mut out).scalar(mode);
            },
        ));
        match err {
            Error::InvalidLaunch { kernel, reason, .. } => {
                assert_eq!(kernel, "dynamic");
                for w in wanted {
                    assert!(reason.contains(w), "mode {mode}: {reason}");
                }
            }
            other => panic!("expected InvalidLaunch, got {other}"),
        }
    }
    run(
        &dev,
        &DYNAMIC,
        LaunchConfig::new(1, 64).with_shared_mem(2048),
        |a| {
            a.slice_mut(&mut out).scalar(4u32);
        },
    )
    .unwrap();
    assert_eq!(out.download().unwrap(), vec![1.0; 64]);
}
