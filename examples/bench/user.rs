//! The kernels of examples/kernels/user_kernels.rs, written as users write them (declaring
//! nothing for the bounds prover), checked against `unchecked` in the same run (issue 24,
//! item 1): what bounds checks cost a kernel that says nothing about its sizes. There is
//! no hand-written column; the ratio is the row's figure.
//!
//! Inputs are small integers held in `f32` (coefficients powers of two), so every sum is
//! exact in any order: the checked kernel's output is compared with the CPU bit for bit
//! (on a sample of rows for the matmul), the unchecked kernel's with the checked one's.
//! Outputs start poisoned (NaN).

use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::user_kernels::{self as uk, checked, config, unchecked, Csr, RADIUS};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    let mut all: Vec<Kernel> = Vec::new();
    all.extend(checked::kernels().into_iter().map(|k| ("checked", k)));
    all.extend(unchecked::kernels().into_iter().map(|k| ("unchecked", k)));
    all
}

/// One launch of a contestant, writing the buffer it is given.
type Launch<'a> = Box<dyn FnMut(&mut DeviceBuffer<f32>) -> warpspeed::Result<()> + 'a>;

/// Times `forms` (checked, unchecked) writing poisoned buffers of `out_len`, checks the
/// checked output with `check` and the unchecked one against it, and returns the row.
fn contest(
    b: &Bench,
    label: &str,
    size: String,
    out_len: usize,
    forms: [Launch<'_>; 2],
    check: impl FnOnce(&[f32]),
) -> Res<Row> {
    let poison = vec![f32::NAN; out_len];
    let mut outs = [b.dev.upload(&poison)?, b.dev.upload(&poison)?];
    let t = {
        let [oc, ou] = &mut outs;
        let [mut fc, mut fu] = forms;
        let mut steps: Vec<Step> =
            vec![Box::new(move || Ok(fc(oc)?)), Box::new(move || Ok(fu(ou)?))];
        best_ms(b, &mut steps)?
    };
    let got = outs[0].download()?;
    check(&got);
    b.check(
        &format!("{label} {size}, unchecked, against the checked kernel"),
        &outs[1].download()?,
        &got,
        f32::to_bits,
    );
    Ok(Row::new(label, size, Unit::Ms).times(t[0], Some(t[1]), None))
}

/// Checks `got` (checked kernel) against `want` (the CPU) bit for bit.
fn against_cpu<'a>(b: &'a Bench, what: String, want: Vec<f32>) -> impl FnOnce(&[f32]) + 'a {
    move |got| {
        b.check(
            &format!("{what}, checked, against the CPU"),
            got,
            &want,
            f32::to_bits,
        );
    }
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let side = b.sizes.user_2d;
    let mut rng = XorShift::new(side as u64);
    let mut next = || rng.next_u64();
    let dev = &b.dev;
    let mut rows = Vec::new();
    let sq = format!("{side}^2 f32");
    let cells = side * side;

    // The 2-D grid: heat, transpose, row sums.
    {
        let u_host = uk::small_ints(&mut next, cells);
        let u = dev.upload(&u_host)?;
        let cfg = config::heat_2d(side, side);
        let want = uk::cpu_heat_2d(&u_host, side, side, 0.25);
        let u_ = &u;
        let row = contest(
            b,
            "user heat_2d 18x18 tile",
            sq.clone(),
            cells,
            [
                Box::new(move |o| checked::heat_2d::launch(dev, cfg, o, u_, side, side, 0.25)),
                Box::new(move |o| unchecked::heat_2d::launch(dev, cfg, o, u_, side, side, 0.25)),
            ],
            against_cpu(b, format!("heat_2d {side}^2"), want),
        )?;
        rows.push(streaming(b, row, 8.0 * cells as f64));

        let cfg = config::transpose(side, side);
        let want = uk::cpu_transpose(&u_host, side, side);
        let row = contest(
            b,
            "user transpose 32x33",
            sq.clone(),
            cells,
            [
                Box::new(move |o| checked::transpose::launch(dev, cfg, o, u_, side, side)),
                Box::new(move |o| unchecked::transpose::launch(dev, cfg, o, u_, side, side)),
            ],
            against_cpu(b, format!("transpose {side}^2"), want),
        )?;
        rows.push(streaming(b, row, 8.0 * cells as f64));

        let cfg = config::warp_per_row(side);
        let want = uk::cpu_row_sums(&u_host, side, side);
        let row = contest(
            b,
            "user row_sums warp/row",
            sq.clone(),
            side,
            [
                Box::new(move |o| checked::row_sums::launch(dev, cfg, o, u_, side, side)),
                Box::new(move |o| unchecked::row_sums::launch(dev, cfg, o, u_, side, side)),
            ],
            against_cpu(b, format!("row_sums {side}^2"), want),
        )?;
        rows.push(streaming(b, row, 4.0 * cells as f64));
    }

    // The 3-D grid.
    {
        let n = b.sizes.user_3d;
        let len = n * n * n;
        let u_host = uk::small_ints(&mut next, len);
        let u = dev.upload(&u_host)?;
        let u_ = &u;
        let cfg = config::heat_3d(n, n, n);
        let want = uk::cpu_heat_3d(&u_host, n, n, n, 0.125);
        let row = contest(
            b,
            "user heat_3d 7-point",
            format!("{n}^3 f32"),
            len,
            [
                Box::new(move |o| checked::heat_3d::launch(dev, cfg, o, u_, n, n, n, 0.125)),
                Box::new(move |o| unchecked::heat_3d::launch(dev, cfg, o, u_, n, n, n, 0.125)),
            ],
            against_cpu(b, format!("heat_3d {n}^3"), want),
        )?;
        rows.push(streaming(b, row, 8.0 * len as f64));
    }

    // 1-D: gather and the convolution, over as many elements as the 2-D grid has cells.
    {
        let n = cells;
        let src_host = uk::small_ints(&mut next, n);
        let idx_host: Vec<u32> = (0..n).map(|_| (next() % n as u64) as u32).collect();
        let want = uk::cpu_gather(&src_host, &idx_host);
        let src = dev.upload(&src_host)?;
        let idx = dev.upload(&idx_host)?;
        let (src_, idx_) = (&src, &idx);
        let cfg = config::one_per_element(n);
        let row = contest(
            b,
            "user gather",
            format!("{n} f32"),
            n,
            [
                Box::new(move |o| checked::gather::launch(dev, cfg, o, src_, idx_, n)),
                Box::new(move |o| unchecked::gather::launch(dev, cfg, o, src_, idx_, n)),
            ],
            against_cpu(b, format!("gather {n}"), want),
        )?;
        rows.push(row.note("random reads"));

        let w_host: Vec<f32> = (0..2 * RADIUS + 1)
            .map(|_| (next() % 9) as f32 - 4.0)
            .collect();
        let want = uk::cpu_conv1d(&src_host, &w_host);
        let w = dev.upload(&w_host)?;
        let w_ = &w;
        let cfg = config::conv1d(n);
        let row = contest(
            b,
            "user conv1d_shared",
            format!("{n} f32"),
            n,
            [
                Box::new(move |o| checked::conv1d_shared::launch(dev, cfg, o, src_, w_, n)),
                Box::new(move |o| unchecked::conv1d_shared::launch(dev, cfg, o, src_, w_, n)),
            ],
            against_cpu(b, format!("conv1d {n}"), want),
        )?;
        let taps = format!("{} taps", 2 * RADIUS + 1);
        rows.push(streaming(b, row.note(taps), 8.0 * n as f64));
    }

    // CSR SpMV, square, ~16 nonzeros a row at random columns.
    {
        let n = 1usize << b.sizes.user_spmv_log2;
        let a = Csr::random(n, n, 16, &mut next);
        let x_host = uk::small_ints(&mut next, n);
        let want = a.spmv(&x_host);
        let row_ptr = dev.upload(&a.row_ptr)?;
        let col = dev.upload(&a.col)?;
        let val = dev.upload(&a.val)?;
        let x = dev.upload(&x_host)?;
        let (rp, c, v, x_) = (&row_ptr, &col, &val, &x);
        let nnz = a.col.len();
        let size = format!("2^{} rows", b.sizes.user_spmv_log2);
        let nnz_note = format!("{nnz} nonzeros");
        // Matrix and result streamed once; x's reads are random.
        let bytes = (8 * nnz + 4 * (n + 1) + 4 * n) as f64;
        let cfg = config::one_per_element(n);
        let row = contest(
            b,
            "user spmv thread/row",
            size.clone(),
            n,
            [
                Box::new(move |o| checked::spmv_csr_scalar::launch(dev, cfg, o, rp, c, v, x_, n)),
                Box::new(move |o| unchecked::spmv_csr_scalar::launch(dev, cfg, o, rp, c, v, x_, n)),
            ],
            against_cpu(b, "spmv_csr_scalar".into(), want.clone()),
        )?;
        rows.push(streaming(b, row.note(nnz_note.clone()), bytes));
        // The same product, the row's range written inline in the `for`.
        let row = contest(
            b,
            "user spmv inline range",
            size.clone(),
            n,
            [
                Box::new(move |o| checked::spmv_csr_inline::launch(dev, cfg, o, rp, c, v, x_, n)),
                Box::new(move |o| unchecked::spmv_csr_inline::launch(dev, cfg, o, rp, c, v, x_, n)),
            ],
            against_cpu(b, "spmv_csr_inline".into(), want.clone()),
        )?;
        rows.push(streaming(b, row.note(nnz_note.clone()), bytes));
        let cfg = config::warp_per_row(n);
        let row = contest(
            b,
            "user spmv warp/row",
            size,
            n,
            [
                Box::new(move |o| checked::spmv_csr_warp::launch(dev, cfg, o, rp, c, v, x_, n)),
                Box::new(move |o| unchecked::spmv_csr_warp::launch(dev, cfg, o, rp, c, v, x_, n)),
            ],
            against_cpu(b, "spmv_csr_warp".into(), want),
        )?;
        rows.push(streaming(b, row.note(nnz_note), bytes));
    }

    // Matmul, square; the CPU computes every 64th row and the last.
    {
        let n = b.sizes.matmul;
        let a_host = uk::small_ints(&mut next, n * n);
        let b_host = uk::small_ints(&mut next, n * n);
        let a = dev.upload(&a_host)?;
        let bm = dev.upload(&b_host)?;
        let (a_, b_) = (&a, &bm);
        let cfg: LaunchConfig = config::matmul(n, n);
        let check = |got: &[f32]| {
            for r in (0..n).step_by(64).chain([n - 1]) {
                let want: Vec<f32> = (0..n)
                    .map(|j| (0..n).fold(0.0f32, |s, p| s + a_host[r * n + p] * b_host[p * n + j]))
                    .collect();
                b.check(
                    &format!("matmul_32x8 {n}^2, checked, row {r} against the CPU"),
                    &got[r * n..(r + 1) * n],
                    &want,
                    f32::to_bits,
                );
            }
        };
        let row = contest(
            b,
            "user matmul 32x8, 4/thr",
            format!("{n}^2 f32"),
            n * n,
            [
                Box::new(move |o| checked::matmul_32x8::launch(dev, cfg, o, a_, b_, n, n, n)),
                Box::new(move |o| unchecked::matmul_32x8::launch(dev, cfg, o, a_, b_, n, n, n)),
            ],
            check,
        )?;
        let flops = 2.0 * (n as f64).powi(3);
        let ms = row.checked.unwrap_or(f64::NAN);
        rows.push(row.note(format!("{:.0} GFLOP/s", flops / (ms * 1e-3) / 1e9)));
    }
    Ok(rows)
}

/// The row with the bandwidth its checked kernel reached, moving `bytes` a run.
fn streaming(b: &Bench, row: Row, bytes: f64) -> Row {
    let ms = row.checked.unwrap_or(f64::NAN);
    let note = b.bandwidth_note(bytes, ms);
    row.note(note)
}
