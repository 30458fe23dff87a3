//! `warpspeed::algorithms::reduce::sum` of 2^28 f32 (issue 22): the library call with its
//! scratch given (`sum_into_with_scratch`, so no allocation is timed), the same two
//! launches of the `unchecked` kernels; peers torch.sum and cupy.sum (CUB). Integers in
//! [-8, 8] as floats: every partial sum is exact, so each contestant's result equals the
//! CPU's.

use warpspeed::algorithms::reduce::{self, launch_configs, partials_for};

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        (
            "checked",
            reduce::kernels::block_sums_float::kernel::<f32>(),
        ),
        (
            "unchecked",
            reduce::unchecked::block_sums_float::kernel::<f32>(),
        ),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 22);
    let host: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 17) as f32 - 8.0).collect();
    let want: f32 = host.iter().map(|&v| v as f64).sum::<f64>() as f32;
    let x = dev.upload(&host)?;
    drop(host);
    let mut outs = [dev.upload(&[f32::NAN])?, dev.upload(&[f32::NAN])?];
    let mut scratch = [
        dev.zeros::<f32>(partials_for(n))?,
        dev.zeros::<f32>(partials_for(n))?,
    ];
    let [first, second] = launch_configs(n);
    let ([oc, ou], [sc, su]) = (&mut outs, &mut scratch);
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(reduce::sum_into_with_scratch(dev, &x, oc, sc)?)),
        Box::new(|| {
            reduce::unchecked::block_sums_float::launch(dev, first, &x, su)?;
            Ok(reduce::unchecked::block_sums_float::launch(
                dev, second, &*su, ou,
            )?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (name, out) in [("checked", &outs[0]), ("unchecked", &outs[1])] {
        let got = out.download()?[0];
        if got != want {
            b.mismatch(format_args!(
                "reduce::sum 2^{log2} f32 ({name}): {got}, the CPU {want}"
            ));
        }
    }
    Ok(vec![Row::new(
        "reduce::sum (algorithms)",
        format!("2^{log2} f32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), None)
    .peers(b.peers(&format!("sum_2^{log2}_f32"), Unit::Ms))
    .note(b.bandwidth_note(4.0 * n as f64, t[0]))])
}
