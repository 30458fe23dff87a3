//! Atomics on the simulator: every operation on every atomic type, from many blocks at
//! once (blocks run on several OS threads), checked for the exact final value and for
//! old values that fit one order of the operations; lock-free CAS-loop counters; CUDA's
//! wrapping inc/dec; shared-memory atomics.

#[macro_use]
mod sim_common;

use std::collections::HashMap;
use std::fmt::Debug;

use sim_common::{run, sim, Rng};
use warpspeed_runtime::__private::{
    AtomicArith, AtomicInt, AtomicSlice, SimFuture, Slice, SliceMut, ThreadCtx,
};
use warpspeed_runtime::LaunchConfig;

/// What the host needs to compute the expected results.
trait Num: AtomicArith + PartialEq + Debug {
    const INT: bool;
    fn random(rng: &mut Rng) -> Self;
    fn small(rng: &mut Rng) -> Self;
    fn one() -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn min_(self, o: Self) -> Self;
    fn max_(self, o: Self) -> Self;
    /// A key that is equal exactly when the bits are.
    fn key(self) -> u64 {
        self.to_bits()
    }
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const INT: bool = true;
            fn random(rng: &mut Rng) -> Self { rng.next_u64() as $t }
            fn small(rng: &mut Rng) -> Self { (rng.next_u64() % 1000) as $t }
            fn one() -> Self { 1 }
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn min_(self, o: Self) -> Self { self.min(o) }
            fn max_(self, o: Self) -> Self { self.max(o) }
        }
    )*};
}

int_num!(u32, i32, u64, i64, usize, isize);

macro_rules! float_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const INT: bool = false;
            /// Finite, non-zero values of every magnitude and sign.
            fn random(rng: &mut Rng) -> Self {
                let m = (rng.next_u64() % 1_000_000) as $t + 1.0;
                let e = (rng.next_u64() % 40) as i32 - 20;
                let s = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                s * m * (2.0 as $t).powi(e)
            }
            /// Small integers: every order of additions gives the same exact sum.
            fn small(rng: &mut Rng) -> Self { (rng.next_u64() % 17) as $t - 8.0 }
            fn one() -> Self { 1.0 }
            fn add(self, o: Self) -> Self { self + o }
            fn sub(self, o: Self) -> Self { self - o }
            fn min_(self, o: Self) -> Self { self.min(o) }
            fn max_(self, o: Self) -> Self { self.max(o) }
        }
    )*};
}

float_num!(f32, f64);

// ---- read-modify-write operations

const ADD: u32 = 0;
const SUB: u32 = 1;
const MIN: u32 = 2;
const MAX: u32 = 3;
const SWAP: u32 = 4;
const AND: u32 = 5;
const OR: u32 = 6;
const XOR: u32 = 7;

fn rmw_entry<'a, T: Num>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(rmw_sim::<T>(
        ctx,
        ctx.arg_atomic::<T>(0),
        ctx.arg_slice::<T>(1),
        ctx.arg_slice_mut::<T>(2),
        ctx.arg_scalar::<u32>(3),
    ))
}

/// Thread g applies `op` with vals[g] to acc[g % acc.len()] and keeps the old value.
async fn rmw_sim<T: Num>(
    ctx: &ThreadCtx<'_>,
    acc: AtomicSlice<T>,
    vals: Slice<T>,
    olds: SliceMut<T>,
    op: u32,
) {
    let g = ctx.grid_1d();
    let k = g % acc.len();
    let v = vals.load(ctx, g, at!());
    let old = match op {
        ADD => acc.fetch_add(ctx, k, v, at!()).await,
        SUB => acc.fetch_sub(ctx, k, v, at!()).await,
        MIN => acc.fetch_min(ctx, k, v, at!()).await,
        MAX => acc.fetch_max(ctx, k, v, at!()).await,
        _ => acc.swap(ctx, k, v, at!()).await,
    };
    olds.store(ctx, g, old, at!());
}

fn bits_entry<'a, T: Num + AtomicInt>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(bits_sim::<T>(
        ctx,
        ctx.arg_atomic::<T>(0),
        ctx.arg_slice::<T>(1),
        ctx.arg_slice_mut::<T>(2),
        ctx.arg_scalar::<u32>(3),
    ))
}

async fn bits_sim<T: Num + AtomicInt>(
    ctx: &ThreadCtx<'_>,
    acc: AtomicSlice<T>,
    vals: Slice<T>,
    olds: SliceMut<T>,
    op: u32,
) {
    let g = ctx.grid_1d();
    let k = g % acc.len();
    let v = vals.load(ctx, g, at!());
    let old = match op {
        AND => acc.fetch_and(ctx, k, v, at!()).await,
        OR => acc.fetch_or(ctx, k, v, at!()).await,
        _ => acc.fetch_xor(ctx, k, v, at!()).await,
    };
    olds.store(ctx, g, old, at!());
}

kernel!(
    RMW_U32,
    "rmw_u32",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<u32>
);
kernel!(
    RMW_I32,
    "rmw_i32",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<i32>
);
kernel!(
    RMW_U64,
    "rmw_u64",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<u64>
);
kernel!(
    RMW_I64,
    "rmw_i64",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<i64>
);
kernel!(
    RMW_USIZE,
    "rmw_usize",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<usize>
);
kernel!(
    RMW_ISIZE,
    "rmw_isize",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<isize>
);
kernel!(
    RMW_F32,
    "rmw_f32",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<f32>
);
kernel!(
    RMW_F64,
    "rmw_f64",
    ["acc", "vals", "olds", "op"],
    rmw_entry::<f64>
);
kernel!(
    BITS_U32,
    "bits_u32",
    ["acc", "vals", "olds", "op"],
    bits_entry::<u32>
);
kernel!(
    BITS_I32,
    "bits_i32",
    ["acc", "vals", "olds", "op"],
    bits_entry::<i32>
);
kernel!(
    BITS_U64,
    "bits_u64",
    ["acc", "vals", "olds", "op"],
    bits_entry::<u64>
);
kernel!(
    BITS_I64,
    "bits_i64",
    ["acc", "vals", "olds", "op"],
    bits_entry::<i64>
);
kernel!(
    BITS_USIZE,
    "bits_usize",
    ["acc", "vals", "olds", "op"],
    bits_entry::<usize>
);
kernel!(
    BITS_ISIZE,
    "bits_isize",
    ["acc", "vals", "olds", "op"],
    bits_entry::<isize>
);

const BLOCKS: u32 = 16;
const THREADS: u32 = 128;
const COUNTERS: usize = 3;

/// Multiset of keys.
fn bag<T: Num>(items: impl IntoIterator<Item = T>) -> HashMap<u64, usize> {
    let mut m = HashMap::new();
    for v in items {
        *m.entry(v.key()).or_insert(0) += 1;
    }
    m
}

fn check_op<T: Num>(
    kernel: &'static warpspeed_runtime::__private::KernelDef,
    op: u32,
    rng: &mut Rng,
) {
    let dev = sim();
    let n = (BLOCKS * THREADS) as usize;
    let small = op == ADD || op == SUB;
    let vals: Vec<T> = (0..n)
        .map(|_| {
            if small && !T::INT {
                T::small(rng)
            } else {
                T::random(rng)
            }
        })
        .collect();
    let init: Vec<T> = (0..COUNTERS)
        .map(|_| {
            if small && !T::INT {
                T::small(rng)
            } else {
                T::random(rng)
            }
        })
        .collect();
    let mut acc = dev.upload(&init).unwrap();
    let dv = dev.upload(&vals).unwrap();
    let mut olds = dev.upload(&vec![T::one(); n]).unwrap();
    run(&dev, kernel, LaunchConfig::new(BLOCKS, THREADS), |a| {
        a.slice_mut(&mut acc)
            .slice(&dv)
            .slice_mut(&mut olds)
            .scalar(op);
    })
    .unwrap_or_else(|e| panic!("{} op {op}: {e}", kernel.rust_name));
    let (fin, olds) = (acc.download().unwrap(), olds.download().unwrap());
    for k in 0..COUNTERS {
        let mine: Vec<usize> = (k..n).step_by(COUNTERS).collect();
        let what = format!("{} op {op} counter {k}", kernel.rust_name);
        let step = |a: T, v: T| match op {
            ADD => a.add(v),
            SUB => a.sub(v),
            MIN => a.min_(v),
            MAX => a.max_(v),
            AND => T::from_bits(a.to_bits() & v.to_bits()),
            OR => T::from_bits(a.to_bits() | v.to_bits()),
            XOR => T::from_bits(a.to_bits() ^ v.to_bits()),
            _ => v,
        };
        // The final value: any order gives the same (floats: exact small sums).
        if op != SWAP {
            let want = mine.iter().fold(init[k], |a, &g| step(a, vals[g]));
            assert_eq!(fin[k].key(), want.key(), "{what}: final");
        }
        // One order: the olds and the final value are the init and each op's result.
        match op {
            ADD | SUB | XOR | SWAP => {
                let before = bag(mine.iter().map(|&g| olds[g]).chain([fin[k]]));
                let after = bag(mine
                    .iter()
                    .map(|&g| step(olds[g], vals[g]))
                    .chain([init[k]]));
                assert_eq!(before, after, "{what}: the old values fit no order");
            }
            _ => {
                // min/max/and/or move one way: every old lies between init and final.
                for &g in &mine {
                    assert_eq!(
                        step(olds[g], fin[k]).key(),
                        fin[k].key(),
                        "{what}: old {:?}",
                        olds[g]
                    );
                    assert_eq!(
                        step(init[k], olds[g]).key(),
                        olds[g].key(),
                        "{what}: old {:?}",
                        olds[g]
                    );
                }
            }
        }
    }
}

fn check_all<T: Num>(kernel: &'static warpspeed_runtime::__private::KernelDef, seed: u64) {
    let mut rng = Rng::new(seed);
    for op in [ADD, SUB, MIN, MAX, SWAP] {
        check_op::<T>(kernel, op, &mut rng);
    }
}

fn check_bits<T: Num>(kernel: &'static warpspeed_runtime::__private::KernelDef, seed: u64) {
    let mut rng = Rng::new(seed);
    for op in [AND, OR, XOR] {
        check_op::<T>(kernel, op, &mut rng);
    }
}

#[test]
fn every_operation_on_every_type() {
    check_all::<u32>(&RMW_U32, 1);
    check_all::<i32>(&RMW_I32, 2);
    check_all::<u64>(&RMW_U64, 3);
    check_all::<i64>(&RMW_I64, 4);
    check_all::<usize>(&RMW_USIZE, 5);
    check_all::<isize>(&RMW_ISIZE, 6);
    check_all::<f32>(&RMW_F32, 7);
    check_all::<f64>(&RMW_F64, 8);
    check_bits::<u32>(&BITS_U32, 9);
    check_bits::<i32>(&BITS_I32, 10);
    check_bits::<u64>(&BITS_U64, 11);
    check_bits::<i64>(&BITS_I64, 12);
    check_bits::<usize>(&BITS_USIZE, 13);
    check_bits::<isize>(&BITS_ISIZE, 14);
}

#[test]
fn float_min_max_follow_rust_with_nan() {
    // f32::min/max: a NaN operand loses, as CUDA's fminf/fmaxf.
    let dev = sim();
    let n = (BLOCKS * THREADS) as usize;
    let mut rng = Rng::new(77);
    let vals: Vec<f32> = (0..n).map(|_| f32::random(&mut rng)).collect();
    for op in [MIN, MAX] {
        let mut acc = dev.upload(&[f32::NAN; COUNTERS]).unwrap();
        let dv = dev.upload(&vals).unwrap();
        let mut olds = dev.zeros::<f32>(n).unwrap();
        run(&dev, &RMW_F32, LaunchConfig::new(BLOCKS, THREADS), |a| {
            a.slice_mut(&mut acc)
                .slice(&dv)
                .slice_mut(&mut olds)
                .scalar(op);
        })
        .unwrap();
        let fin = acc.download().unwrap();
        for (k, got) in fin.iter().enumerate() {
            let mine = vals.iter().skip(k).step_by(COUNTERS).copied();
            let want = if op == MIN {
                mine.fold(f32::NAN, f32::min)
            } else {
                mine.fold(f32::NAN, f32::max)
            };
            assert_eq!(got.to_bits(), want.to_bits(), "op {op} counter {k}");
        }
    }
}

// ---- one counter, many blocks

fn counter_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(counter_sim(
        ctx,
        ctx.arg_atomic::<u32>(0),
        ctx.arg_atomic::<i64>(1),
    ))
}

async fn counter_sim(ctx: &ThreadCtx<'_>, count: AtomicSlice<u32>, top: AtomicSlice<i64>) {
    count.fetch_add(ctx, 0, 1, at!()).await;
    let g = ctx.grid_1d() as i64;
    top.fetch_max(ctx, 0, (g * 7919) % 16411, at!()).await;
}

kernel!(COUNTER, "counter", ["count", "top"], counter_entry);

#[test]
fn many_blocks_one_counter() {
    let dev = sim();
    let mut count = dev.zeros::<u32>(1).unwrap();
    let mut top = dev.upload(&[-5i64]).unwrap();
    run(&dev, &COUNTER, LaunchConfig::new(64, 256), |a| {
        a.slice_mut(&mut count).slice_mut(&mut top);
    })
    .unwrap();
    assert_eq!(count.download().unwrap(), [64 * 256]);
    let want = (0..64 * 256i64).map(|g| (g * 7919) % 16411).max().unwrap();
    assert_eq!(top.download().unwrap(), [want]);
}

// ---- lock-free CAS-loop counters

fn cas_entry<'a, T: Num>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(cas_sim::<T>(ctx, ctx.arg_atomic::<T>(0)))
}

async fn cas_sim<T: Num>(ctx: &ThreadCtx<'_>, counter: AtomicSlice<T>) {
    let mut old = counter.load(ctx, 0, at!()).await;
    loop {
        match counter
            .compare_exchange(ctx, 0, old, old.add(T::one()), at!())
            .await
        {
            Ok(_) => break,
            Err(actual) => old = actual,
        }
    }
}

kernel!(CAS_U32, "cas_u32", ["counter"], cas_entry::<u32>);
kernel!(CAS_I64, "cas_i64", ["counter"], cas_entry::<i64>);
kernel!(CAS_F32, "cas_f32", ["counter"], cas_entry::<f32>);
kernel!(CAS_F64, "cas_f64", ["counter"], cas_entry::<f64>);
kernel!(CAS_USIZE, "cas_usize", ["counter"], cas_entry::<usize>);

fn check_cas<T: Num>(kernel: &'static warpspeed_runtime::__private::KernelDef, start: T, end: T) {
    let dev = sim();
    let mut counter = dev.upload(&[start]).unwrap();
    run(&dev, kernel, LaunchConfig::new(16, 64), |a| {
        a.slice_mut(&mut counter);
    })
    .unwrap();
    assert_eq!(
        counter.download().unwrap()[0].key(),
        end.key(),
        "{}",
        kernel.rust_name
    );
}

#[test]
fn cas_loop_counters() {
    check_cas::<u32>(&CAS_U32, u32::MAX - 10, 1013);
    check_cas::<i64>(&CAS_I64, -1, 1023);
    check_cas::<f32>(&CAS_F32, 0.5, 1024.5);
    check_cas::<f64>(&CAS_F64, -0.25, 1023.75);
    check_cas::<usize>(&CAS_USIZE, 7, 1031);
}

// ---- atomic_inc / atomic_dec, and atomics in shared memory

fn wrap_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(wrap_sim(
        ctx,
        ctx.arg_atomic::<u32>(0),
        ctx.arg_slice_mut::<u32>(1),
        ctx.arg_scalar::<u32>(2),
    ))
}

/// Per block: shared counters [inc, dec] start at 0 (atomic stores), every thread incs
/// and decs with `limit`, then thread 0 adds them to the global totals; olds[g] keeps
/// thread g's two old values.
async fn wrap_sim(ctx: &ThreadCtx<'_>, totals: AtomicSlice<u32>, olds: SliceMut<u32>, limit: u32) {
    let t = ctx.thread_idx().x as usize;
    let g = ctx.grid_1d();
    let s = ctx.shared_atomic_array::<u32>(2, at!());
    if t < 2 {
        s.store(ctx, t, 0, at!()).await;
    }
    ctx.sync_threads(at!()).await;
    let a = s.atomic_inc(ctx, 0, limit, at!()).await;
    let b = s.atomic_dec(ctx, 1, limit, at!()).await;
    olds.store(ctx, 2 * g, a, at!());
    olds.store(ctx, 2 * g + 1, b, at!());
    ctx.sync_threads(at!()).await;
    if t == 0 {
        let i = s.load(ctx, 0, at!()).await;
        let d = s.load(ctx, 1, at!()).await;
        totals.fetch_add(ctx, 0, i, at!()).await;
        totals.fetch_add(ctx, 1, d, at!()).await;
    }
}

kernel!(WRAP, "wrap", ["totals", "olds", "limit"], wrap_entry);

#[test]
fn inc_dec_wrap_like_cuda_in_shared_memory() {
    let dev = sim();
    let (blocks, threads, limit) = (5u32, 100u32, 13u32);
    let mut totals = dev.zeros::<u32>(2).unwrap();
    let mut olds = dev.zeros::<u32>((2 * blocks * threads) as usize).unwrap();
    run(&dev, &WRAP, LaunchConfig::new(blocks, threads), |a| {
        a.slice_mut(&mut totals).slice_mut(&mut olds).scalar(limit);
    })
    .unwrap();
    // inc from 0: 0, 1, .., limit, 0, ..; dec from 0: limit, limit - 1, .., 0, limit, ..
    let inc_final = threads % (limit + 1);
    let dec_final = (limit + 1 - threads % (limit + 1)) % (limit + 1);
    assert_eq!(
        totals.download().unwrap(),
        [blocks * inc_final, blocks * dec_final]
    );
    let olds = olds.download().unwrap();
    for b in 0..blocks as usize {
        let mut incs: Vec<u32> = (0..threads as usize)
            .map(|t| olds[2 * (b * threads as usize + t)])
            .collect();
        let mut decs: Vec<u32> = (0..threads as usize)
            .map(|t| olds[2 * (b * threads as usize + t) + 1])
            .collect();
        incs.sort_unstable();
        decs.sort_unstable();
        let mut want: Vec<u32> = (0..threads).map(|i| i % (limit + 1)).collect();
        want.sort_unstable();
        assert_eq!(incs, want, "block {b} inc");
        let mut want: Vec<u32> = (0..threads)
            .map(|i| (limit + 1 - i % (limit + 1)) % (limit + 1))
            .collect();
        want.sort_unstable();
        assert_eq!(decs, want, "block {b} dec");
    }
}
