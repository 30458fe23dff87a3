//! Checks proven at a loop's entry, and reads reported at its end (docs/bounds.md):
//! kernels that declare nothing and index through ranges read from memory (CSR rows).
//! Where the row's end is within the slices, the loop's fast copy runs without those
//! checks; a row that runs past a slice takes the checked copy and reports the index, on
//! the GPU as on the simulator (which checks every access). A read whose index is itself
//! data (`x[col[k]]`) stays checked, its report deferred to the loop's end.

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig};

const SOURCE: &str = include_str!("proven_at_loop_entry.rs");
const FILE: &str = "tests/proven_at_loop_entry.rs";

/// `y = A x`, `A` in CSR form, one thread per row.
#[gpu_kernel]
fn csr_rows(y: &mut [f32], row_ptr: &[u32], col: &[u32], val: &[f32], x: &[f32], rows: usize) {
    let row = grid_1d();
    if row < rows {
        let start = row_ptr[row] as usize;
        let end = row_ptr[row + 1] as usize;
        let mut s = 0.0f32;
        for k in start..end {
            s += val[k] * x[col[k] as usize]; // @csr_rows_step
        }
        y[row] = s;
    }
}

/// `csr_rows` with the range's ends written inline, as a user may write them: the ends
/// are read once, before the loop, into temporaries the prover names.
#[gpu_kernel]
fn csr_rows_inline(
    y: &mut [f32],
    row_ptr: &[u32],
    col: &[u32],
    val: &[f32],
    x: &[f32],
    rows: usize,
) {
    let row = grid_1d();
    if row < rows {
        let mut s = 0.0f32;
        for k in row_ptr[row] as usize..row_ptr[row + 1] as usize {
            s += val[k] * x[col[k] as usize]; // @csr_rows_inline_step
        }
        y[row] = s;
    }
}

/// Each row's segment of `a` copied into `out`, doubled: a loop that writes memory (its
/// checks proven at entry, none deferred).
#[gpu_kernel]
fn copy_rows(out: &mut [u32], a: &[u32], row_ptr: &[u32], rows: usize) {
    let row = grid_1d();
    if row < rows {
        let start = row_ptr[row] as usize;
        let end = row_ptr[row + 1] as usize;
        for k in start..end {
            out[k] = a[k] * 2; // @copy_rows_step
        }
    }
}

/// The first position in each row whose value is `target`, or `u32::MAX`: a loop left by
/// `break`, its reads deferred.
#[gpu_kernel]
fn find_in_rows(pos: &mut [u32], row_ptr: &[u32], val: &[u32], rows: usize, target: u32) {
    let row = grid_1d();
    if row < rows {
        let start = row_ptr[row] as usize;
        let end = row_ptr[row + 1] as usize;
        let mut found = u32::MAX;
        for k in start..end {
            if val[k] == target {
                found = k as u32;
                break;
            }
        }
        pos[row] = found;
    }
}

/// A CSR matrix of `rows` rows with 0 to 8 nonzeros each, columns below `cols`.
struct Csr {
    row_ptr: Vec<u32>,
    col: Vec<u32>,
    val: Vec<f32>,
}

fn random_csr(rng: &mut Rng, rows: usize, cols: usize) -> Csr {
    let mut csr = Csr {
        row_ptr: vec![0],
        col: Vec::new(),
        val: Vec::new(),
    };
    for _ in 0..rows {
        for _ in 0..rng.next_u32() % 9 {
            csr.col.push(rng.next_u32() % cols as u32);
            csr.val.push((rng.next_u32() % 9) as f32 - 4.0);
        }
        csr.row_ptr.push(csr.col.len() as u32);
    }
    csr
}

fn cpu_rows(csr: &Csr, x: &[f32]) -> Vec<f32> {
    csr.row_ptr
        .windows(2)
        .map(|w| {
            (w[0] as usize..w[1] as usize)
                .fold(0.0f32, |s, k| s + csr.val[k] * x[csr.col[k] as usize])
        })
        .collect()
}

fn one_per_row(rows: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(rows as u32)
}

fn expect_oob(
    dev: &Device,
    r: Result<(), Error>,
    kernel: &str,
    marker: &str,
    index: u64,
    len: u64,
) {
    common::expect_oob_marked(dev, r, kernel, (FILE, SOURCE), marker, index, len);
}

/// Runs `csr_rows` (or `csr_rows_inline`) on `csr` and `x`, its output poisoned first.
fn spmv(dev: &Device, csr: &Csr, x: &[f32], inline: bool) -> (Result<(), Error>, Vec<f32>) {
    let rows = csr.row_ptr.len() - 1;
    let (rp, col, val) = (
        dev.upload(&csr.row_ptr).unwrap(),
        dev.upload(&csr.col).unwrap(),
        dev.upload(&csr.val).unwrap(),
    );
    let x = dev.upload(x).unwrap();
    let mut y = dev.upload(&vec![f32::NAN; rows]).unwrap();
    let cfg = one_per_row(rows);
    let r = if inline {
        csr_rows_inline::launch(dev, cfg, &mut y, &rp, &col, &val, &x, rows)
    } else {
        csr_rows::launch(dev, cfg, &mut y, &rp, &col, &val, &x, rows)
    }
    .and_then(|()| dev.synchronize());
    let got = match &r {
        Ok(()) => y.download().unwrap(),
        Err(_) => Vec::new(),
    };
    (r, got)
}

#[test]
fn the_loops_are_written_twice_and_their_gathers_deferred() {
    // The kernel's own C, after the prelude (which defines the helpers named).
    let body = |src: &'static str| src.rsplit("__global__").next().unwrap_or_default();
    for c in [&csr_rows::KERNEL, &csr_rows_inline::KERNEL].map(|k| body(k.source.as_str())) {
        // The fast copy's test at the loop's entry, and the deferred report of `x[col[k]]`.
        assert!(c.contains("ws_ge_sat("), "{c}");
        assert!(c.contains("ws_ld_d("), "{c}");
        assert!(c.contains("ws_defer_flush("), "{c}");
    }
    // A loop that writes memory is versioned, and reports at once.
    let c = body(copy_rows::KERNEL.source.as_str());
    assert!(c.contains("ws_ge_sat(") && !c.contains("ws_ld_d("), "{c}");
    common::nvrtc_compiles(&[
        ("csr_rows", &csr_rows::KERNEL),
        ("csr_rows_inline", &csr_rows_inline::KERNEL),
        ("copy_rows", &copy_rows::KERNEL),
        ("find_in_rows", &find_in_rows::KERNEL),
    ]);
}

#[test]
fn rows_within_the_slices_compute_what_the_cpu_does() {
    for dev in devices("loop_entry_agree") {
        let mut rng = Rng::new(11);
        for (rows, cols) in [(1000usize, 700usize), (1, 1), (257, 3000)] {
            let csr = random_csr(&mut rng, rows, cols);
            let x: Vec<f32> = (0..cols).map(|_| (rng.next_u32() % 7) as f32).collect();
            for inline in [false, true] {
                let (r, got) = spmv(&dev, &csr, &x, inline);
                r.unwrap();
                assert_eq!(
                    got,
                    cpu_rows(&csr, &x),
                    "{rows} rows, inline {inline}, on {:?}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn a_row_past_val_reports_its_index() {
    for dev in devices("loop_entry_past_val") {
        let mut rng = Rng::new(12);
        let mut csr = random_csr(&mut rng, 500, 100);
        // The last row keeps its end; `val` loses its last element. Only that row's last
        // step reads past it.
        csr.row_ptr[500] = csr.row_ptr[499] + 3;
        csr.col.truncate(csr.row_ptr[500] as usize);
        csr.val.truncate(csr.row_ptr[500] as usize - 1);
        let x = vec![1.0f32; 100];
        let len = csr.val.len() as u64;
        let (r, _) = spmv(&dev, &csr, &x, false);
        expect_oob(&dev, r, "csr_rows", "csr_rows_step", len, len);
        let (r, _) = spmv(&dev, &csr, &x, true);
        let marker = "csr_rows_inline_step";
        expect_oob(&dev, r, "csr_rows_inline", marker, len, len);
    }
}

#[test]
fn a_column_past_x_reports_its_index() {
    for dev in devices("loop_entry_past_x") {
        let mut rng = Rng::new(13);
        let mut csr = random_csr(&mut rng, 500, 100);
        // One nonzero of one row names column 100 of a 100-element x: the row's indexes
        // are in bounds (its fast copy runs), the gather's check reports.
        let row = (250..500)
            .find(|&r| csr.row_ptr[r + 1] > csr.row_ptr[r])
            .unwrap();
        csr.col[csr.row_ptr[row] as usize] = 100;
        let x = vec![1.0f32; 100];
        let (r, _) = spmv(&dev, &csr, &x, false);
        expect_oob(&dev, r, "csr_rows", "csr_rows_step", 100, 100);
    }
}

#[test]
fn a_loop_that_writes_checks_each_row_that_runs_past() {
    for dev in devices("loop_entry_writes") {
        let rows = 300usize;
        let row_ptr: Vec<u32> = (0..=rows as u32).map(|r| r * 5).collect();
        let host: Vec<u32> = (0..rows as u32 * 5).collect();
        let a = dev.upload(&host).unwrap();
        let rp = dev.upload(&row_ptr).unwrap();
        // Every row within `out`: all written.
        let mut out = dev.upload(&vec![u32::MAX; rows * 5]).unwrap();
        copy_rows::launch(&dev, one_per_row(rows), &mut out, &a, &rp, rows).unwrap();
        let want: Vec<u32> = host.iter().map(|v| v * 2).collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
        // `out` one short: the last row's last element is reported, the others written.
        let mut out = dev.upload(&vec![u32::MAX; rows * 5 - 1]).unwrap();
        let r = copy_rows::launch(&dev, one_per_row(rows), &mut out, &a, &rp, rows);
        let len = (rows * 5 - 1) as u64;
        expect_oob(&dev, r, "copy_rows", "copy_rows_step", len, len);
        assert_eq!(
            out.download().unwrap(),
            want[..rows * 5 - 1],
            "{:?}",
            dev.backend()
        );
    }
}

#[test]
fn a_loop_left_by_break_finds_what_the_cpu_finds() {
    for dev in devices("loop_entry_break") {
        let mut rng = Rng::new(14);
        let rows = 700usize;
        let mut row_ptr = vec![0u32];
        for _ in 0..rows {
            row_ptr.push(row_ptr.last().unwrap() + rng.next_u32() % 12);
        }
        let val: Vec<u32> = (0..*row_ptr.last().unwrap())
            .map(|_| rng.next_u32() % 6)
            .collect();
        let want: Vec<u32> = row_ptr
            .windows(2)
            .map(|w| {
                (w[0]..w[1])
                    .find(|&k| val[k as usize] == 5)
                    .unwrap_or(u32::MAX)
            })
            .collect();
        let (rp, v) = (dev.upload(&row_ptr).unwrap(), dev.upload(&val).unwrap());
        let mut pos = dev.upload(&vec![7u32; rows]).unwrap();
        find_in_rows::launch(&dev, one_per_row(rows), &mut pos, &rp, &v, rows, 5).unwrap();
        assert_eq!(pos.download().unwrap(), want, "{:?}", dev.backend());
    }
}
