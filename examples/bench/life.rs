//! Life, the kernels of examples/kernels/life.rs: naive (one generation per launch,
//! global memory; also without `#[len]` declarations, and the seed's own int32 kernel as a
//! peer), tiled (shared-memory tile and halo), texture (`life_texture.rs`), and the
//! one-block kernels that run every generation of a 32x32 lattice in one launch (global
//! memory, shared memory), and bit-packed Life (`life_bits.rs`). Seed 003's comparison
//! comes first: naive, tiled and texture at its 500^2.
//!
//! Each contestant steps its own lattice. After the first launch every lattice is compared
//! with the CPU's; after the timed rounds (the same number of launches each) with each
//! other's. The second buffer of each ping-pong pair starts poisoned (-1), so a cell no
//! thread writes shows.

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::life_kernels::{checked, conway_undeclared, cpu_run, unchecked};
use crate::table::{Peer, Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::conway::KERNEL),
        ("checked, no #[len]", &conway_undeclared::KERNEL),
        ("unchecked", &unchecked::conway::KERNEL),
        ("checked", &checked::conway_tiled::KERNEL),
        ("unchecked", &unchecked::conway_tiled::KERNEL),
        ("checked", &checked::conway_block::KERNEL),
        ("unchecked", &unchecked::conway_block::KERNEL),
        ("checked", &checked::conway_block_shared::KERNEL),
        ("unchecked", &unchecked::conway_block_shared::KERNEL),
        ("checked", &checked::conway_texture::KERNEL),
        ("unchecked", &unchecked::conway_texture::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    // Seed 003: 500^2, naive (global memory), tiled (shared memory), texture.
    for &n in std::iter::once(&SEED_003_SIDE).chain(&b.sizes.life) {
        rows.extend(naive(b, n)?);
        rows.push(tiled(b, n)?);
        rows.push(crate::life_texture::row(b, n, &lattice(n))?);
    }
    rows.extend(crate::life_bits::rows(b)?);
    rows.push(in_one_block(b, false)?);
    rows.push(in_one_block(b, true)?);
    Ok(rows)
}

/// Seed 003's lattice side (MATLAB's MEX Life: 0.055 ms per generation with shared
/// memory, 0.025 with texture memory, on its GPU).
const SEED_003_SIDE: usize = 500;

/// A random lattice of side `n`, a quarter alive.
fn lattice(n: usize) -> Vec<i32> {
    let mut rng = XorShift::new(n as u64);
    (0..n * n)
        .map(|_| i32::from(rng.next_u64() >> 62 == 0))
        .collect()
}

/// One contestant's lattice and its second buffer (poisoned at first).
struct Pair {
    cur: DeviceBuffer<i32>,
    next: DeviceBuffer<i32>,
}

impl Pair {
    fn new(b: &Bench, init: &DeviceBuffer<i32>) -> Res<Pair> {
        let mut next = b.dev.copy(init)?;
        next.copy_from_host(&vec![-1; init.len()])?;
        Ok(Pair {
            cur: b.dev.copy(init)?,
            next,
        })
    }

    fn pairs(b: &Bench, init: &DeviceBuffer<i32>, count: usize) -> Res<Vec<Pair>> {
        (0..count).map(|_| Pair::new(b, init)).collect()
    }
}

/// A warpspeed one-generation kernel's `launch(dev, cfg, out, in, n)`.
type WsLaunch = fn(
    &warpspeed::Device,
    LaunchConfig,
    &mut DeviceBuffer<i32>,
    &DeviceBuffer<i32>,
    usize,
) -> warpspeed::Result<()>;

/// A one-generation kernel: warpspeed's, or a hand-written
/// `f(int* out, const int* in[, unsigned long long n])` (with `n` when the flag says so).
enum Generation<'a> {
    Ws(WsLaunch),
    Hand(&'a CudaFunction, bool),
}

/// One step per pair: launch the contestant's kernel from `cur` into `next`, then swap.
fn generation_steps<'a>(
    b: &'a Bench,
    kernels: &'a [Generation<'a>],
    pairs: &'a mut [Pair],
    config: LaunchConfig,
    n: usize,
) -> Vec<Step<'a>> {
    kernels
        .iter()
        .zip(pairs)
        .map(|(kernel, p)| -> Step<'a> {
            Box::new(move || {
                match *kernel {
                    Generation::Ws(launch) => launch(&b.dev, config, &mut p.next, &p.cur, n)?,
                    Generation::Hand(f, with_n) => {
                        let n64 = n as u64;
                        let mut l = b.stream.launch_builder(f);
                        l.arg(raw(&p.next)).arg(raw(&p.cur));
                        if with_n {
                            l.arg(&n64);
                        }
                        // SAFETY: life_naive/life_tiled(int* out, const int* in, unsigned
                        // long long n) and the seed's conway_ker(int* out, int* in): two
                        // distinct live buffers of n*n i32 on this context; the grid covers
                        // the lattice in 32x32 blocks and the kernels stay inside it (the
                        // seed's takes the side from the grid: run only when n % 32 == 0).
                        unsafe { l.launch(cfg(config)) }?;
                    }
                }
                std::mem::swap(&mut p.cur, &mut p.next);
                Ok(())
            })
        })
        .collect()
}

/// Runs `kernels` (one pair each) for one generation and checks each lattice against the
/// CPU's, then times them; returns the best ms per generation of each.
fn contest(b: &Bench, what: &str, n: usize, kernels: &[Generation<'_>]) -> Res<Vec<f64>> {
    let host = lattice(n);
    let init = b.dev.upload(&host)?;
    let blocks = u32::try_from(n.div_ceil(32))?;
    let config = LaunchConfig::new((blocks, blocks), (32, 32));
    let mut pairs = Pair::pairs(b, &init, kernels.len())?;
    for step in generation_steps(b, kernels, &mut pairs, config, n).iter_mut() {
        step()?;
    }
    let want = cpu_run(&host, n, 1);
    for (i, p) in pairs.iter().enumerate() {
        b.check(
            &format!("{what} {n}^2, contestant {i}, generation 1, against the CPU"),
            &p.cur.download()?,
            &want,
            |v| v,
        );
    }
    let t = best_ms(b, &mut generation_steps(b, kernels, &mut pairs, config, n))?;
    let first = pairs[0].cur.download()?;
    for (i, p) in pairs.iter().enumerate().skip(1) {
        b.check(
            &format!("{what} {n}^2, contestant {i} against the checked kernel, after the rounds"),
            &p.cur.download()?,
            &first,
            |v| v,
        );
    }
    Ok(t)
}

fn gcells(n: usize, ms: f64) -> String {
    format!("{:.0} Gcell/s", (n * n) as f64 / (ms * 1e-3) / 1e9)
}

/// The naive kernel: checked (lengths declared), unchecked, by hand, checked without
/// `#[len]`, and the seed's int32 kernel (a peer; its lattice side must be a multiple of 32).
fn naive(b: &Bench, n: usize) -> Res<Vec<Row>> {
    let f = b.hand.function("life.cu", "life_naive")?;
    let seed = b.hand.function("life.cu", "conway_ker")?;
    let mut kernels = vec![
        Generation::Ws(|d, c, o, i, n| checked::conway::launch(d, c, o, i, n as u32)),
        Generation::Ws(|d, c, o, i, n| unchecked::conway::launch(d, c, o, i, n as u32)),
        Generation::Hand(&f, true),
        Generation::Ws(|d, c, o, i, n| conway_undeclared::launch(d, c, o, i, n as u32)),
    ];
    let seed_fits = n.is_multiple_of(32);
    if seed_fits {
        kernels.push(Generation::Hand(&seed, false));
    }
    let t = contest(b, "life naive", n, &kernels)?;
    let seed_peer = Peer {
        name: "seed C int32".into(),
        value: t
            .get(4)
            .copied()
            .ok_or_else(|| "the side must be a multiple of 32".to_string()),
    };
    let size = format!("{n}^2, per gen");
    Ok(vec![
        Row::new("life conway (naive)", &size, Unit::Ms)
            .times(t[0], Some(t[1]), Some(t[2]))
            .peers(vec![seed_peer])
            .note(gcells(n, t[0])),
        Row::new("  same, without #[len]", &size, Unit::Ms)
            .times(t[3], Some(t[1]), Some(t[2]))
            .note("every index checked"),
    ])
}

/// The tiled kernel: checked, unchecked, by hand.
fn tiled(b: &Bench, n: usize) -> Res<Row> {
    let f = b.hand.function("life.cu", "life_tiled")?;
    let kernels = [
        Generation::Ws(checked::conway_tiled::launch),
        Generation::Ws(unchecked::conway_tiled::launch),
        Generation::Hand(&f, true),
    ];
    let t = contest(b, "life tiled", n, &kernels)?;
    Ok(
        Row::new("life conway_tiled", format!("{n}^2, per gen"), Unit::Ms)
            .times(t[0], Some(t[1]), Some(t[2]))
            .note(gcells(n, t[0])),
    )
}

/// The one-block kernels (global or shared memory): a 32x32 lattice in one block of 32x32
/// threads, `block_generations` generations per launch, in place.
fn in_one_block(b: &Bench, shared: bool) -> Res<Row> {
    let n = 32;
    let gens = b.sizes.block_generations;
    let dev = &b.dev;
    let host = lattice(n);
    let (name, hand_name) = if shared {
        ("life conway_block_shared", "life_block_shared")
    } else {
        ("life conway_block", "life_block")
    };
    let f = b.hand.function("life.cu", hand_name)?;
    let mut cells: Vec<DeviceBuffer<i32>> = (0..3)
        .map(|_| dev.upload(&host))
        .collect::<Result<_, _>>()?;
    for step in block_steps(b, &f, &mut cells, shared, gens).iter_mut() {
        step()?;
    }
    let want = cpu_run(&host, n, gens as usize);
    for (i, c) in cells.iter().enumerate() {
        b.check(
            &format!("{name}, contestant {i}, {gens} generations, against the CPU"),
            &c.download()?,
            &want,
            |v| v,
        );
    }
    let t = best_ms(b, &mut block_steps(b, &f, &mut cells, shared, gens))?;
    let first = cells[0].download()?;
    for (i, c) in cells.iter().enumerate().skip(1) {
        b.check(
            &format!("{name}, contestant {i} against the checked kernel, after the rounds"),
            &c.download()?,
            &first,
            |v| v,
        );
    }
    // Per generation, in ns: the launch's time over its generations.
    let per_gen = |ms: f64| ms * 1e6 / f64::from(gens);
    Ok(Row::new(name, "32^2, per gen", Unit::Ns).times(
        per_gen(t[0]),
        Some(per_gen(t[1])),
        Some(per_gen(t[2])),
    ))
}

/// The three contestants of a one-block kernel, each stepping its own lattice `gens`
/// generations per launch.
fn block_steps<'a>(
    b: &'a Bench,
    f: &'a CudaFunction,
    cells: &'a mut [DeviceBuffer<i32>],
    shared: bool,
    gens: u32,
) -> Vec<Step<'a>> {
    let n = 32;
    let config = LaunchConfig::new(1, (32, 32));
    let [c, u, h] = cells else {
        unreachable!("three contestants")
    };
    vec![
        Box::new(move || {
            if shared {
                checked::conway_block_shared::launch(&b.dev, config, c, n, gens)?;
            } else {
                checked::conway_block::launch(&b.dev, config, c, n, gens)?;
            }
            Ok(())
        }),
        Box::new(move || {
            if shared {
                unchecked::conway_block_shared::launch(&b.dev, config, u, n, gens)?;
            } else {
                unchecked::conway_block::launch(&b.dev, config, u, n, gens)?;
            }
            Ok(())
        }),
        Box::new(move || {
            let n64 = n as u64;
            let mut l = b.stream.launch_builder(f);
            l.arg(raw(h)).arg(&n64).arg(&gens);
            // SAFETY: life_block/life_block_shared(int* cells, unsigned long long n,
            // unsigned int generations): a live buffer of n*n i32, n = 32, launched as one
            // block of n x n threads, each touching the cells of the lattice only.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ]
}
