//! Bit-packed Life (examples/kernels/life_bits.rs), rows of the `life` group: `conway_bits`
//! checked, unchecked and its hand-written twin (`cuda/life_bits.cu`), 8 generations per
//! launch (`--life-bits-per-launch`), at the `--life-bits-sizes` (16384^2 and 65536^2).
//!
//! Each contestant steps its own packed lattice (a quarter alive), ping-ponging between two
//! buffers, the second poisoned at first. After the first launch every lattice is compared
//! with the packed CPU reference; after the timed rounds (the same number of launches
//! each) with each other's. Times are per generation (a launch's time over its
//! generations), with the cell updates per second beside them.

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::DeviceBuffer;

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::life_bits_kernels::{
    checked, config, cpu_run_packed, launch, unchecked, Form, MAX_GENERATIONS,
};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// A word no launch writes.
const POISON: u64 = 0xdead_beef_dead_beef;

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::conway_bits::KERNEL),
        ("unchecked", &unchecked::conway_bits::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    b.sizes.life_bits.iter().map(|&n| row(b, n)).collect()
}

/// A random packed lattice of side `n` (`n / 64` words a row), each cell alive with
/// probability 1/4.
fn lattice(n: usize) -> Vec<u64> {
    let mut rng = XorShift::new(n as u64 ^ 0xb175);
    (0..n * n / 64)
        .map(|_| rng.next_u64() & rng.next_u64())
        .collect()
}

/// One contestant's lattice and its second buffer (poisoned at first).
struct Pair {
    cur: DeviceBuffer<u64>,
    next: DeviceBuffer<u64>,
}

/// The contestants: the kernel in one of its forms, or the hand-written twin.
#[derive(Clone, Copy)]
enum Contestant<'a> {
    Ws(Form),
    Hand(&'a CudaFunction),
}

/// One launch per pair (`--life-bits-per-launch` generations from `cur` into `next`), then
/// the swap.
fn steps<'a>(
    b: &'a Bench,
    contestants: &'a [Contestant<'a>],
    pairs: &'a mut [Pair],
    n: usize,
) -> Vec<Step<'a>> {
    let words = n / 64;
    let gens = b.sizes.life_bits_per_launch;
    contestants
        .iter()
        .zip(pairs)
        .map(|(&c, p)| -> Step<'a> {
            Box::new(move || {
                match c {
                    Contestant::Ws(form) => {
                        launch(&b.dev, form, &mut p.next, &p.cur, n, n / 64, gens)?
                    }
                    Contestant::Hand(f) => {
                        let (rows, w) = (n as u32, words as u32);
                        let mut l = b.stream.launch_builder(f);
                        l.arg(raw(&p.next))
                            .arg(raw(&p.cur))
                            .arg(&rows)
                            .arg(&w)
                            .arg(&gens);
                        // SAFETY: life_bits(u64* out, const u64* cells, unsigned rows,
                        // unsigned words, unsigned generations): two distinct live buffers
                        // of rows * words u64 on this context, launched with conway_bits's
                        // own configuration (blocks of 32x8 threads), whose indexes stay
                        // below rows * words (each is y * words + x, y % rows, x % words).
                        unsafe { l.launch(cfg(config(n, words, gens))) }?;
                    }
                }
                std::mem::swap(&mut p.cur, &mut p.next);
                Ok(())
            })
        })
        .collect()
}

/// `conway_bits` at side `n`: checked, unchecked, by hand.
fn row(b: &Bench, n: usize) -> Res<Row> {
    if !n.is_multiple_of(64) {
        return Err(
            format!("bit-packed Life needs a side that is a multiple of 64, not {n}").into(),
        );
    }
    let words = n / 64;
    let gens = b.sizes.life_bits_per_launch;
    if !(1..=MAX_GENERATIONS).contains(&gens) {
        return Err(
            format!("--life-bits-per-launch must be 1..={MAX_GENERATIONS}, not {gens}").into(),
        );
    }
    let f = b.hand.function("life_bits.cu", "life_bits")?;
    let contestants = [
        Contestant::Ws(Form::Checked),
        Contestant::Ws(Form::Unchecked),
        Contestant::Hand(&f),
    ];
    let host = lattice(n);
    let poison = vec![POISON; host.len()];
    let mut pairs: Vec<Pair> = contestants
        .iter()
        .map(|_| -> Res<Pair> {
            Ok(Pair {
                cur: b.dev.upload(&host)?,
                next: b.dev.upload(&poison)?,
            })
        })
        .collect::<Res<_>>()?;
    for step in steps(b, &contestants, &mut pairs, n).iter_mut() {
        step()?;
    }
    let want = cpu_run_packed(&host, n, words, gens as usize);
    for (i, p) in pairs.iter().enumerate() {
        b.check(
            &format!("life conway_bits {n}^2, contestant {i}, generation {gens}, against the CPU"),
            &p.cur.download()?,
            &want,
            |v| v,
        );
    }
    let t = best_ms(b, &mut steps(b, &contestants, &mut pairs, n))?;
    let first = pairs[0].cur.download()?;
    for (i, p) in pairs.iter().enumerate().skip(1) {
        b.check(
            &format!("life conway_bits {n}^2, contestant {i} against the checked kernel, after the rounds"),
            &p.cur.download()?,
            &first,
            |v| v,
        );
    }
    let per_gen = |ms: f64| ms / f64::from(gens);
    let rate = (n * n) as f64 / (per_gen(t[0]) * 1e-3);
    Ok(
        Row::new("life conway_bits", format!("{n}^2, per gen"), Unit::Ms)
            .times(per_gen(t[0]), Some(per_gen(t[1])), Some(per_gen(t[2])))
            .note(format!("{rate:.2e} cell updates/s; {gens} gens/launch")),
    )
}
