//! Warp collectives on the simulator against a direct CPU reference (CUDA's documented
//! formulas): every shuffle with widths 32, 16, 8 (and 1, 2, 4) and partial masks, on
//! 8-, 32- and 64-bit values with random bits; ballot, all, any, match_any, active_mask.
//! Blocks are 2-D with a partial last warp, so lanes follow the linear thread index.

#[macro_use]
mod sim_common;

use sim_common::{run, sim, Rng};
use warpspeed_runtime::__private::{SimFuture, Slice, SliceMut, ThreadCtx};
use warpspeed_runtime::{DeviceBuffer, KernelScalar, LaunchConfig};

const BLOCK: (u32, u32) = (16, 5); // 80 threads: warps of 32, 32 and 16 lanes
const THREADS: usize = 80;
const WARPS: usize = 3;
const BLOCKS: usize = 3;

/// The linear thread index in the block and the block's number.
fn place(ctx: &ThreadCtx<'_>) -> (usize, usize) {
    let t = ctx.thread_idx();
    let d = ctx.block_dim();
    ((t.y * d.x + t.x) as usize, ctx.block_idx().x as usize)
}

// ---- shuffles

fn shuffle_entry<'a, T: KernelScalar>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(shuffle_sim::<T>(
        ctx,
        ctx.arg_slice_mut::<T>(0),
        ctx.arg_slice::<T>(1),
        ctx.arg_slice::<u32>(2),
        ctx.arg_slice::<u32>(3),
        ctx.arg_scalar::<u32>(4),
        ctx.arg_scalar::<u32>(5),
    ))
}

async fn shuffle_sim<T: KernelScalar>(
    ctx: &ThreadCtx<'_>,
    out: SliceMut<T>,
    vals: Slice<T>,
    args: Slice<u32>,
    masks: Slice<u32>,
    op: u32,
    width: u32,
) {
    let (t, b) = place(ctx);
    let g = b * THREADS + t;
    let mask = masks.load(ctx, b * WARPS + t / 32, at!());
    if mask & (1 << ctx.lane_id()) == 0 {
        return;
    }
    let v = vals.load(ctx, g, at!());
    let a = args.load(ctx, g, at!());
    let r = match op {
        0 => ctx.shfl_sync(mask, v, a, width, at!()).await,
        1 => ctx.shfl_up_sync(mask, v, a, width, at!()).await,
        2 => ctx.shfl_down_sync(mask, v, a, width, at!()).await,
        _ => ctx.shfl_xor_sync(mask, v, a, width, at!()).await,
    };
    // After the collective, every lane outside the mask has exited.
    let active = ctx.active_mask(at!()).await;
    if active != mask {
        panic!("active_mask {active:#x} after the shuffle, mask {mask:#x}");
    }
    out.store(ctx, g, r, at!());
}

kernel!(
    SHFL_U64,
    "shuffle_u64",
    ["out", "vals", "args", "masks", "op", "width"],
    shuffle_entry::<u64>
);
kernel!(
    SHFL_I8,
    "shuffle_i8",
    ["out", "vals", "args", "masks", "op", "width"],
    shuffle_entry::<i8>
);
kernel!(
    SHFL_F32,
    "shuffle_f32",
    ["out", "vals", "args", "masks", "op", "width"],
    shuffle_entry::<f32>
);
kernel!(
    SHFL_F64,
    "shuffle_f64",
    ["out", "vals", "args", "masks", "op", "width"],
    shuffle_entry::<f64>
);
kernel!(
    SHFL_BOOL,
    "shuffle_bool",
    ["out", "vals", "args", "masks", "op", "width"],
    shuffle_entry::<bool>
);

/// CUDA's documented source lane of each shuffle (only the low 5 bits of `b` count).
fn reference_source(op: u32, lane: u32, b: u32, width: u32) -> u32 {
    let b = b & 31;
    match op {
        0 => (lane & !(width - 1)) + b % width,
        1 if lane % width >= b => lane - b,
        2 if lane % width + b < width => lane + b,
        3 if (lane ^ b) < ((lane + width) & !(width - 1)) => lane ^ b,
        _ => lane,
    }
}

/// The masks of the warps of every block: full, random partial, and within the 16 lanes
/// of the last warp.
fn masks(rng: &mut Rng) -> Vec<u32> {
    let mut m = Vec::new();
    for b in 0..BLOCKS {
        for w in 0..WARPS {
            let existing = if w == 2 { 0xFFFF } else { u32::MAX };
            let mask = match (b, w) {
                (0, 2) => 0xFFFF,
                (0, _) => u32::MAX,
                _ => (rng.next_u32() | rng.next_u32()) & existing,
            };
            m.push(mask.max(1));
        }
    }
    m
}

/// Per-thread operands whose source lane is in the mask (else 0: the lane's own value for
/// up/down/xor; for shfl_sync the first lane of the segment that is in the mask).
fn operands(rng: &mut Rng, op: u32, width: u32, masks: &[u32]) -> Vec<u32> {
    let mut args = vec![0u32; BLOCKS * THREADS];
    for (g, a) in args.iter_mut().enumerate() {
        let (b, t) = (g / THREADS, g % THREADS);
        let (mask, lane) = (masks[b * WARPS + t / 32], (t % 32) as u32);
        *a = (0..20)
            .map(|_| rng.next_u32() % 40)
            .find(|&c| mask & (1 << reference_source(op, lane, c, width)) != 0)
            .unwrap_or_else(|| {
                if op == 0 {
                    (0..32)
                        .find(|&c| mask & (1 << reference_source(0, lane, c, width)) != 0)
                        .unwrap_or(lane)
                } else {
                    0
                }
            });
    }
    args
}

fn check_shuffles<T: KernelScalar + std::fmt::Debug>(
    kernel: &'static warpspeed_runtime::__private::KernelDef,
    make: impl Fn(&mut Rng) -> T,
    bits: impl Fn(T) -> u64,
) {
    let dev = sim();
    let mut rng = Rng::new(0x5EED);
    for op in 0..4u32 {
        for width in [32u32, 16, 8, 4, 2, 1] {
            let masks = masks(&mut rng);
            let vals: Vec<T> = (0..BLOCKS * THREADS).map(|_| make(&mut rng)).collect();
            let args = operands(&mut rng, op, width, &masks);
            let poison = make(&mut rng);
            let mut out: DeviceBuffer<T> = dev.upload(&[poison; BLOCKS * THREADS]).unwrap();
            let (dv, da, dm) = (
                dev.upload(&vals).unwrap(),
                dev.upload(&args).unwrap(),
                dev.upload(&masks).unwrap(),
            );
            run(&dev, kernel, LaunchConfig::new(BLOCKS as u32, BLOCK), |a| {
                a.slice_mut(&mut out)
                    .slice(&dv)
                    .slice(&da)
                    .slice(&dm)
                    .scalar(op)
                    .scalar(width);
            })
            .unwrap_or_else(|e| panic!("op {op} width {width}: {e}"));
            let got = out.download().unwrap();
            for g in 0..BLOCKS * THREADS {
                let (b, t) = (g / THREADS, g % THREADS);
                let mask = masks[b * WARPS + t / 32];
                let lane = (t % 32) as u32;
                let want = if mask & (1 << lane) == 0 {
                    poison
                } else {
                    let src = reference_source(op, lane, args[g], width);
                    vals[b * THREADS + t / 32 * 32 + src as usize]
                };
                assert_eq!(
                    bits(got[g]),
                    bits(want),
                    "op {op} width {width} block {b} thread {t} arg {} mask {mask:#x}",
                    args[g]
                );
            }
        }
    }
}

#[test]
fn shuffles_u64() {
    check_shuffles(&SHFL_U64, |r| r.next_u64(), |v| v);
}

#[test]
fn shuffles_i8() {
    check_shuffles(&SHFL_I8, |r| r.next_u32() as i8, |v| v as u8 as u64);
}

#[test]
fn shuffles_f32_and_f64_keep_every_bit() {
    check_shuffles(
        &SHFL_F32,
        |r| f32::from_bits(r.next_u32()),
        |v| u64::from(v.to_bits()),
    );
    check_shuffles(&SHFL_F64, |r| f64::from_bits(r.next_u64()), f64::to_bits);
}

#[test]
fn shuffles_bool() {
    check_shuffles(&SHFL_BOOL, |r| r.next_u32() & 1 != 0, u64::from);
}

// ---- votes and match

fn votes_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(votes_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_slice::<u32>(1),
        ctx.arg_slice::<i64>(2),
        ctx.arg_slice::<u32>(3),
    ))
}

/// out[5g..5g+5] = ballot, all, any, match_any, and a sync_warp's 1.
async fn votes_sim(
    ctx: &ThreadCtx<'_>,
    out: SliceMut<u32>,
    preds: Slice<u32>,
    vals: Slice<i64>,
    masks: Slice<u32>,
) {
    let (t, b) = place(ctx);
    let g = b * THREADS + t;
    let mask = masks.load(ctx, b * WARPS + t / 32, at!());
    if mask & (1 << ctx.lane_id()) == 0 {
        return;
    }
    let p = preds.load(ctx, g, at!()) != 0;
    let v = vals.load(ctx, g, at!());
    let ballot = ctx.ballot_sync(mask, p, at!()).await;
    let all = ctx.all_sync(mask, p, at!()).await;
    let any = ctx.any_sync(mask, p, at!()).await;
    let matched = ctx.match_any_sync(mask, v, at!()).await;
    ctx.sync_warp(mask, at!()).await;
    for (k, r) in [ballot, all as u32, any as u32, matched, 1]
        .into_iter()
        .enumerate()
    {
        out.store(ctx, g * 5 + k, r, at!());
    }
}

kernel!(
    VOTES,
    "votes",
    ["out", "preds", "vals", "masks"],
    votes_entry
);

#[test]
fn ballot_all_any_match_any() {
    let dev = sim();
    let mut rng = Rng::new(99);
    for round in 0..8 {
        let masks = masks(&mut rng);
        // Rounds 0 and 1: every pred false / true, so all and any see both answers.
        let preds: Vec<u32> = (0..BLOCKS * THREADS)
            .map(|_| match round {
                0 => 0,
                1 => 1,
                _ => u32::from(rng.below(3) == 0),
            })
            .collect();
        let vals: Vec<i64> = (0..BLOCKS * THREADS)
            .map(|_| [-1i64, 7, 1 << 40, i64::MIN][rng.below(4) as usize])
            .collect();
        let mut out = dev
            .upload(&vec![0xAAAA_AAAAu32; BLOCKS * THREADS * 5])
            .unwrap();
        let (dp, dv, dm) = (
            dev.upload(&preds).unwrap(),
            dev.upload(&vals).unwrap(),
            dev.upload(&masks).unwrap(),
        );
        run(&dev, &VOTES, LaunchConfig::new(BLOCKS as u32, BLOCK), |a| {
            a.slice_mut(&mut out).slice(&dp).slice(&dv).slice(&dm);
        })
        .unwrap();
        let got = out.download().unwrap();
        for g in 0..BLOCKS * THREADS {
            let (b, t) = (g / THREADS, g % THREADS);
            let mask = masks[b * WARPS + t / 32];
            let lane = t % 32;
            let base = b * THREADS + t / 32 * 32;
            let want = if mask & (1 << lane) == 0 {
                [0xAAAA_AAAA; 5]
            } else {
                let lanes = || (0..32).filter(|l| mask & (1 << l) != 0);
                let ballot = lanes()
                    .filter(|&l| preds[base + l] != 0)
                    .fold(0u32, |m, l| m | 1 << l);
                let matched = lanes()
                    .filter(|&l| vals[base + l] == vals[g])
                    .fold(0u32, |m, l| m | 1 << l);
                [
                    ballot,
                    u32::from(ballot == mask),
                    u32::from(ballot != 0),
                    matched,
                    1,
                ]
            };
            assert_eq!(
                got[g * 5..g * 5 + 5],
                want,
                "round {round} block {b} thread {t} mask {mask:#x}"
            );
        }
    }
}
