//! The 256-bin byte histograms (a) to (f) of examples/kernels/histogram.rs on 2^28 bytes,
//! uniform random and one-value input: checked, unchecked, by hand; peers cupy.histogram,
//! torch.bincount and a Triton kernel (tl.histogram per program, atomics into the bins).
//!
//! Each contestant adds into its own bins. One launch from zeroed bins is compared with
//! the CPU's histogram; then the timed launches keep adding to the same bins, and the bins
//! must hold (launches x the histogram), wrapping at 2^32 like the atomics.

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::{Device, DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::histogram_kernels::{
    checked, cpu_byte_histogram, lanes_config, to_words, unchecked, BYTE_BINS,
};
use crate::table::{Row, Unit};
use crate::timing::{best_ms_counted, Step};
use crate::{Bench, Kernel, Res};

/// The value of the one-value input (the histogram example's default).
const ONE_VALUE: u8 = 97;
/// Threads per block of (a) to (e), as the histogram example; 8 blocks per SM.
const BLOCK: u32 = 256;
/// (f), which reads `words` like (e).
const LANES: usize = 5;

/// The kernels of seed 004's sequence and (f): (label, hand-written name).
const VARIANTS: [(&str, &str); 6] = [
    ("hist (a) global, block", "hist_global_block"),
    ("hist (b) global, interl.", "hist_global_interleaved"),
    ("hist (c) privatised", "hist_privatized"),
    ("hist (d) priv. + aggreg.", "hist_aggregated"),
    ("hist (e) priv. 4 B/load", "hist_words"),
    ("hist (f) lanes, 16 B/thr.", "hist_lanes"),
];

/// `launch(variant, dev, cfg, input, bins)` for the kernels of one module.
macro_rules! launcher {
    ($name:ident, $m:ident) => {
        fn $name(
            variant: usize,
            dev: &Device,
            cfg: LaunchConfig,
            input: &Input,
            bins: &mut DeviceBuffer<u32>,
        ) -> warpspeed::Result<()> {
            let (bytes, words) = (&input.bytes, &input.words);
            match variant {
                0 => $m::histogram_global_block_bytes::launch(dev, cfg, bytes, bins),
                1 => $m::histogram_global_interleaved_bytes::launch(dev, cfg, bytes, bins),
                2 => $m::histogram_privatized_bytes::launch(dev, cfg, bytes, bins),
                3 => $m::histogram_aggregated_bytes::launch(dev, cfg, bytes, bins),
                4 => $m::histogram_words_bytes::launch(dev, cfg, words, bytes.len(), bins),
                _ => $m::histogram_lanes_bytes::launch(dev, cfg, words, bytes.len(), bins),
            }
        }
    };
}
launcher!(launch_checked, checked);
launcher!(launch_unchecked, unchecked);

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::histogram_global_block_bytes::KERNEL),
        (
            "checked",
            &checked::histogram_global_interleaved_bytes::KERNEL,
        ),
        ("checked", &checked::histogram_privatized_bytes::KERNEL),
        ("checked", &checked::histogram_aggregated_bytes::KERNEL),
        ("checked", &checked::histogram_words_bytes::KERNEL),
        ("checked", &checked::histogram_lanes_bytes::KERNEL),
        (
            "unchecked",
            &unchecked::histogram_global_block_bytes::KERNEL,
        ),
        (
            "unchecked",
            &unchecked::histogram_global_interleaved_bytes::KERNEL,
        ),
        ("unchecked", &unchecked::histogram_privatized_bytes::KERNEL),
        ("unchecked", &unchecked::histogram_aggregated_bytes::KERNEL),
        ("unchecked", &unchecked::histogram_words_bytes::KERNEL),
        ("unchecked", &unchecked::histogram_lanes_bytes::KERNEL),
    ]
}

/// One input: its bytes on the device, also as little-endian u32 words for (e) and (f), and its
/// CPU histogram.
struct Input {
    name: &'static str,
    bytes: DeviceBuffer<u8>,
    words: DeviceBuffer<u32>,
    want: Vec<u32>,
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.histogram_log2;
    let len = 1usize << log2;
    let mut rng = XorShift::new(len as u64);
    let mut uniform = Vec::with_capacity(len + 8);
    while uniform.len() < len {
        uniform.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    uniform.truncate(len);
    let mut rows = Vec::new();
    for (name, host) in [("uniform", uniform), ("one-value", vec![ONE_VALUE; len])] {
        let input = Input {
            name,
            bytes: b.dev.upload(&host)?,
            words: b.dev.upload(&to_words(&host))?,
            want: cpu_byte_histogram(&host),
        };
        drop(host);
        let peers_key = format!("histogram_2^{log2}_u8_{}", name.replace('-', "_"));
        for (variant, (label, hand_name)) in VARIANTS.iter().enumerate() {
            let f = b.hand.function("histogram.cu", hand_name)?;
            let t = variant_times(b, variant, &f, &input)?;
            rows.push(
                Row::new(*label, format!("2^{log2} B {name}"), Unit::Ms)
                    .times(t[0], Some(t[1]), Some(t[2]))
                    .peers(b.peers(&peers_key, Unit::Ms))
                    .note(b.bandwidth_note(len as f64, t[0])),
            );
        }
    }
    Ok(rows)
}

/// One variant on one input: checked, unchecked and hand, each checked against the CPU
/// after one launch and after the timed ones.
fn variant_times(b: &Bench, variant: usize, f: &CudaFunction, input: &Input) -> Res<Vec<f64>> {
    let dev = &b.dev;
    let config = if variant == LANES {
        lanes_config(dev)
    } else {
        LaunchConfig::new(8 * dev.limits().multiprocessor_count, BLOCK)
    };
    let mut bins: Vec<DeviceBuffer<u32>> = (0..3)
        .map(|_| dev.zeros::<u32>(BYTE_BINS))
        .collect::<Result<_, _>>()?;
    let what = |who: usize| {
        format!(
            "{} on {} bytes {}, {}",
            VARIANTS[variant].0,
            input.bytes.len(),
            input.name,
            ["checked", "unchecked", "hand"][who]
        )
    };
    let mut once = steps(b, variant, f, input, config, &mut bins);
    for step in once.iter_mut() {
        step()?;
    }
    drop(once);
    for (who, bin) in bins.iter().enumerate() {
        b.check(&what(who), &bin.download()?, &input.want, |v| v);
    }
    for bin in &mut bins {
        bin.copy_from_host(&[0; BYTE_BINS])?;
    }
    let (runs, t) = best_ms_counted(b, &mut steps(b, variant, f, input, config, &mut bins))?;
    let want: Vec<u32> = input
        .want
        .iter()
        .map(|w| w.wrapping_mul(runs as u32))
        .collect();
    for (who, bin) in bins.iter().enumerate() {
        b.check(
            &format!("{}, after {runs} launches", what(who)),
            &bin.download()?,
            &want,
            |v| v,
        );
    }
    Ok(t)
}

/// The three contestants of one variant, each adding into its own bins.
fn steps<'a>(
    b: &'a Bench,
    variant: usize,
    f: &'a CudaFunction,
    input: &'a Input,
    config: LaunchConfig,
    bins: &'a mut [DeviceBuffer<u32>],
) -> Vec<Step<'a>> {
    let [c, u, h] = bins else {
        unreachable!("three contestants")
    };
    let dev = &b.dev;
    vec![
        Box::new(move || Ok(launch_checked(variant, dev, config, input, c)?)),
        Box::new(move || Ok(launch_unchecked(variant, dev, config, input, u)?)),
        Box::new(move || {
            let (len, nwords) = (input.bytes.len() as u64, input.words.len() as u64);
            let mut l = b.stream.launch_builder(f);
            if variant >= 4 {
                l.arg(raw(&input.words)).arg(&nwords).arg(&len).arg(raw(h));
            } else {
                l.arg(raw(&input.bytes)).arg(&len).arg(raw(h));
            }
            // SAFETY: hist_*(const unsigned char* buffer, unsigned long long n, unsigned*
            // histo) or hist_words / hist_lanes(const unsigned* words, unsigned long long
            // nwords, unsigned long long len, unsigned* histo): live buffers of those
            // lengths and 256 bins; every load is tested against n (nwords), every bin is
            // a byte value.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ]
}
