//! Scans (examples/kernels/scan.rs and scan_lookback.rs, used as the scan example uses
//! them): seed 000's naive scan of 1024 f64 in one block, the multi-block Blelloch scan of
//! 2^28 u32 (`MultiBlockScan`: tiles of 2048, their totals scanned level by level, the
//! offsets added back, no host synchronisation), and the single-pass scan with decoupled
//! look-back (`LookbackScan`, one launch), each against the same algorithm by hand; peers
//! torch.cumsum and cupy.cumsum. Also seed 000's own work-efficient scan of 2^24 f64, one
//! launch per level with the host waiting in between, as the seed runs it.
//!
//! Every scan has all three columns: checked, `unchecked`, by hand.

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::algorithms::operator::Sum;
use warpspeed::algorithms::scan as lib_scan;
use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::scan_kernels::{
    cpu_naive_prefix, cpu_scan, cpu_seed_work_efficient, naive_prefix, seed_scan_plan,
    seed_work_efficient_scan_with, unchecked, MultiBlockScan, ScanElem, SeedStep,
};
use crate::scan_lookback::{HandLookback, LookbackElem, LookbackScan, LOOKBACK_BLOCK};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, best_ms_counted, Step};
use crate::{Bench, Kernel, Res};

/// Threads per block of the multi-block scan (tiles of twice that), as the scan example.
const BLOCK: u32 = 1024;

pub fn kernels() -> Vec<Kernel> {
    let mut all = vec![
        ("checked", &naive_prefix::KERNEL),
        ("unchecked", &unchecked::naive_prefix::KERNEL),
    ];
    all.extend(u32::kernels().map(|k| ("checked", k)));
    all.extend(u32::unchecked_kernels().map(|k| ("unchecked", k)));
    all.extend([
        ("checked", &crate::scan_kernels::seed_up_sweep::KERNEL),
        ("checked", &crate::scan_kernels::seed_down_sweep::KERNEL),
        ("checked", &crate::scan_kernels::copy_f64::KERNEL),
        ("unchecked", &unchecked::seed_up_sweep::KERNEL),
        ("unchecked", &unchecked::seed_down_sweep::KERNEL),
        ("unchecked", &unchecked::copy_f64::KERNEL),
    ]);
    let [checked, unchecked] = u32::lookback_kernels();
    all.extend([("checked", checked), ("unchecked", unchecked)]);
    all.extend([
        (
            "checked",
            lib_scan::kernels::scan_sums_float::kernel::<f32>(),
        ),
        (
            "unchecked",
            lib_scan::kernels::unchecked::scan_sums_float::kernel::<f32>(),
        ),
    ]);
    all
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    Ok(vec![
        naive(b)?,
        seed_work_efficient(b)?,
        multi_block(b)?,
        lookback(b)?,
    ]
    .into_iter()
    .chain(library(b)?)
    .collect())
}

/// Seed 000's host-synchronised work-efficient scan of 2^(scan_log2 - 4) f64 (2^24 by
/// default, as the scan example): one launch per level and copy, the host waiting after
/// each level; by hand, the same [`seed_scan_plan`] on cudarc. Each contestant scans its
/// own copy of the input in place, so every run after the first scans the previous
/// result: the outputs are checked after one fresh run each.
fn seed_work_efficient(b: &Bench) -> Res<Row> {
    let dev = &b.dev;
    let log2 = b.sizes.scan_log2 - 4;
    let n = 1usize << log2;
    let mut rng = XorShift::new(n as u64);
    // Small integers: every sum is exact in any order.
    let x: Vec<f64> = (0..n).map(|_| (rng.next_u64() % 17) as f64 - 8.0).collect();
    let fresh = || dev.upload(&x);
    let (mut xc, mut oc) = (fresh()?, fresh()?);
    let (mut xu, mut ou) = (fresh()?, fresh()?);
    let (xh, oh) = (fresh()?, fresh()?);
    let hand = SeedHand::new(b)?;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(seed_work_efficient_scan_with(dev, &mut xc, &mut oc, true)?)),
        Box::new(|| Ok(seed_work_efficient_scan_with(dev, &mut xu, &mut ou, false)?)),
        Box::new(|| hand.run(&xh, &oh)),
    ];
    let (runs, t) = best_ms_counted(b, &mut steps)?;
    drop(steps);
    let want = cpu_seed_work_efficient(&x);
    let (mut xc, mut oc) = (fresh()?, fresh()?);
    let (mut xu, mut ou) = (fresh()?, fresh()?);
    let (xh, oh) = (fresh()?, fresh()?);
    seed_work_efficient_scan_with(dev, &mut xc, &mut oc, true)?;
    seed_work_efficient_scan_with(dev, &mut xu, &mut ou, false)?;
    hand.run(&xh, &oh)?;
    for (who, out) in [("checked", &xc), ("unchecked", &xu), ("hand", &xh)] {
        b.check(
            &format!("seed work-efficient scan 2^{log2}, {who}, against the CPU"),
            &out.download()?,
            &want,
            f64::to_bits,
        );
    }
    let launches = seed_scan_plan(n)
        .iter()
        .filter(|s| !matches!(s, SeedStep::Wait))
        .count();
    Ok(Row::new(
        "scan seed work-efficient",
        format!("2^{log2} f64"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .note(format!(
        "{launches} launches, {} host waits; {runs} runs",
        2 * log2
    )))
}

/// The seed's scan by hand: [`seed_scan_plan`]'s launches of `seed_up_sweep_hand`,
/// `seed_down_sweep_hand` and `copy_f64_hand` on cudarc.
struct SeedHand<'a> {
    b: &'a Bench,
    up: CudaFunction,
    down: CudaFunction,
    copy: CudaFunction,
}

impl<'a> SeedHand<'a> {
    fn new(b: &'a Bench) -> Res<SeedHand<'a>> {
        Ok(SeedHand {
            b,
            up: b.hand.function("scan.cu", "seed_up_sweep_hand")?,
            down: b.hand.function("scan.cu", "seed_down_sweep_hand")?,
            copy: b.hand.function("scan.cu", "copy_f64_hand")?,
        })
    }

    /// Scans `x` in place, `old` the scratch buffer (both of the same power-of-two length).
    fn run(&self, x: &DeviceBuffer<f64>, old: &DeviceBuffer<f64>) -> Res<()> {
        let n = x.len() as u64;
        let all = LaunchConfig::for_num_elems(u32::try_from(n)?);
        for step in seed_scan_plan(x.len()) {
            let (f, config, dst, src) = match step {
                SeedStep::Copy { to_x: false, .. } => (&self.copy, all, old, x),
                SeedStep::Copy { to_x: true, .. } => (&self.copy, all, x, old),
                SeedStep::Up(_, c) => (&self.up, c, x, old),
                SeedStep::Down(_, c) => (&self.down, c, x, old),
                SeedStep::Wait => {
                    self.b.stream.synchronize()?;
                    continue;
                }
            };
            let mut l = self.b.stream.launch_builder(f);
            l.arg(raw(dst)).arg(raw(src)).arg(&n);
            let (k, set_last, last) = match step {
                SeedStep::Up(k, _) | SeedStep::Down(k, _) => (k, 0u32, 0.0f64),
                SeedStep::Copy { zero_last, .. } => (0, u32::from(zero_last), 0.0),
                SeedStep::Wait => unreachable!("handled above"),
            };
            if matches!(step, SeedStep::Copy { .. }) {
                l.arg(&set_last).arg(&last);
            } else {
                l.arg(&k);
            }
            // SAFETY: seed_up_sweep_hand / seed_down_sweep_hand(double* x, const double*
            // x_old, unsigned long long n, unsigned k) and copy_f64_hand(double* dst, const
            // double* src, unsigned long long n, unsigned set_last, double last): two live,
            // distinct buffers of n f64 on this context; every access is tested against n.
            unsafe { l.launch(cfg(config)) }?;
        }
        Ok(())
    }
}

/// Seed 000's naive scan of 1024 f64 in one block, against the CPU in its order of sums.
fn naive(b: &Bench) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(1024);
    let x: Vec<f64> = (0..1024).map(|_| rng.range_f64(-1.0, 1.0)).collect();
    let input = dev.upload(&x)?;
    let mut out_c = dev.upload(&vec![f64::NAN; 1024])?;
    let mut out_u = dev.upload(&vec![f64::NAN; 1024])?;
    let out_h = dev.upload(&vec![f64::NAN; 1024])?;
    let config = LaunchConfig::new(1, 1024);
    let f = b.hand.function("scan.cu", "naive_prefix_hand")?;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(naive_prefix::launch(dev, config, &input, &mut out_c)?)),
        Box::new(|| {
            Ok(unchecked::naive_prefix::launch(
                dev, config, &input, &mut out_u,
            )?)
        }),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(&input)).arg(raw(&out_h));
            // SAFETY: naive_prefix_hand(const double* vec, double* out): two live buffers
            // of 1024 f64, one block of 1024 threads, thread t touching element t only.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let want = cpu_naive_prefix(&x);
    b.check(
        "naive scan, checked, against the CPU",
        &out_c.download()?,
        &want,
        f64::to_bits,
    );
    b.check(
        "naive scan, unchecked, against the CPU",
        &out_u.download()?,
        &want,
        f64::to_bits,
    );
    b.check(
        "naive scan, hand, against the CPU",
        &out_h.download()?,
        &want,
        f64::to_bits,
    );
    let us = |ms: f64| ms * 1e3;
    Ok(
        Row::new("scan naive_prefix", "1024 f64, 1 block", Unit::Us).times(
            us(t[0]),
            Some(us(t[1])),
            Some(us(t[2])),
        ),
    )
}

/// [`MultiBlockScan`] written by hand: the same levels, tiles and launches, on cudarc.
struct HandScan<'a> {
    b: &'a Bench,
    tiles: CudaFunction,
    add: CudaFunction,
    len: usize,
    sums: Vec<DeviceBuffer<u32>>,
    offs: Vec<DeviceBuffer<u32>>,
}

impl<'a> HandScan<'a> {
    fn new(b: &'a Bench, len: usize) -> Res<HandScan<'a>> {
        let tile = 2 * BLOCK as usize;
        let (mut sums, mut offs) = (Vec::new(), Vec::new());
        let mut n = len.max(1);
        loop {
            let tiles = n.div_ceil(tile);
            sums.push(b.dev.zeros::<u32>(tiles)?);
            if tiles == 1 {
                break;
            }
            offs.push(b.dev.zeros::<u32>(tiles)?);
            n = tiles;
        }
        Ok(HandScan {
            b,
            tiles: b.hand.function("scan.cu", "blelloch_tiles_u32_hand")?,
            add: b.hand.function("scan.cu", "add_tile_offsets_u32_hand")?,
            len,
            sums,
            offs,
        })
    }

    /// blelloch_tiles_u32_hand(input, n, out, sums, inclusive) over `n` elements.
    fn tiles(
        &self,
        input: &DeviceBuffer<u32>,
        out: &DeviceBuffer<u32>,
        sums: &DeviceBuffer<u32>,
        inclusive: bool,
    ) -> Res<()> {
        let n = input.len();
        let grid = u32::try_from(n.div_ceil(2 * BLOCK as usize))?;
        let n64 = n as u64;
        let mut l = self.b.stream.launch_builder(&self.tiles);
        l.arg(raw(input))
            .arg(&n64)
            .arg(raw(out))
            .arg(raw(sums))
            .arg(&inclusive);
        // SAFETY: blelloch_tiles_u32_hand(const unsigned* input, unsigned long long n,
        // unsigned* out, unsigned* sums, bool inclusive): input and out hold n u32, sums
        // one per tile (the grid's blocks); every access is tested against n.
        unsafe { l.launch(cfg(LaunchConfig::new(grid, BLOCK))) }?;
        Ok(())
    }

    /// add_tile_offsets_u32_hand(data, n, offsets, tile_log2).
    fn add(&self, data: &DeviceBuffer<u32>, offsets: &DeviceBuffer<u32>) -> Res<()> {
        let n = data.len();
        let n64 = n as u64;
        let tile_log2 = (2 * BLOCK).trailing_zeros();
        let mut l = self.b.stream.launch_builder(&self.add);
        l.arg(raw(data)).arg(&n64).arg(raw(offsets)).arg(&tile_log2);
        // SAFETY: add_tile_offsets_u32_hand(unsigned* data, unsigned long long n, const
        // unsigned* offsets, unsigned tile_log2): data holds n u32, offsets one per tile of
        // data; the kernel tests i < n.
        unsafe { l.launch(cfg(LaunchConfig::for_num_elems(u32::try_from(n)?))) }?;
        Ok(())
    }

    /// `MultiBlockScan::run`, by hand.
    fn run(&self, input: &DeviceBuffer<u32>, out: &DeviceBuffer<u32>, inclusive: bool) -> Res<()> {
        assert_eq!(input.len(), self.len);
        self.tiles(input, out, &self.sums[0], inclusive)?;
        for j in 0..self.offs.len() {
            self.tiles(&self.sums[j], &self.offs[j], &self.sums[j + 1], false)?;
        }
        for j in (1..self.offs.len()).rev() {
            self.add(&self.offs[j - 1], &self.offs[j])?;
        }
        if let Some(offsets) = self.offs.first() {
            self.add(out, offsets)?;
        }
        Ok(())
    }
}

/// The multi-block inclusive scan of 2^28 random u32 (wrapping), against a sequential CPU
/// scan.
fn multi_block(b: &Bench) -> Res<Row> {
    let dev = &b.dev;
    let log2 = b.sizes.scan_log2;
    let len = 1usize << log2;
    let mut rng = XorShift::new(len as u64);
    let x: Vec<u32> = (0..len).map(|_| rng.next_u32()).collect();
    let input = dev.upload(&x)?;
    let poison = vec![0xDEAD_BEEFu32; len];
    let mut out_c = dev.upload(&poison)?;
    let mut out_u = dev.upload(&poison)?;
    let out_h = dev.upload(&poison)?;
    // One plan each: a plan's buffers of tile totals serve one scan at a time.
    let mut plan = MultiBlockScan::<u32>::new(dev, len, BLOCK)?;
    let mut plan_u = MultiBlockScan::<u32>::new(dev, len, BLOCK)?;
    let hand = HandScan::new(b, len)?;
    let launches = plan.launches();
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(plan.run(dev, &input, &mut out_c, true)?)),
        Box::new(|| Ok(plan_u.run_with(dev, &input, &mut out_u, true, false)?)),
        Box::new(|| hand.run(&input, &out_h, true)),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let want = cpu_scan(&x, true);
    b.check(
        "multi-block scan, checked, against the CPU",
        &out_c.download()?,
        &want,
        |v| v,
    );
    b.check(
        "multi-block scan, unchecked, against the CPU",
        &out_u.download()?,
        &want,
        |v| v,
    );
    b.check(
        "multi-block scan, hand, against the CPU",
        &out_h.download()?,
        &want,
        |v| v,
    );
    Ok(Row::new(
        "scan multi-block Blelloch",
        format!("2^{log2} u32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .peers(b.peers(&format!("scan_2^{log2}_i32"), Unit::Ms))
    .note(b.bandwidth_note(8.0 * len as f64, t[0]))
    .note(format!("{launches} launches")))
}

/// The single-pass look-back inclusive scan of 2^28 random u32 (wrapping), checked,
/// unchecked and by hand, on one plan (status words, counter, epochs) launched in turn on
/// the device's stream; against a sequential CPU scan.
fn lookback(b: &Bench) -> Res<Row> {
    let dev = &b.dev;
    let log2 = b.sizes.scan_log2;
    let len = 1usize << log2;
    let mut rng = XorShift::new(len as u64 + 1);
    let x: Vec<u32> = (0..len).map(|_| rng.next_u32()).collect();
    let input = dev.upload(&x)?;
    let poison = vec![0xDEAD_BEEFu32; len];
    let mut out_c = dev.upload(&poison)?;
    let mut out_u = dev.upload(&poison)?;
    let mut out_h = dev.upload(&poison)?;
    let plan = std::cell::RefCell::new(LookbackScan::new(dev, len, LOOKBACK_BLOCK)?);
    let hand = HandLookback::load(dev)?;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(plan.borrow_mut().run(dev, &input, &mut out_c, true, true)?)),
        Box::new(|| {
            Ok(plan
                .borrow_mut()
                .run(dev, &input, &mut out_u, true, false)?)
        }),
        Box::new(|| Ok(hand.run(&mut plan.borrow_mut(), &input, &mut out_h, true)?)),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let want = cpu_scan(&x, true);
    for (who, out) in [("checked", &out_c), ("unchecked", &out_u), ("hand", &out_h)] {
        b.check(
            &format!("look-back scan, {who}, against the CPU"),
            &out.download()?,
            &want,
            |v| v,
        );
    }
    Ok(Row::new(
        "scan single-pass look-back",
        format!("2^{log2} u32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .peers(b.peers(&format!("scan_2^{log2}_i32"), Unit::Ms))
    .note(b.bandwidth_note(8.0 * len as f64, t[0]))
    .note("1 launch".to_string()))
}

/// `warpspeed::algorithms::scan`: `inclusive_sum` of 2^28 random u32 (the decoupled
/// look-back, one launch; unchecked: the same kernel's `unchecked` twin on the example's
/// plan), and of 2^28 f32 and i64 small integers (the fixed-order look-back, one launch,
/// which a float sum takes for its fixed order; unchecked: the `unchecked` kernel on words
/// of its own). The library's scratch is made once.
fn library(b: &Bench) -> Res<Vec<Row>> {
    let dev = &b.dev;
    let log2 = b.sizes.scan_log2;
    let len = 1usize << log2;
    let mut rng = XorShift::new(len as u64 + 2);
    let x: Vec<u32> = (0..len).map(|_| rng.next_u32()).collect();
    let input = dev.upload(&x)?;
    let poison = vec![0xDEAD_BEEFu32; len];
    let mut out_c = dev.upload(&poison)?;
    let mut out_u = dev.upload(&poison)?;
    let mut scratch = lib_scan::Scratch::<u32>::new(dev, len)?;
    let plan = std::cell::RefCell::new(LookbackScan::new(dev, len, LOOKBACK_BLOCK)?);
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(lib_scan::inclusive_with_scratch::<Sum<u32>>(
                dev,
                &input,
                &mut out_c,
                &mut scratch,
            )?)
        }),
        Box::new(|| {
            Ok(plan
                .borrow_mut()
                .run(dev, &input, &mut out_u, true, false)?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let want = cpu_scan(&x, true);
    for (who, out) in [("checked", &out_c), ("unchecked", &out_u)] {
        b.check(
            &format!("algorithms::scan u32, {who}, against the CPU"),
            &out.download()?,
            &want,
            |v| v,
        );
    }
    let ints = Row::new(
        "scan::inclusive_sum (algorithms)",
        format!("2^{log2} u32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), None)
    .peers(b.peers(&format!("scan_2^{log2}_i32"), Unit::Ms))
    .note(b.bandwidth_note(8.0 * len as f64, t[0]))
    .note("look-back, 1 launch".to_string());
    drop((input, out_c, out_u, scratch, plan));

    // Small integers as floats: every prefix is exact, so both equal the CPU's.
    let xf: Vec<f32> = (0..len)
        .map(|_| (rng.next_u64() % 17) as f32 - 8.0)
        .collect();
    let mut acc = 0f64;
    let want: Vec<f32> = xf
        .iter()
        .map(|&v| {
            acc += v as f64;
            acc as f32
        })
        .collect();
    let floats = fixed_order(b, &xf, &want, 32, "f32", |x, out, w| {
        use lib_scan::kernels::unchecked::capped::ordered_sums_f32;
        let epoch = w.next();
        Ok(ordered_sums_f32::launch(
            dev,
            w.cfg,
            x,
            out,
            &mut w.values,
            &mut w.counter,
            epoch,
            true,
        )?)
    })?;
    let xi: Vec<i64> = xf.iter().map(|&v| v as i64).collect();
    let wanti: Vec<i64> = want.iter().map(|&v| v as i64).collect();
    let longs = fixed_order(b, &xi, &wanti, 16, "i64", |x, out, w| {
        use lib_scan::kernels::unchecked::capped::ordered_sums_int;
        let epoch = w.next();
        Ok(ordered_sums_int::launch::<i64>(
            dev,
            w.cfg,
            x,
            out,
            &mut w.values,
            &mut w.counter,
            epoch,
            true,
        )?)
    })?;
    Ok(vec![ints, floats, longs])
}

/// The words of one fixed-order look-back launch made by hand (what the library's scratch
/// holds): flags and values for every level, the tile counter, the epoch.
struct Words {
    cfg: LaunchConfig,
    values: DeviceBuffer<u64>,
    counter: DeviceBuffer<u32>,
    epoch: u32,
}

impl Words {
    fn next(&mut self) -> u32 {
        self.epoch += 1;
        self.epoch
    }
}

/// One row of the fixed-order look-back: `scan::inclusive_sum` of `x` against its
/// `unchecked` kernel (`items` a thread, 256 threads), both checked against `want`.
fn fixed_order<T>(
    b: &Bench,
    x: &[T],
    want: &[T],
    items: usize,
    ty: &str,
    mut unchecked: impl FnMut(&DeviceBuffer<T>, &mut DeviceBuffer<T>, &mut Words) -> Res<()>,
) -> Res<Row>
where
    T: warpspeed::algorithms::reduce::Reducible + PartialEq + std::fmt::Debug + Copy,
{
    let dev = &b.dev;
    let len = x.len();
    let input = dev.upload(x)?;
    let mut out_c = dev.zeros::<T>(len)?;
    let mut out_u = dev.zeros::<T>(len)?;
    let mut scratch = lib_scan::Scratch::<T>::new(dev, len)?;
    let tiles = len.div_ceil(items * 256);
    let mut words = Words {
        cfg: LaunchConfig::new(tiles as u32, 256),
        values: dev.zeros::<u64>(2 * (2 * tiles + 8))?,
        counter: dev.zeros::<u32>(1)?,
        epoch: 0,
    };
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(lib_scan::inclusive_with_scratch::<Sum<T>>(
                dev,
                &input,
                &mut out_c,
                &mut scratch,
            )?)
        }),
        Box::new(|| unchecked(&input, &mut out_u, &mut words)),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (who, out) in [("checked", &out_c), ("unchecked", &out_u)] {
        let got = out.download()?;
        if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
            b.mismatch(format_args!(
                "algorithms::scan {ty}, {who}: first wrong at {i}: {:?} for {:?}",
                got[i], want[i]
            ));
        }
    }
    let log2 = len.trailing_zeros();
    Ok(Row::new(
        "scan::inclusive_sum (algorithms)",
        format!("2^{log2} {ty}"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), None)
    .peers(b.peers(&format!("scan_2^{log2}_{ty}"), Unit::Ms))
    .note(b.bandwidth_note(2.0 * std::mem::size_of_val(x) as f64, t[0]))
    .note(format!("fixed-order look-back, 1 launch, {tiles} tiles")))
}
