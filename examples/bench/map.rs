//! `warpspeed::algorithms::map!` (issue 22, Numba's `@vectorize`): `a * x + y` on 2^28 f32
//! with `a` a scalar (`map! { Saxpy = fn saxpy(a: f32; x: f32, y: f32) -> f32 }`), the
//! map's kernel and its `unchecked` twin; peers torch `torch.add(y, x, alpha=a)` and a
//! cupy ElementwiseKernel `a * x + y`. 12 bytes an element (two reads, one write). Two
//! rows: whole buffers (aligned: the vector path, one 16-byte load per input and one
//! 16-byte store a thread) and views at offset 1 (2^28 - 1 elements, misaligned: the
//! grid-stride path), each beside the peers on the same views. The outputs are checked
//! against the host calling the same device function, bit for bit, and the path each row
//! takes is checked too.

use warpspeed::algorithms::map;
use warpspeed::prelude::*;

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// The mapped function.
#[gpu_device]
fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a * x + y
}

warpspeed::algorithms::map! {
    /// `a * x + y` with `a` shared by every element.
    pub struct Saxpy = fn saxpy(a: f32; x: f32, y: f32) -> f32;
}

pub fn kernels() -> Vec<Kernel> {
    let [gc, gu, vc, vu] = Saxpy::kernels();
    vec![
        ("vector checked", vc),
        ("vector unchecked", vu),
        ("grid-stride checked", gc),
        ("grid-stride unchecked", gu),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.vector_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let a = 1.5f32;
    let mut rng = XorShift::new(n as u64 + 5);
    let hx: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let hy: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let (x, y) = (dev.upload(&hx)?, dev.upload(&hy)?);
    let mut rows = Vec::new();
    // Offset 0: whole buffers, the vector path; offset 1: views of every buffer from
    // element 1, the grid-stride path.
    for (off, path, label, key) in [
        (
            0usize,
            map::Path::Vector,
            format!("2^{log2} f32"),
            format!("saxpy_2^{log2}_f32"),
        ),
        (
            1,
            map::Path::GridStride,
            format!("2^{log2}-1 f32, views at offset 1"),
            format!("saxpy_2^{log2}_f32_offset1"),
        ),
    ] {
        // Poisoned: an element no thread writes stays NaN and fails the comparison.
        let mut outs = [
            dev.upload(&vec![f32::NAN; n])?,
            dev.upload(&vec![f32::NAN; n])?,
        ];
        let (vx, vy) = (x.slice(off..), y.slice(off..));
        if Saxpy::path(&vx, &vy, &outs[0].slice(off..)) != path {
            b.mismatch(format_args!(
                "map saxpy at offset {off}: not the {path:?} path"
            ));
        }
        let t = {
            let [c, u] = &mut outs;
            let (vx, vy) = (&vx, &vy);
            let mut steps: Vec<Step> = vec![
                Box::new(move || Ok(Saxpy::map(dev, a, vx, vy, &mut c.slice_mut(off..))?)),
                Box::new(move || {
                    Ok(Saxpy::map_unchecked(
                        dev,
                        a,
                        vx,
                        vy,
                        &mut u.slice_mut(off..),
                    )?)
                }),
            ];
            best_ms(b, &mut steps)?
        };
        for (who, out) in ["checked", "unchecked"].iter().zip(&outs) {
            let got = out.download()?;
            // The host's products and sums round as the GPU's (warpspeed never fuses).
            if let Some(i) = (off..n).find(|&i| got[i].to_bits() != (a * hx[i] + hy[i]).to_bits()) {
                b.mismatch(format_args!(
                    "map saxpy ({who}, offset {off}) at {i}: {}, the host {}",
                    got[i],
                    a * hx[i] + hy[i]
                ));
            }
        }
        rows.push(
            Row::new(
                format!("map! saxpy a*x+y (algorithms, {path:?} path)"),
                label,
                Unit::Ms,
            )
            .times(t[0], Some(t[1]), None)
            .peers(b.peers(&key, Unit::Ms))
            .note(b.bandwidth_note(12.0 * (n - off) as f64, t[0])),
        );
    }
    Ok(rows)
}
