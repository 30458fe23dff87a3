//! Launch overhead: an empty `#[gpu_kernel]` launched many times through its typed
//! `launch` against a raw cudarc launch (`launch_builder`) of an empty hand-written kernel;
//! peers CuPy (`RawKernel`) and Triton (an empty `@triton.jit`). Host microseconds per
//! launch, best of several rounds: enqueue only, and enqueue + wait for the GPU.

use std::time::Instant;

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

use crate::hand::cfg;
use crate::table::{Row, Unit, RAW_TARGET};
use crate::{Bench, Kernel, Res};

/// Does nothing: what remains is the cost of launching.
#[gpu_kernel]
fn empty() {}

pub fn kernels() -> Vec<Kernel> {
    vec![("checked", &empty::KERNEL)]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let dev = &b.dev;
    let config = LaunchConfig::new(1, 32);
    let f = b.hand.function("vector_add.cu", "empty_hand")?;
    let ws = || -> Res<()> { Ok(empty::launch(dev, config)?) };
    let raw = || -> Res<()> {
        // SAFETY: empty_hand() takes no parameters and touches no memory.
        unsafe { b.stream.launch_builder(&f).launch(cfg(config)) }?;
        Ok(())
    };
    // Host microseconds per launch: (enqueue only, enqueue + wait for the GPU).
    let measure = |launch: &dyn Fn() -> Res<()>, count: usize| -> Res<(f64, f64)> {
        dev.synchronize()?;
        let start = Instant::now();
        for _ in 0..count {
            launch()?;
        }
        let enqueued = start.elapsed();
        dev.synchronize()?;
        let done = start.elapsed();
        let per = |t: std::time::Duration| t.as_secs_f64() * 1e6 / count as f64;
        Ok((per(enqueued), per(done)))
    };
    measure(&ws, 1000)?; // warm-up: loads the kernel, fills the driver's pools
    measure(&raw, 1000)?;
    let launches = b.sizes.launches;
    let inf = (f64::INFINITY, f64::INFINITY);
    let (mut w, mut r) = (inf, inf);
    for _ in 0..b.sizes.rounds {
        let (a, c) = (measure(&ws, launches)?, measure(&raw, launches)?);
        w = (w.0.min(a.0), w.1.min(a.1));
        r = (r.0.min(c.0), r.1.min(c.1));
    }
    let size = format!("{launches} launches");
    let row = |what: &str, ws: f64, raw: f64| Row {
        hand_target: RAW_TARGET,
        ..Row::new(what, &size, Unit::Us).times(ws, None, Some(raw))
    };
    Ok(vec![
        row("empty launch + wait", w.1, r.1)
            .peers(b.peers("empty_launch", Unit::Us))
            .note("hand = raw cudarc launch"),
        row("empty launch, enqueue", w.0, r.0).note("host time only"),
    ])
}
