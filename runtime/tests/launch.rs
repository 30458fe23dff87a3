//! Hand-made kernels (what `#[gpu_kernel]` would emit: CUDA C plus a simulator entry)
//! launched on whatever device is present, and on the simulator.

mod common;

use std::sync::LazyLock;

use warpspeed_runtime::__private::{
    collect_source, launch, KernelArgs, KernelDef, KernelOptions, SimFuture, Slice, SliceMut,
    SourceItem, SrcLoc, ThreadCtx,
};
use warpspeed_runtime::{Backend, Device, DeviceBuffer, Dim3, Error, LaunchConfig};

/// A site, as generated code passes it.
macro_rules! at {
    () => {{
        static AT: SrcLoc = SrcLoc::new(file!(), line!(), column!());
        &AT
    }};
}

// ---- vector_add(a: &[f32], b: &[f32], out: &mut [f32], n: u32)

static VADD_ITEM: SourceItem = SourceItem {
    rust_name: "vector_add",
    prototype: "",
    definition: r#"extern "C" __global__ void vector_add(const float* __restrict__ a, unsigned long long a_len, const float* __restrict__ b, unsigned long long b_len, float* __restrict__ out, unsigned long long out_len, unsigned int n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i] = a[i] + b[i]; }
}"#,
    deps: &[],
    consts: None,
};
static VADD_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&VADD_ITEM));
static VADD: KernelDef = KernelDef {
    rust_name: "vector_add",
    entry: "vector_add",
    source: &VADD_SOURCE,
    options: KernelOptions { fast_math: false },
    grid_sync: false,
    block: None,
    params: &["a", "b", "out", "n"],
    sim: vadd_entry,
    provable: &[],
};

fn vadd_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(vadd_sim(
        ctx,
        ctx.arg_slice::<f32>(0),
        ctx.arg_slice::<f32>(1),
        ctx.arg_slice_mut::<f32>(2),
        ctx.arg_scalar::<u32>(3),
    ))
}

async fn vadd_sim(ctx: &ThreadCtx<'_>, a: Slice<f32>, b: Slice<f32>, out: SliceMut<f32>, n: u32) {
    let i = ctx.grid_1d();
    if i < n as usize {
        out.store(ctx, i, a.load(ctx, i, at!()) + b.load(ctx, i, at!()), at!());
    }
}

fn vector_add(
    dev: &Device,
    cfg: LaunchConfig,
    a: &DeviceBuffer<f32>,
    b: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<f32>,
    n: u32,
) -> Result<(), Error> {
    let mut args = KernelArgs::new();
    args.slice(a);
    args.slice(b);
    args.slice_mut(out);
    args.scalar(n);
    launch(dev, &VADD, cfg, args)
}

// ---- indices(out: &mut [u32]): every thread writes its global linear id, 3-D

static IDX_ITEM: SourceItem = SourceItem {
    rust_name: "indices",
    prototype: "",
    definition: r#"extern "C" __global__ void indices(unsigned int* __restrict__ out, unsigned long long out_len) {
    unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned int per_block = blockDim.x * blockDim.y * blockDim.z;
    out[block * per_block + thread] = block * 1000u + thread;
}"#,
    deps: &[],
    consts: None,
};
static IDX_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&IDX_ITEM));
static INDICES: KernelDef = KernelDef {
    rust_name: "indices",
    entry: "indices",
    source: &IDX_SOURCE,
    options: KernelOptions { fast_math: false },
    grid_sync: false,
    block: None,
    params: &["out"],
    sim: indices_entry,
    provable: &[],
};

fn indices_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(indices_sim(ctx, ctx.arg_slice_mut::<u32>(0)))
}

async fn indices_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>) {
    let (b, t, g, d) = (
        ctx.block_idx(),
        ctx.thread_idx(),
        ctx.grid_dim(),
        ctx.block_dim(),
    );
    let block = b.x + g.x * (b.y + g.y * b.z);
    let thread = t.x + d.x * (t.y + d.y * t.z);
    out.store(
        ctx,
        (block * d.x * d.y * d.z + thread) as usize,
        block * 1000 + thread,
        at!(),
    );
}

// ---- scalars(out: &mut [f64], every scalar type): the C ABI of each scalar

static SCALARS_ITEM: SourceItem = SourceItem {
    rust_name: "scalars",
    prototype: "",
    definition: r#"extern "C" __global__ void scalars(double* __restrict__ out, unsigned long long out_len, bool a, signed char b, short c, int d, long long e, unsigned char f, unsigned short g, unsigned int h, unsigned long long i, float j, double k, unsigned long long l, long long m) {
    out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = (double)e; out[5] = f; out[6] = g;
    out[7] = h; out[8] = (double)i; out[9] = j; out[10] = k; out[11] = (double)l; out[12] = (double)m; out[13] = (double)out_len;
}"#,
    deps: &[],
    consts: None,
};
static SCALARS_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&SCALARS_ITEM));
static SCALARS: KernelDef = KernelDef {
    rust_name: "scalars",
    entry: "scalars",
    source: &SCALARS_SOURCE,
    options: KernelOptions { fast_math: false },
    grid_sync: false,
    block: None,
    params: &[
        "out", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
    ],
    sim: scalars_entry,
    provable: &[],
};

fn scalars_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    let values = [
        ctx.arg_scalar::<bool>(1) as u8 as f64,
        ctx.arg_scalar::<i8>(2) as f64,
        ctx.arg_scalar::<i16>(3) as f64,
        ctx.arg_scalar::<i32>(4) as f64,
        ctx.arg_scalar::<i64>(5) as f64,
        ctx.arg_scalar::<u8>(6) as f64,
        ctx.arg_scalar::<u16>(7) as f64,
        ctx.arg_scalar::<u32>(8) as f64,
        ctx.arg_scalar::<u64>(9) as f64,
        ctx.arg_scalar::<f32>(10) as f64,
        ctx.arg_scalar::<f64>(11),
        ctx.arg_scalar::<usize>(12) as f64,
        ctx.arg_scalar::<isize>(13) as f64,
    ];
    Box::pin(scalars_sim(ctx, ctx.arg_slice_mut::<f64>(0), values))
}

async fn scalars_sim(ctx: &ThreadCtx<'_>, out: SliceMut<f64>, values: [f64; 13]) {
    for (i, v) in values.into_iter().enumerate() {
        out.store(ctx, i, v, at!());
    }
    out.store(ctx, 13, out.len() as f64, at!());
}

// ---- oops(out: &mut [i32]): thread 5 of block 2 indexes out of bounds; panics on demand

static OOPS_ITEM: SourceItem = SourceItem {
    rust_name: "oops",
    prototype: "",
    definition: r#"extern "C" __global__ void oops(int* __restrict__ out, unsigned long long out_len, int mode) {}"#,
    deps: &[],
    consts: None,
};
static OOPS_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&OOPS_ITEM));
static OOPS: KernelDef = KernelDef {
    rust_name: "oops",
    entry: "oops",
    source: &OOPS_SOURCE,
    options: KernelOptions { fast_math: false },
    grid_sync: false,
    block: None,
    params: &["out", "mode"],
    sim: oops_entry,
    provable: &[],
};

static OOPS_AT: SrcLoc = SrcLoc::new(file!(), 77, 13);

fn oops_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(oops_sim(
        ctx,
        ctx.arg_slice_mut::<i32>(0),
        ctx.arg_scalar::<i32>(1),
    ))
}

async fn oops_sim(ctx: &ThreadCtx<'_>, out: SliceMut<i32>, mode: i32) {
    if ctx.block_idx().x == 2 && ctx.thread_idx().x == 5 {
        if mode == 0 {
            out.store(ctx, out.len() + 3, 1, &OOPS_AT);
        } else {
            panic!("custom failure {mode}");
        }
    }
}

fn run_vector_add(dev: &Device) {
    let n = 100_000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut out = dev.zeros::<f32>(n as usize).unwrap();
    vector_add(dev, LaunchConfig::for_num_elems(n), &da, &db, &mut out, n).unwrap();
    // Launch again: the function comes from the in-memory cache.
    vector_add(dev, LaunchConfig::for_num_elems(n), &da, &db, &mut out, n).unwrap();
    let got = out.download().unwrap();
    for i in 0..n as usize {
        assert_eq!(got[i].to_bits(), (a[i] + b[i]).to_bits(), "element {i}");
    }
}

fn run_indices(dev: &Device) {
    let cfg = LaunchConfig::new((3, 2, 2), (4, 2, 3));
    let total = (cfg.grid.count() * cfg.block.count()) as usize;
    let mut out = dev.zeros::<u32>(total).unwrap();
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out);
    launch(dev, &INDICES, cfg, args).unwrap();
    let got = out.download().unwrap();
    let per_block = cfg.block.count() as u32;
    for (i, v) in got.iter().enumerate() {
        let i = i as u32;
        assert_eq!(*v, (i / per_block) * 1000 + i % per_block, "slot {i}");
    }
}

fn run_scalars(dev: &Device) {
    let mut out = dev.zeros::<f64>(14).unwrap();
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out);
    args.scalar(true)
        .scalar(-5i8)
        .scalar(-300i16)
        .scalar(-70_000i32)
        .scalar(-(1i64 << 40));
    args.scalar(200u8)
        .scalar(60_000u16)
        .scalar(4_000_000_000u32)
        .scalar(1u64 << 50);
    args.scalar(1.5f32)
        .scalar(-2.25f64)
        .scalar(12345usize)
        .scalar(-54321isize);
    launch(dev, &SCALARS, LaunchConfig::new(1, 1), args).unwrap();
    let expected = [
        1.0,
        -5.0,
        -300.0,
        -70_000.0,
        -(2f64.powi(40)),
        200.0,
        60_000.0,
        4e9,
        2f64.powi(50),
        1.5,
        -2.25,
        12345.0,
        -54321.0,
        14.0,
    ];
    assert_eq!(out.download().unwrap(), expected);
}

#[test]
fn vector_add_on_simulator() {
    run_vector_add(&Device::simulator());
}

#[test]
fn vector_add_on_default_device() {
    let dev = common::any_device();
    if dev.backend() == Backend::Cuda && !common::nvrtc_or_skip("vector_add_on_default_device") {
        return;
    }
    run_vector_add(&dev);
}

#[test]
fn thread_indices_on_simulator_and_gpu() {
    run_indices(&Device::simulator());
    if let Some(gpu) = common::gpu_or_skip("thread_indices_on_gpu") {
        if common::nvrtc_or_skip("thread_indices_on_gpu") {
            run_indices(&gpu);
        }
    }
}

#[test]
fn scalar_abi_on_simulator_and_gpu() {
    run_scalars(&Device::simulator());
    if let Some(gpu) = common::gpu_or_skip("scalar_abi_on_gpu") {
        if common::nvrtc_or_skip("scalar_abi_on_gpu") {
            run_scalars(&gpu);
        }
    }
}

#[test]
fn out_of_bounds_is_reported_on_simulator() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<i32>(10).unwrap();
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out).scalar(0i32);
    let err = launch(&dev, &OOPS, LaunchConfig::new(4, 8), args).unwrap_err();
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
            assert_eq!((kernel.as_str(), *line, *index, *len), ("oops", 77, 13, 10));
            assert_eq!(file, "runtime/tests/launch.rs");
            assert_eq!((*block, *thread), (Dim3::new(2, 0, 0), Dim3::new(5, 0, 0)));
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("at runtime/tests/launch.rs:77: index 13, length 10")
            && text.contains("block (2, 0, 0)")
            && text.contains("thread (5, 0, 0)"),
        "{text}"
    );
    // The device stays usable.
    run_vector_add(&dev);
}

#[test]
fn other_panics_are_kernel_panics() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<i32>(10).unwrap();
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out).scalar(7i32);
    let err = launch(&dev, &OOPS, LaunchConfig::new(4, 8), args).unwrap_err();
    match &err {
        Error::KernelPanic {
            kernel,
            message,
            block,
            thread,
        } => {
            assert_eq!(kernel, "oops");
            assert!(
                message.contains("custom failure 7") && message.contains("launch.rs"),
                "{message}"
            );
            assert_eq!((*block, *thread), (Dim3::new(2, 0, 0), Dim3::new(5, 0, 0)));
        }
        other => panic!("expected KernelPanic, got {other:?}"),
    }
}

#[test]
fn invalid_config_is_refused_before_launch() {
    for dev in [
        Some(Device::simulator()),
        common::gpu_or_skip("invalid_config_on_gpu"),
    ]
    .into_iter()
    .flatten()
    {
        let mut out = dev.zeros::<i32>(10).unwrap();
        for cfg in [
            LaunchConfig::new(0, 32),
            LaunchConfig::new(1, 2048),
            LaunchConfig::new(1, (1, 1, 65)),
            LaunchConfig::new((1, 70_000), 1),
            LaunchConfig::new(1, 32)
                .with_shared_mem(dev.limits().max_shared_mem_per_block_optin + 1),
        ] {
            let mut args = KernelArgs::new();
            args.slice_mut(&mut out).scalar(0i32);
            let err = launch(&dev, &OOPS, cfg, args).unwrap_err();
            assert!(
                matches!(&err, Error::InvalidLaunch { kernel, .. } if kernel == "oops"),
                "{cfg}: {err:?}"
            );
        }
    }
}

#[test]
fn buffers_of_another_device_are_refused() {
    let Some(gpu) = common::gpu_or_skip("buffers_of_another_device_are_refused") else {
        return;
    };
    let sim = Device::simulator();
    let a = sim.upload(&[1.0f32; 4]).unwrap();
    let b = gpu.upload(&[1.0f32; 4]).unwrap();
    let mut out = gpu.zeros::<f32>(4).unwrap();
    let err = vector_add(&gpu, LaunchConfig::new(1, 4), &a, &b, &mut out, 4).unwrap_err();
    match err {
        Error::DeviceMismatch { what, .. } => assert!(what.contains("argument 0"), "{what}"),
        other => panic!("expected DeviceMismatch, got {other:?}"),
    }
}

#[test]
fn hand_made_kernels_compile_with_nvrtc() {
    if !common::nvrtc_or_skip("hand_made_kernels_compile_with_nvrtc") {
        return;
    }
    for kernel in [&VADD, &INDICES, &SCALARS, &OOPS] {
        if let Err(err) =
            warpspeed_runtime::compile::compile_cubin(kernel.source, (9, 0), kernel.options)
        {
            panic!("{err}");
        }
    }
}
