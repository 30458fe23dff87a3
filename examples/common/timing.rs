//! Timing: GPU time by CUDA events around back-to-back calls, and wall-clock time of
//! launches up to the synchronize that waits for them (the only clock the simulator has).

use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use warpspeed::{Device, DeviceBuffer, Error, KernelScalar};

/// GPU milliseconds per call of `step`, over `iters` back-to-back calls, by CUDA events
/// recorded on the device's stream before the first call and after the last.
pub fn time_events<E: From<Error>>(
    dev: &Device,
    iters: usize,
    mut step: impl FnMut() -> Result<(), E>,
) -> Result<f64, E> {
    let stream = dev
        .cuda_stream()
        .expect("timing with CUDA events needs a GPU");
    let driver = |e| Error::Driver {
        kernel: None,
        what: "timing with CUDA events".into(),
        source: e,
    };
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream.record_event(flags).map_err(driver)?;
    for _ in 0..iters {
        step()?;
    }
    let end = stream.record_event(flags).map_err(driver)?;
    let ms = start.elapsed_ms(&end).map_err(driver)?;
    Ok(f64::from(ms) / iters as f64)
}

/// GPU milliseconds per call of `step`, by CUDA events around back-to-back calls (enough
/// of them to take about 0.3 s, from a first timed call after a warm-up).
pub fn time_gpu(dev: &Device, mut step: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    let mut timed = |reps: usize| -> Result<f64, Error> {
        let ms = time_events(dev, reps, &mut step)?;
        dev.synchronize()?;
        Ok(ms)
    };
    timed(1)?; // warm-up
    let one = timed(1)?;
    let reps = ((300.0 / one.max(1e-3)) as usize).clamp(3, 1000);
    timed(reps)
}

/// Wall-clock seconds per call of `launch`, over `reps` back-to-back calls and the
/// synchronize that waits for the last.
pub fn wall_seconds(
    dev: &Device,
    reps: usize,
    mut launch: impl FnMut() -> Result<(), Error>,
) -> Result<f64, Error> {
    let start = Instant::now();
    for _ in 0..reps {
        launch()?;
    }
    dev.synchronize()?;
    Ok(start.elapsed().as_secs_f64() / reps as f64)
}

/// Times a kernel writing `out` by the wall clock: on a GPU one launch first, outside the
/// timing (NVRTC compiles and loads the kernel there); then `out` is poisoned and `reps`
/// launches are timed ([`wall_seconds`]). Returns the seconds per launch and `out`.
pub fn time_launches<T: KernelScalar>(
    dev: &Device,
    out: &mut DeviceBuffer<T>,
    poison: &[T],
    reps: usize,
    mut launch: impl FnMut(&mut DeviceBuffer<T>) -> Result<(), Error>,
) -> Result<(f64, Vec<T>), Error> {
    if dev.backend() == warpspeed::Backend::Cuda {
        launch(out)?; // warm-up
        dev.synchronize()?;
    }
    out.copy_from_host(poison)?;
    let per_launch = wall_seconds(dev, reps, || launch(out))?;
    Ok((per_launch, out.download()?))
}
