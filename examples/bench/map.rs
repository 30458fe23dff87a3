//! `warpspeed::algorithms::map!` (issue 22, Numba's `@vectorize`): `a * x + y` on 2^28 f32
//! with `a` a scalar (`map! { Saxpy = fn saxpy(a: f32; x: f32, y: f32) -> f32 }`), the
//! map's kernel and its `unchecked` twin; peers torch `torch.add(y, x, alpha=a)` and a
//! cupy ElementwiseKernel `a * x + y`. 12 bytes an element (two reads, one write). The
//! outputs are checked against the host calling the same device function, bit for bit.

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
    let [c, u] = Saxpy::kernels();
    vec![("checked", c), ("unchecked", u)]
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
    // Poisoned: an element no thread writes stays NaN and fails the comparison.
    let mut outs = [
        dev.upload(&vec![f32::NAN; n])?,
        dev.upload(&vec![f32::NAN; n])?,
    ];
    let t = {
        let [c, u] = &mut outs;
        let (x, y) = (&x, &y);
        let mut steps: Vec<Step> = vec![
            Box::new(move || Ok(Saxpy::map(dev, a, x, y, c)?)),
            Box::new(move || Ok(Saxpy::map_unchecked(dev, a, x, y, u)?)),
        ];
        best_ms(b, &mut steps)?
    };
    for (who, out) in ["checked", "unchecked"].iter().zip(&outs) {
        let got = out.download()?;
        // The host's products and sums round as the GPU's (warpspeed never fuses).
        if let Some(i) = (0..n).find(|&i| got[i].to_bits() != (a * hx[i] + hy[i]).to_bits()) {
            b.mismatch(format_args!(
                "map saxpy ({who}) at {i}: {}, the host {}",
                got[i],
                a * hx[i] + hy[i]
            ));
        }
    }
    Ok(vec![Row::new(
        "map! saxpy a*x+y (algorithms)",
        format!("2^{log2} f32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), None)
    .peers(b.peers(&format!("saxpy_2^{log2}_f32"), Unit::Ms))
    .note(b.bandwidth_note(12.0 * n as f64, t[0]))])
}
