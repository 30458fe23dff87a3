//! Hand-made kernels (CUDA C plus a simulator body, as `#[gpu_kernel]` emits them) for
//! cooperative launches with the prelude's `ws_grid_sync`, and for dynamic shared memory
//! above 48 KiB: on the simulator, and on the GPU where there is one.

mod common;

use std::sync::LazyLock;

use warpspeed_runtime::__private::{
    collect_source, launch, launch_cooperative, KernelArgs, KernelDef, KernelOptions, SimFuture,
    SliceMut, SourceItem, SrcLoc, ThreadCtx,
};
use warpspeed_runtime::{Device, Error, LaunchConfig};

/// A site, as generated code passes it.
macro_rules! at {
    () => {{
        static AT: SrcLoc = SrcLoc::new(file!(), line!(), column!());
        &AT
    }};
}

// ---- exchange(a: &mut [u32], b: &mut [u32], rounds: u32): every round, each thread
// writes an element computed from the next block's data, then the grid syncs

static EXCHANGE_ITEM: SourceItem = SourceItem {
    rust_name: "exchange",
    prototype: "",
    definition: r#"extern "C" __global__ void exchange(unsigned int* __restrict__ a, unsigned long long a_len, unsigned int* __restrict__ b, unsigned long long b_len, unsigned int rounds) {
    const unsigned long long n = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int r = 0u; r < rounds; r++) {
        unsigned int* src = (r % 2u == 0u) ? a : b;
        unsigned int* dst = (r % 2u == 0u) ? b : a;
        dst[i] = src[(i + blockDim.x) % n] * 3u + r + 1u;
        ws_grid_sync();
    }
}"#,
    deps: &[],
    consts: None,
};
static EXCHANGE_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&EXCHANGE_ITEM));
static EXCHANGE: KernelDef = KernelDef {
    rust_name: "exchange",
    entry: "exchange",
    source: &EXCHANGE_SOURCE,
    options: KernelOptions { fast_math: false },
    params: &["a", "b", "rounds"],
    grid_sync: true,
    block: None,
    sim: exchange_entry,
    provable: &[],
};

fn exchange_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(exchange_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_slice_mut::<u32>(1),
        ctx.arg_scalar::<u32>(2),
    ))
}

async fn exchange_sim(ctx: &ThreadCtx<'_>, a: SliceMut<u32>, b: SliceMut<u32>, rounds: u32) {
    let n = ctx.grid_dim().x as usize * ctx.block_dim().x as usize;
    let i = ctx.grid_1d();
    for r in 0..rounds {
        let (src, dst) = if r % 2 == 0 { (a, b) } else { (b, a) };
        let v = src.load(ctx, (i + ctx.block_dim().x as usize) % n, at!());
        dst.store(ctx, i, v.wrapping_mul(3).wrapping_add(r + 1), at!());
        ctx.sync_grid(at!()).await;
    }
}

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

/// Launches `exchange` `times` times in a row on `dev`, each with fresh input, and
/// checks every result.
fn run_exchange(dev: &Device, grid: u32, block: u32, rounds: u32, times: u32) {
    let n = (grid * block) as usize;
    for time in 0..times {
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2654435761).wrapping_add(time))
            .collect();
        let mut a = dev.upload(&input).unwrap();
        let mut b = dev.zeros::<u32>(n).unwrap();
        let mut args = KernelArgs::new();
        args.slice_mut(&mut a).slice_mut(&mut b).scalar(rounds);
        launch_cooperative(dev, &EXCHANGE, LaunchConfig::new(grid, block), args).unwrap();
        let got = if rounds.is_multiple_of(2) { a } else { b };
        assert_eq!(
            got.download().unwrap(),
            exchange_reference(&input, block as usize, rounds),
            "{dev:?}: grid {grid}, block {block}, rounds {rounds}, launch {time}"
        );
    }
}

// ---- big_shared(out: &mut [u32]): a 256-thread block through its dynamic shared memory
// (any size) and a 1 KiB static array

static BIG_SHARED_ITEM: SourceItem = SourceItem {
    rust_name: "big_shared",
    prototype: "",
    definition: r#"extern "C" __global__ void big_shared(unsigned int* __restrict__ out, unsigned long long out_len) {
    __shared__ unsigned int tile[256];
    unsigned int* s = ws_dynamic_shared<unsigned int>();
    const unsigned long long n = ws_dynamic_shared_len<unsigned int>();
    const unsigned int t = threadIdx.x;
    tile[t] = t * 5u;
    for (unsigned long long k = t; k < n; k += blockDim.x) { s[k] = (unsigned int)k * 7u + blockIdx.x; }
    __syncthreads();
    unsigned int acc = tile[blockDim.x - 1u - t];
    for (unsigned long long k = t; k < n; k += blockDim.x) { acc += s[n - 1ull - k]; }
    out[(unsigned long long)blockIdx.x * blockDim.x + t] = acc + (unsigned int)n;
}"#,
    deps: &[],
    consts: None,
};
static BIG_SHARED_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&BIG_SHARED_ITEM));
static BIG_SHARED: KernelDef = KernelDef {
    rust_name: "big_shared",
    entry: "big_shared",
    source: &BIG_SHARED_SOURCE,
    options: KernelOptions { fast_math: false },
    params: &["out"],
    grid_sync: false,
    block: None,
    sim: big_shared_entry,
    provable: &[],
};

fn big_shared_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(big_shared_sim(ctx, ctx.arg_slice_mut::<u32>(0)))
}

async fn big_shared_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>) {
    let tile = ctx.shared_array::<u32>(256, at!());
    let s = ctx.dynamic_shared::<u32>(at!());
    let n = s.len();
    let t = ctx.thread_idx().x;
    let dim = ctx.block_dim().x as usize;
    tile.store(ctx, t as usize, t.wrapping_mul(5), at!());
    let mut k = t as usize;
    while k < n {
        s.store(
            ctx,
            k,
            (k as u32).wrapping_mul(7).wrapping_add(ctx.block_idx().x),
            at!(),
        );
        k += dim;
    }
    ctx.sync_threads(at!()).await;
    let mut acc = tile.load(ctx, dim - 1 - t as usize, at!());
    let mut k = t as usize;
    while k < n {
        acc = acc.wrapping_add(s.load(ctx, n - 1 - k, at!()));
        k += dim;
    }
    out.store(ctx, ctx.grid_1d(), acc.wrapping_add(n as u32), at!());
}

fn big_shared_reference(blocks: u32, bytes: u32) -> Vec<u32> {
    let n = (bytes / 4) as usize;
    let mut out = Vec::new();
    for b in 0..blocks {
        for t in 0..256usize {
            let mut acc = ((255 - t) as u32).wrapping_mul(5);
            for k in (t..n).step_by(256) {
                let m = n - 1 - k;
                acc = acc.wrapping_add((m as u32).wrapping_mul(7).wrapping_add(b));
            }
            out.push(acc.wrapping_add(n as u32));
        }
    }
    out
}

fn run_big_shared(dev: &Device, blocks: u32, bytes: u32) -> Result<Vec<u32>, Error> {
    let mut out = dev.zeros::<u32>(blocks as usize * 256)?;
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out);
    launch(
        dev,
        &BIG_SHARED,
        LaunchConfig::new(blocks, 256).with_shared_mem(bytes),
        args,
    )?;
    out.download()
}

/// The devices to run on: the simulator, and GPU 0 where there is one (and NVRTC).
fn devices(test: &str) -> Vec<Device> {
    let mut devs = vec![Device::simulator()];
    if let Some(gpu) = common::gpu_or_skip(test) {
        if common::nvrtc_or_skip(test) {
            devs.push(gpu);
        }
    }
    devs
}

#[test]
fn cooperative_launches_in_a_row() {
    for dev in devices("cooperative_launches_in_a_row") {
        let sms = dev.limits().multiprocessor_count;
        // Two 256-thread blocks per multiprocessor fit on every GPU and on the simulator.
        let rounds = if dev.backend() == warpspeed_runtime::Backend::Cuda {
            100
        } else {
            5
        };
        run_exchange(&dev, 2 * sms, 256, rounds, 5);
        run_exchange(&dev, 3, 64, 7, 3);
        run_exchange(&dev, 1, 32, 4, 2);
    }
}

#[test]
fn plain_launch_of_a_grid_sync_kernel_is_refused() {
    for dev in devices("plain_launch_of_a_grid_sync_kernel_is_refused") {
        let mut a = dev.zeros::<u32>(64).unwrap();
        let mut b = dev.zeros::<u32>(64).unwrap();
        let mut args = KernelArgs::new();
        args.slice_mut(&mut a).slice_mut(&mut b).scalar(1u32);
        match launch(&dev, &EXCHANGE, LaunchConfig::new(1, 64), args) {
            Err(Error::InvalidLaunch { reason, .. }) => assert!(
                reason.contains("this_grid().sync()") && reason.contains("launch_cooperative"),
                "{reason}"
            ),
            other => panic!("{dev:?}: expected InvalidLaunch, got {other:?}"),
        }
    }
}

#[test]
fn cooperative_launch_over_the_coresident_limit_is_refused() {
    for dev in devices("cooperative_launch_over_the_coresident_limit_is_refused") {
        // No device holds 20000 blocks of 1024 threads at once. (The launch is refused
        // before it runs: the buffers need not fit the grid.)
        let blocks = 20_000u32;
        let mut a = dev.zeros::<u32>(64).unwrap();
        let mut b = dev.zeros::<u32>(64).unwrap();
        let mut args = KernelArgs::new();
        args.slice_mut(&mut a).slice_mut(&mut b).scalar(1u32);
        match launch_cooperative(&dev, &EXCHANGE, LaunchConfig::new(blocks, 1024), args) {
            Err(Error::InvalidLaunch { reason, .. }) => assert!(
                reason.starts_with(
                    "a cooperative launch needs every block on the device at once, but the \
                     grid has 20000 blocks and at most "
                ) && reason.contains(
                    " per multiprocessor for this kernel with 1024 threads and 0 bytes of \
                     dynamic shared memory per block, times "
                ) && reason.ends_with(&format!(
                    " {} multiprocessors)",
                    dev.limits().multiprocessor_count
                )),
                "{reason}"
            ),
            other => panic!("{dev:?}: expected InvalidLaunch, got {other:?}"),
        }
    }
}

#[test]
fn dynamic_shared_memory_above_48_kib() {
    for dev in devices("dynamic_shared_memory_above_48_kib") {
        let optin = dev.limits().max_shared_mem_per_block_optin;
        for bytes in [4096u32, 48 * 1024 - 1024, 100 * 1024] {
            if bytes + 1024 > optin {
                eprintln!("SKIPPED {bytes} bytes of shared memory on {dev:?}: its opt-in limit is {optin}");
                continue;
            }
            // Twice, the second launch finding the kernel opted in already.
            for _ in 0..2 {
                assert_eq!(
                    run_big_shared(&dev, 3, bytes).unwrap(),
                    big_shared_reference(3, bytes),
                    "{dev:?}: {bytes} bytes"
                );
            }
        }
        // The static 1 KiB plus dynamic memory up to the opt-in limit is too much.
        match run_big_shared(&dev, 1, optin - 512) {
            Err(Error::InvalidLaunch { reason, .. }) => assert!(
                reason.contains(&format!("{optin} bytes")),
                "{dev:?}: {reason}"
            ),
            other => panic!("{dev:?}: expected InvalidLaunch, got {other:?}"),
        }
        // Over the opt-in limit by itself: refused before anything runs.
        match run_big_shared(&dev, 1, optin + 4) {
            Err(Error::InvalidLaunch { reason, .. }) => assert!(
                reason.contains("opt-in limit") && reason.contains(&format!("at most {optin}")),
                "{dev:?}: {reason}"
            ),
            other => panic!("{dev:?}: expected InvalidLaunch, got {other:?}"),
        }
    }
}

#[test]
fn hand_made_kernels_compile_with_nvrtc() {
    if !common::nvrtc_or_skip("hand_made_kernels_compile_with_nvrtc") {
        return;
    }
    for kernel in [&EXCHANGE, &BIG_SHARED] {
        for arch in [(7, 5), (8, 0), (9, 0)] {
            if let Err(err) =
                warpspeed_runtime::compile::compile_cubin(kernel.source, arch, kernel.options)
            {
                panic!("{}: {err}", kernel.rust_name);
            }
        }
    }
}
