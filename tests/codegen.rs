//! Snapshots of the emitted CUDA C, one kernel per construct of the kernel language
//! (naga's `tests/snapshots.rs` style), and proof that NVRTC compiles every one of them.
//! A change in the emitted C shows here as a diff to review (`cargo insta review`).

mod kernels {
    use core::sync::atomic::{AtomicI64, AtomicU32, Ordering};
    use warpspeed::prelude::*;

    #[gpu_kernel]
    pub fn scalars(
        b: bool,
        i8v: i8,
        i16v: i16,
        i32v: i32,
        i64v: i64,
        iz: isize,
        u8v: u8,
        u16v: u16,
        u32v: u32,
        u64v: u64,
        uz: usize,
        f: f32,
        d: f64,
        out: &mut [f64],
    ) {
        let t = b as i32 + i8v as i32 + i16v as i32 + i32v;
        let w = i64v as f64
            + iz as f64
            + u8v as f64
            + u16v as f64
            + u32v as f64
            + u64v as f64
            + uz as f64;
        out[0] = t as f64 + w + f as f64 + d;
    }

    #[gpu_kernel]
    pub fn arithmetic(a: &[i32], b: &[u8], c: &[f32], out: &mut [i32], outf: &mut [f32]) {
        let i = grid_1d();
        let x = a[i] + 1 - a[i] * 3 / (a[i] | 1) % 7;
        let y = (b[i] + 200) & 0x0f | b[i] ^ 3;
        let s = (a[i] << 3) >> (b[i] as u32);
        out[i] = x + y as i32 + s + (-a[i]) + !a[i];
        outf[i] = c[i] * 2.0 - c[i] / 3.0 + c[i] % 1.5 - (-c[i]);
    }

    #[gpu_kernel]
    pub fn compound_assign(out: &mut [u16], n: usize) {
        let i = grid_1d();
        if i >= n {
            return;
        }
        let mut v: u16 = 65535;
        v += 2;
        v -= 1;
        v *= 300;
        v /= 7;
        v %= 1000;
        v <<= 17;
        v >>= 1;
        v |= 1;
        v &= 0xff;
        v ^= 0x0f;
        out[i] += v;
    }

    #[gpu_kernel]
    pub fn casts(
        f: &[f32],
        d: &[f64],
        out_i8: &mut [i8],
        out_u8: &mut [u8],
        out_i64: &mut [i64],
        out_u32: &mut [u32],
        out_f: &mut [f32],
    ) {
        let i = grid_1d();
        out_i8[i] = f[i] as i8;
        out_u8[i] = d[i] as u8;
        out_i64[i] = d[i] as i64;
        out_u32[i] = f[i] as u32;
        out_f[i] = d[i] as f32 + (out_u32[i] as f32) + (true as u8) as f32;
    }

    #[gpu_kernel]
    pub fn control_flow(data: &[i32], out: &mut [i32]) {
        let i = grid_1d();
        let mut acc = 0;
        let mut k = 0;
        while k < 10 {
            k += 1;
            if k == 3 {
                continue;
            }
            acc += k;
        }
        loop {
            acc -= 1;
            if acc < 20 {
                break;
            }
        }
        'outer: for a in 0..4 {
            for b in (0..=a).rev() {
                if a * b > 4 {
                    break 'outer;
                }
                if b == 1 {
                    continue 'outer;
                }
                acc += a + b;
            }
            // A declaration between the inner loop and the end of the labelled body: the
            // `continue 'outer` above must not jump over its initialisation in C.
            let after = a * 2;
            acc += after;
        }
        for s in (1..20).step_by(3) {
            acc ^= s;
        }
        for s in (0..10).step_by(4).rev() {
            acc += s;
        }
        let v = if data[i] > 0 {
            data[i]
        } else if data[i] < -5 {
            -data[i]
        } else {
            0
        };
        let w = {
            let t = v * 2;
            t + 1
        };
        let z = if acc > w {
            let q = acc - w;
            q * q
        } else {
            w
        };
        out[i] = acc + v + w + z;
    }

    #[gpu_device]
    pub fn square(x: f32) -> f32 {
        x * x
    }

    #[gpu_device]
    pub fn sum_sq(v: &[f32], n: usize) -> f32 {
        let mut s = 0.0;
        for i in 0..n {
            s += square(v[i]);
        }
        s
    }

    #[gpu_kernel]
    pub fn device_calls(v: &[f32], out: &mut [f32]) {
        let i = grid_1d();
        let s: f32 = sum_sq(v, v.len());
        out[i] = s + square(v[i]);
    }

    #[gpu_kernel]
    pub fn intrinsics(out: &mut [u32], outz: &mut [usize]) {
        let t = thread_idx();
        let b = block_idx();
        let (x, y) = grid_2d();
        let (gx, gy, gz) = grid_3d();
        let i = x + y * grid_stride_1d();
        out[i] = t.x + t.y * block_dim().x + b.x * 1000 + grid_dim().y + thread_idx().z;
        outz[i] = gx + gy + gz + grid_1d();
    }

    #[gpu_kernel]
    pub fn methods(
        a: &[i32],
        b: &[u8],
        f: &[f32],
        d: &[f64],
        out: &mut [u32],
        outf: &mut [f32],
        outd: &mut [f64],
    ) {
        let i = grid_1d();
        out[i] = a[i].count_ones()
            + b[i].leading_zeros()
            + b[i].trailing_zeros()
            + (a[i].abs().min(7).max(-3) as u32);
        out[i] += a[i].wrapping_add(5).wrapping_mul(3).wrapping_sub(1) as u32;
        outf[i] = f[i].sqrt()
            + f[i].powi(3)
            + f[i].abs().powf(0.5)
            + f[i].exp()
            + f[i].ln()
            + f[i].sin()
            + f[i].cos()
            + f[i].atan2(2.0)
            + f[i].floor()
            + f[i].ceil()
            + f[i].mul_add(2.0, 1.0)
            + f[i].min(1.0)
            + f[i].max(0.0);
        outd[i] = d[i].sqrt().mul_add(d[i], 0.5);
    }

    #[gpu_kernel]
    pub fn local_arrays(out: &mut [i32]) {
        let i = grid_1d();
        let mut hist = [0i32; 8];
        let table = [1, 2, 3, 4];
        let mut grid = [[0u8; 3]; 2];
        grid[1][2] = 7;
        hist[i % 8] += table[i % 4] + grid[1][2] as i32;
        out[i] = hist[i % 8];
    }

    #[gpu_kernel]
    pub fn shadowing_and_names(out: &mut [i32], int: i32) {
        let float = int + 1;
        let x = float;
        let x = x * 2;
        let threadIdx = x + 1;
        let ws_t0 = threadIdx;
        out[0] = ws_t0;
    }

    #[gpu_kernel]
    pub fn constants(out: &mut [u32], outf: &mut [f32], outl: &mut [i64]) {
        out[0] = u32::MAX;
        outf[0] = f32::INFINITY;
        outf[1] = f32::MAX;
        outl[0] = i64::MIN;
        outl[1] = -9223372036854775808;
        out[1] = u8::MAX as u32 + (-128i8) as u32;
    }

    #[gpu_kernel(fast_math)]
    pub fn fast(x: &[f32], out: &mut [f32]) {
        let i = grid_1d();
        out[i] = x[i] * 2.0 + 1.0;
    }

    #[gpu_kernel]
    pub fn half_precision(
        a: &[warpspeed::f16],
        acc: &[warpspeed::AtomicF16],
        acc2: &[warpspeed::AtomicF16x2],
        out: &mut [warpspeed::f16],
        outf: &mut [f32],
    ) {
        let i = grid_1d();
        let x = a[i];
        let y = warpspeed::f16::from_f32(1.5) * x - warpspeed::f16::from_f64(0.25) / x;
        out[i] = -y % x;
        outf[i] = y.to_f32() + x.to_f64() as f32;
        if x < y && x != y {
            acc[0].fetch_add(x, Ordering::Relaxed);
            let p = warpspeed::f16x2::new(x, y);
            acc2[0].fetch_add(p + p, Ordering::AcqRel);
            out[0] = p.lo() + p.hi() + shfl_xor_sync(0xffff_ffff, x, 1);
        }
        gpu_print!("{} {:.2}\n", x, y);
    }

    #[gpu_kernel]
    pub fn shared_memory(x: &[f32], out: &mut [f32]) {
        let tile = SharedArray::<[f32; 17], 16>::new();
        let line = SharedArray::<f32, 256>::new();
        let extra = dynamic_shared::<f32>();
        let tx = thread_idx().x as usize;
        let ty = thread_idx().y as usize;
        tile[ty][tx] = x[grid_1d()];
        line[ty * 16 + tx] = tile[ty][tx] * 2.0;
        if tx < extra.len() {
            extra[tx] = 1.0;
        }
        sync_threads();
        let all = sync_threads_and(line[0] > 0.0);
        let n = sync_threads_count(tile[tx][ty] > 1.0);
        if sync_threads_or(all) {
            thread_fence_block();
        }
        thread_fence();
        thread_fence_system();
        out[grid_1d()] = tile[tx][ty] + line.len() as f32 + tile.len() as f32 + n as f32;
    }

    #[gpu_kernel]
    pub fn warp_functions(a: &[i32], b: &[f64], out: &mut [i32], outd: &mut [f64]) {
        let i = grid_1d();
        let lane = lane_id();
        let mask = ballot_sync(0xffff_ffff, a[i] > 0);
        sync_warp(mask | 1);
        let s = shfl_sync(0xffff_ffff, a[i], 0) + shfl_up_sync(0xffff_ffff, a[i], 1, 16);
        let d = shfl_down_sync(0xffff_ffff, b[i], 2) + shfl_xor_sync(0xffff_ffff, b[i], 1, 8);
        let m = match_any_sync(active_mask(), a[i] & 3);
        if all_sync(0xffff_ffff, s > 0) || any_sync(0xffff_ffff, lane == 3) {
            out[i] = s + m as i32 + WARP_SIZE as i32;
        }
        outd[i] = d;
    }

    #[gpu_kernel]
    pub fn atomics(c: &[AtomicU32], l: &[AtomicI64], f: &[warpspeed::AtomicF32], out: &mut [u32]) {
        let local = SharedArray::<AtomicU32, 32>::new();
        let t = thread_idx().x as usize % 32;
        local[t].store(0, Ordering::Relaxed);
        sync_threads();
        local[t].fetch_add(1, Ordering::Relaxed);
        let old = c[0].fetch_add(1, Ordering::Relaxed) + c[1].fetch_sub(2, Ordering::Acquire);
        c[2].fetch_min(old, Ordering::Release);
        c[3].fetch_max(old, Ordering::AcqRel);
        c[4].fetch_and(old, Ordering::SeqCst);
        c[5].fetch_or(1, Ordering::Relaxed);
        c[6].fetch_xor(3, Ordering::Relaxed);
        c[7].swap(old, Ordering::Relaxed);
        c[8].atomic_inc(100);
        c[9].atomic_dec(100);
        l[0].fetch_add(-5, Ordering::Relaxed);
        f[0].fetch_add(1.5, Ordering::Relaxed);
        f[1].fetch_max(2.5, Ordering::Relaxed);
        c[10].store(local[t].load(Ordering::Relaxed), Ordering::Release);
        out[0] = c[11].load(Ordering::Acquire);
    }

    /// Declared lengths: the entry check returns a zero of each type; the prover drops the
    /// checks of `v[2 * i + 1]` and `v[i + m + 1]` (`i < m`, `len >= 2 * m + 1`), `t[k]`
    /// (`k = j & 7`) and `c[r]` (`r < c.len()`), and keeps those of `v[i + m + 2]` (one
    /// past) and `v[m - 1]` (subtraction).
    #[gpu_device]
    pub fn pairs(#[len(2 * m + 1)] v: &[f32], m: usize) -> f32 {
        let mut s = 0.0;
        for i in 0..m {
            s += v[2 * i] * v[2 * i + 1] + v[i + m + 1] - v[i + m + 2];
        }
        s + v[m - 1]
    }

    #[gpu_device]
    pub fn flag(#[len(8)] t: &[u32], j: u32) -> bool {
        let k = (j & 7) as usize;
        t[k] == 1
    }

    #[gpu_kernel]
    pub fn declared_lengths(
        #[len(2 * m + 1)] v: &[f32],
        #[len(8)] t: &[u32],
        c: &[AtomicU32],
        #[len(w * h)] out: &mut [f32],
        m: usize,
        w: usize,
        h: usize,
    ) {
        let (x, y) = grid_2d();
        if x >= w || y >= h {
            return;
        }
        let r = x + y;
        if r < c.len() {
            c[r].fetch_add(1, Ordering::Relaxed);
        }
        if flag(t, x as u32) {
            out[y * w + x] = pairs(v, m);
        }
    }

    /// Textures: four C parameters each, `fetch` through the prelude's `ws_tex2d_fetch<T>`
    /// (coordinates evaluated left to right), `width()`/`height()` the size parameters.
    #[gpu_kernel]
    pub fn textures(out: &mut [f32], img: &Texture2D<f32>, mask: Texture2D<u8>) {
        let (x, y) = grid_2d();
        if x < img.width() && y < img.height() {
            let m = mask.fetch((x % mask.width()) as i32, (y % mask.height()) as i32);
            out[y * img.width() + x] = img.fetch(x as i32 - 1, y as i32 + 1) * m as f32;
        }
    }

    /// A `#[gpu_struct]` nested in another, with an array field.
    #[gpu_struct]
    #[derive(Clone, Copy)]
    pub struct Vec3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }

    /// Parameters passed by value: scalars, an array and a nested struct (the C layout is
    /// checked by `static_assert`s after the definition).
    #[gpu_struct]
    #[derive(Clone, Copy)]
    pub struct Params {
        pub dt: f32,
        pub n: u32,
        pub w: [f32; 3],
        pub origin: Vec3,
        pub flag: bool,
    }

    /// A device function taking and returning a struct, built with a literal.
    #[gpu_device]
    pub fn scaled(v: Vec3, k: f32) -> Vec3 {
        Vec3 {
            x: v.x * k,
            y: v.y * k,
            z: v.z * k,
        }
    }

    /// Structs as a parameter, as slice elements, as locals and through a device function.
    #[gpu_kernel]
    pub fn structs(p: Params, points: &mut [Vec3], out: &mut [f32]) {
        let i = grid_1d();
        if i < points.len() && p.flag {
            let mut v: Vec3 = scaled(points[i], p.dt);
            v.x += p.origin.x + p.w[i % 3];
            points[i] = v;
            points[i].z = p.n as f32;
            out[i] = v.x + v.y;
        }
    }

    /// CSR rows: `val[k]`, `col[k]` proven at the loop's entry (`end <= len`, the loop
    /// written twice), `x[col[k]]` read with its report deferred to the loop's end.
    #[gpu_kernel]
    pub fn loop_entry(y: &mut [f32], row_ptr: &[u32], col: &[u32], val: &[f32], x: &[f32]) {
        let row = grid_1d();
        if row + 1 < row_ptr.len() {
            let end = row_ptr[row + 1] as usize;
            let mut s = 0.0f32;
            for k in row_ptr[row] as usize..end {
                s += val[k] * x[col[k] as usize];
            }
            y[row] = s;
        }
    }

    /// A generic device function: one C++ overload per type of its bound.
    #[gpu_device]
    pub fn generic_lerp<T: Float>(a: T, b: T, t: T) -> T {
        a + (b - a) * t
    }

    /// A generic kernel: one C entry per type (`generics_uf16`), the const parameter's
    /// value given to the C as its constant's macro when the instance is assembled.
    #[gpu_kernel]
    pub fn generics<T: Float, const N: usize>(out: &mut [T], x: &[T]) {
        let tile = SharedArray::<T, N>::new();
        let (i, t) = (grid_1d(), thread_idx().x as usize);
        tile[t] = x[i];
        sync_threads();
        let w: T = generic_lerp(tile[t], tile[N - 1 - t], T::from_f32(0.5));
        out[i] = w * T::from_usize(N) + T::one();
    }
}

mod common;

use kernels::*;

/// Every kernel above, with its name.
fn all() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![
        ("scalars", &scalars::KERNEL),
        ("arithmetic", &arithmetic::KERNEL),
        ("compound_assign", &compound_assign::KERNEL),
        ("casts", &casts::KERNEL),
        ("control_flow", &control_flow::KERNEL),
        ("device_calls", &device_calls::KERNEL),
        ("intrinsics", &intrinsics::KERNEL),
        ("methods", &methods::KERNEL),
        ("local_arrays", &local_arrays::KERNEL),
        ("shadowing_and_names", &shadowing_and_names::KERNEL),
        ("constants", &constants::KERNEL),
        ("fast", &fast::KERNEL),
        ("shared_memory", &shared_memory::KERNEL),
        ("half_precision", &half_precision::KERNEL),
        ("warp_functions", &warp_functions::KERNEL),
        ("atomics", &atomics::KERNEL),
        ("declared_lengths", &declared_lengths::KERNEL),
        ("generics_f16_32", generics::kernel::<warpspeed::f16, 32>()),
        ("generics_f64_64", generics::kernel::<f64, 64>()),
        ("textures", &textures::KERNEL),
        ("structs", &structs::KERNEL),
        ("loop_entry", &loop_entry::KERNEL),
    ]
}

#[test]
fn snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    if !dir.exists() {
        // A test binary taken to another machine (the GPU bundle) has no source tree.
        println!("SKIPPED snapshots: {} is not here", dir.display());
        return;
    }
    for (name, k) in all() {
        // The prelude is the same for every kernel: snapshot what the macro wrote.
        let src = k.source.as_str();
        let body = src
            .split_once("// ---- end of the prelude: the kernel follows\n")
            .map(|(_, b)| b)
            .unwrap_or(src);
        insta::assert_snapshot!(name, body);
    }
}

#[test]
fn nvrtc_compiles_every_kernel() {
    if !common::nvrtc_here() {
        return;
    }
    for arch in [(7, 5), (8, 0), (9, 0)] {
        for (name, k) in all() {
            warpspeed::compile::compile_cubin(k.source.as_str(), arch, k.options).unwrap_or_else(
                |e| panic!("{name} does not compile for sm_{}{}: {e}", arch.0, arch.1),
            );
        }
    }
}
