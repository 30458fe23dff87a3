//! Timing the contestants of one row against each other: GPU time by CUDA events around
//! back-to-back runs, the best of several rounds, the rounds alternating between the
//! contestants so clock and thermal drift hit all of them alike.

use crate::{Bench, Res};

/// One run of a contestant: queues its launch(es) on the device's stream.
pub type Step<'a> = Box<dyn FnMut() -> Res<()> + 'a>;

/// Best GPU milliseconds per run of each step. Each step runs once untimed (loads its
/// kernel) and once timed; the fastest of those timed runs sets how many back-to-back runs
/// make one round take about `round_ms`; then `rounds` rounds, alternating. Every step runs
/// the same number of times (`2 + rounds * iters`), so contestants that carry state from
/// run to run (Life's lattices, the histograms' bins) end in comparable states.
pub fn best_ms(b: &Bench, steps: &mut [Step<'_>]) -> Res<Vec<f64>> {
    let (_, best) = best_ms_counted(b, steps)?;
    Ok(best)
}

/// [`best_ms`], and how many times each step ran.
pub fn best_ms_counted(b: &Bench, steps: &mut [Step<'_>]) -> Res<(usize, Vec<f64>)> {
    for step in steps.iter_mut() {
        step()?;
    }
    b.dev.synchronize()?;
    let mut one = f64::INFINITY;
    for step in steps.iter_mut() {
        one = one.min(common_time(b, 1, step)?);
    }
    let iters = ((b.sizes.round_ms / one.max(1e-6)) as usize).clamp(2, 10_000);
    let mut best = vec![f64::INFINITY; steps.len()];
    for _ in 0..b.sizes.rounds {
        for (step, best) in steps.iter_mut().zip(&mut best) {
            *best = best.min(common_time(b, iters, step)?);
        }
    }
    // Errors a kernel recorded on the device (a failed bounds check) surface here.
    b.dev.synchronize()?;
    Ok((2 + b.sizes.rounds * iters, best))
}

fn common_time(b: &Bench, iters: usize, step: &mut Step<'_>) -> Res<f64> {
    crate::common::time_events(&b.dev, iters, step)
}
