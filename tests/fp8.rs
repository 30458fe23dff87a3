//! The fp8 storage types `e4m3` and `e5m2` (CUDA's `__nv_fp8_e4m3`/`__nv_fp8_e5m2`): every
//! code to `f32` and `f16`, every `f16` to fp8, the `f32` edge cases and a few million
//! random `f32`s to fp8, on the simulator and the GPU, against a CPU reference that knows
//! nothing of the conversions' bit arithmetic: it lists the 256 values of a format from
//! their definition and picks the nearest (ties to the even code), saturating at the
//! largest finite value (docs/semantics.md, "fp8").

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{bf16, e4m3, e5m2, f16, LaunchConfig};

/// Loads, conversions out and stores of every code of both formats.
#[gpu_kernel]
fn fp8_codes(
    a: &[e4m3],
    b: &[e5m2],
    af: &mut [f32],
    ah: &mut [f16],
    bf: &mut [f32],
    bh: &mut [f16],
    copies: &mut [e4m3],
    bits: &mut [u8],
) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        af[i] = x.to_f32();
        ah[i] = x.to_f16();
        bf[i] = y.to_f32();
        bh[i] = y.to_f16();
        copies[i] = x;
        bits[2 * i] = y.to_bits();
        bits[2 * i + 1] = e5m2::from_bits(x.to_bits()).to_bits();
    }
}

/// `f32` to both formats, a grid-stride loop (millions of values, few threads).
#[gpu_kernel]
fn fp8_from_f32(xs: &[f32], a: &mut [e4m3], b: &mut [e5m2]) {
    let mut i = grid_1d();
    while i < xs.len() {
        a[i] = e4m3::from_f32(xs[i]);
        b[i] = e5m2::from_f32(xs[i]);
        i += grid_stride_1d();
    }
}

/// `f16` to both formats.
#[gpu_kernel]
fn fp8_from_f16(hs: &[f16], a: &mut [e4m3], b: &mut [e5m2]) {
    let mut i = grid_1d();
    while i < hs.len() {
        a[i] = e4m3::from_f16(hs[i]);
        b[i] = e5m2::from_f16(hs[i]);
        i += grid_stride_1d();
    }
}

/// `bf16` to both formats, and the 256 codes of each (the first 256 of `codes4`/`codes5`)
/// back to `bf16`.
#[gpu_kernel]
fn fp8_bf16(
    hs: &[bf16],
    a: &mut [e4m3],
    b: &mut [e5m2],
    codes4: &[e4m3],
    codes5: &[e5m2],
    back4: &mut [bf16],
    back5: &mut [bf16],
) {
    let mut i = grid_1d();
    while i < hs.len() {
        a[i] = e4m3::from_bf16(hs[i]);
        b[i] = e5m2::from_bf16(hs[i]);
        if i < codes4.len() {
            back4[i] = codes4[i].to_bf16();
            back5[i] = codes5[i].to_bf16();
        }
        i += grid_stride_1d();
    }
}

/// Shuffles move fp8 values; a value computed in `f32` goes back to fp8.
#[gpu_kernel]
fn fp8_shuffle(a: &[e4m3], out: &mut [e4m3], scaled: &mut [e5m2]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        out[i] = shfl_xor_sync(u32::MAX, x, 1);
        scaled[i] = e5m2::from_f32(x.to_f32() * 2.0 + 1.0);
    }
}

/// docs/language.md's example: y = alpha * x + y, stored as e4m3, computed in f32.
#[gpu_kernel]
fn axpy_fp8(alpha: f32, x: &[e4m3], y: &mut [e4m3]) {
    let i = grid_1d();
    if i < y.len() {
        let v = alpha * x[i].to_f32() + y[i].to_f32();
        y[i] = e4m3::from_f32(v);
    }
}

/// An fp8 struct field.
#[gpu_struct]
#[derive(Clone, Copy)]
struct Scaled {
    scale: f32,
    value: e5m2,
}

/// fp8 values as a scalar parameter, a struct field, shared-array and local-array
/// elements, and an `if` value.
#[gpu_kernel]
fn fp8_places(fill: e4m3, s: Scaled, a: &[e4m3], out: &mut [e4m3], structs: &mut [Scaled]) {
    let tile = SharedArray::<e4m3, 256>::new();
    let t = thread_idx().x as usize;
    let i = grid_1d();
    if i < a.len() {
        tile[t] = a[i];
    }
    sync_threads();
    if i < a.len() {
        let mut local = [fill; 2];
        local[1] = tile[255 - t];
        out[2 * i] = if a[i].to_bits() % 2 == 0 {
            local[0]
        } else {
            local[1]
        };
        out[2 * i + 1] = local[1];
        let v = e5m2::from_f32(s.scale * s.value.to_f32() * a[i].to_f32());
        structs[i] = Scaled {
            scale: s.scale,
            value: v,
        };
    }
}

/// A format, described from the OCP definition (not from the conversions' code).
#[derive(Clone, Copy, Debug)]
struct Format {
    exp_bits: u32,
    man_bits: u32,
    /// Whether `S.1..1.00` is an infinity (e5m2) or every exponent-all-ones code but
    /// `S.1..1.1..1` a finite value (e4m3).
    ieee: bool,
}

const E4M3: Format = Format {
    exp_bits: 4,
    man_bits: 3,
    ieee: false,
};
const E5M2: Format = Format {
    exp_bits: 5,
    man_bits: 2,
    ieee: true,
};

/// What a code is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Finite(f64),
    Inf,
    Nan,
}

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The value of code `c` (sign included), by the format's definition.
    fn value(self, c: u8) -> Value {
        let neg = c & 0x80 != 0;
        let e = ((c & 0x7f) >> self.man_bits) as i32;
        let m = (c & ((1 << self.man_bits) - 1)) as i32;
        let all_ones = (1 << self.exp_bits) - 1;
        if self.ieee && e == all_ones {
            return if m == 0 { Value::Inf } else { Value::Nan };
        }
        if !self.ieee && e == all_ones && m == (1 << self.man_bits) - 1 {
            return Value::Nan;
        }
        let frac = f64::from(m) / f64::from(1 << self.man_bits);
        let mag = if e == 0 {
            frac * 2f64.powi(1 - self.bias())
        } else {
            (1.0 + frac) * 2f64.powi(e - self.bias())
        };
        Value::Finite(if neg { -mag } else { mag })
    }

    /// The positive finite codes, ascending by value, with their values.
    fn ladder(self) -> Vec<(u8, f64)> {
        let mut v: Vec<(u8, f64)> = (0..0x80u8)
            .filter_map(|c| match self.value(c) {
                Value::Finite(x) => Some((c, x)),
                _ => None,
            })
            .collect();
        v.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
        v
    }

    /// The code `cvt.rn.satfinite` gives for a non-NaN `x`: the nearest value, ties to the
    /// even code, and the largest finite value (of `x`'s sign) for anything beyond it.
    fn nearest(self, ladder: &[(u8, f64)], x: f64) -> u8 {
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = x.abs();
        let &(max_code, max) = ladder.last().unwrap();
        if a >= max {
            return sign | max_code;
        }
        let k = ladder.iter().rposition(|&(_, v)| v <= a).unwrap();
        let ((lc, lo), (hc, hi)) = (ladder[k], ladder[k + 1]);
        let pick = if a - lo < hi - a {
            lc
        } else if a - lo > hi - a {
            hc
        } else if lc % 2 == 0 {
            lc
        } else {
            hc
        };
        sign | pick
    }

    /// The reference of `from_f32`: NaNs keep their sign (and e5m2 the payload bit below
    /// the quiet bit), quiet.
    fn encode(self, ladder: &[(u8, f64)], x: f32) -> u8 {
        if x.is_nan() {
            let u = x.to_bits();
            let sign = (u >> 24) as u8 & 0x80;
            return if self.ieee {
                sign | 0x7e | ((u >> 21) & 1) as u8
            } else {
                sign | 0x7f
            };
        }
        self.nearest(ladder, f64::from(x))
    }

    /// The reference of `to_f32`: exact; a NaN quiet with its sign (and e5m2's payload
    /// bit, at f32 bit 21).
    fn to_f32(self, c: u8) -> u32 {
        let sign = u32::from(c & 0x80) << 24;
        match self.value(c) {
            Value::Finite(v) => (v as f32).to_bits(),
            Value::Inf => sign | 0x7f80_0000,
            Value::Nan if self.ieee => sign | 0x7fc0_0000 | u32::from(c & 1) << 21,
            Value::Nan => sign | 0x7fc0_0000,
        }
    }

    /// The reference of `to_f16`.
    fn to_f16(self, c: u8) -> u16 {
        let sign = u16::from(c & 0x80) << 8;
        match self.value(c) {
            Value::Finite(v) => f16::from_f64(v).to_bits(),
            Value::Inf => sign | 0x7c00,
            Value::Nan if self.ieee => sign | 0x7e00 | u16::from(c & 1) << 8,
            Value::Nan => sign | 0x7e00,
        }
    }
}

/// `got` is `want`, except where the f32 arithmetic before the conversion made a NaN: the
/// sign and payload of a NaN an f32 operation makes are the processor's (the GPU's
/// canonical NaN is positive; x86 keeps its input's), so there only NaN-ness is compared
/// (docs/semantics.md, "Floating point").
fn same_code(f: Format, got: u8, want: u8) -> bool {
    let nan = |c: u8| matches!(f.value(c), Value::Nan);
    if nan(want) {
        nan(got)
    } else {
        got == want
    }
}

fn codes() -> Vec<u8> {
    (0..=255u8).collect()
}

/// Checks one converted output against the reference, naming the first mismatches.
fn check_codes<T: Copy + std::fmt::Debug>(
    what: &str,
    inputs: &[T],
    got: &[u8],
    want: impl Fn(T) -> u8,
) {
    let bad: Vec<String> = inputs
        .iter()
        .zip(got)
        .filter(|(x, g)| want(**x) != **g)
        .take(8)
        .map(|(x, g)| format!("{x:?}: got {g:#04x}, want {:#04x}", want(*x)))
        .collect();
    assert!(bad.is_empty(), "{what}: {}", bad.join("; "));
}

#[test]
fn host_conversions_match_the_reference() {
    let (l4, l5) = (E4M3.ladder(), E5M2.ladder());
    assert_eq!(l4.last().unwrap().1, 448.0);
    assert_eq!(l5.last().unwrap().1, 57344.0);
    for c in codes() {
        let (a, b) = (e4m3::from_bits(c), e5m2::from_bits(c));
        assert_eq!(a.to_f32().to_bits(), E4M3.to_f32(c), "e4m3 {c:#x}");
        assert_eq!(a.to_f16().to_bits(), E4M3.to_f16(c), "e4m3 {c:#x}");
        assert_eq!(b.to_f32().to_bits(), E5M2.to_f32(c), "e5m2 {c:#x}");
        assert_eq!(b.to_f16().to_bits(), E5M2.to_f16(c), "e5m2 {c:#x}");
    }
    for h in 0..=u16::MAX {
        let x = f16::from_bits(h);
        let f = x.to_f32();
        assert_eq!(e4m3::from_f16(x).to_bits(), E4M3.encode(&l4, f), "{h:#x}");
        assert_eq!(e5m2::from_f16(x).to_bits(), E5M2.encode(&l5, f), "{h:#x}");
    }
    let mut xs = edge_f32s();
    xs.extend(random_f32s(4 << 20, 7));
    for x in xs {
        assert_eq!(e4m3::from_f32(x).to_bits(), E4M3.encode(&l4, x), "{x:e}");
        assert_eq!(e5m2::from_f32(x).to_bits(), E5M2.encode(&l5, x), "{x:e}");
    }
}

/// Every value of both formats, every midpoint between neighbours (a tie at every
/// exponent, and between the subnormals), each nudged one f32 ulp either way; around the
/// largest finite values and beyond; zeros, f32 subnormals, infinities and NaNs; and each
/// negated.
fn edge_f32s() -> Vec<f32> {
    let mut v = Vec::new();
    let up = |x: f32| f32::from_bits(x.to_bits() + 1);
    let down = |x: f32| {
        if x == 0.0 {
            0.0
        } else {
            f32::from_bits(x.to_bits() - 1)
        }
    };
    for f in [E4M3, E5M2] {
        let l = f.ladder();
        for w in l.windows(2) {
            // Midpoints of fp8 values are exact in f32.
            let mid = ((w[0].1 + w[1].1) / 2.0) as f32;
            let lo = w[0].1 as f32;
            v.extend([lo, up(lo), down(lo), mid, up(mid), down(mid)]);
        }
        let max = l.last().unwrap().1;
        // The next value the format would have, and the midpoint beyond max.
        let step = max - l[l.len() - 2].1;
        for x in [max, max + step / 2.0, max + step, max * 2.0, max * 1e6] {
            let x = x as f32;
            v.extend([x, up(x), down(x)]);
        }
        // Half the smallest subnormal, and a quarter.
        let tiny = (l[1].1 / 2.0) as f32;
        v.extend([tiny, up(tiny), down(tiny), tiny / 2.0]);
    }
    v.extend([
        0.0,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0x7fa0_0000),
        f32::from_bits(0x7fe0_0000),
        f32::from_bits(0x7fff_ffff),
        1.0,
        0.1,
        1.0 / 3.0,
        464.0,
        465.0,
        61440.0,
    ]);
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// Random f32 bit patterns (every class), and as many values within the fp8 range.
fn random_f32s(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|k| {
            if k % 2 == 0 {
                f32::from_bits(rng.next_u32())
            } else {
                let x = rng.range_f32(-1.0, 1.0);
                x * 2f32.powi((rng.next_u32() % 40) as i32 - 20)
            }
        })
        .collect()
}

fn poisoned<T: warpspeed::KernelScalar>(
    dev: &warpspeed::Device,
    n: usize,
    v: T,
) -> warpspeed::DeviceBuffer<T> {
    dev.upload(&vec![v; n]).unwrap()
}

#[test]
fn every_code_to_f32_and_f16() {
    let a: Vec<e4m3> = codes().into_iter().map(e4m3::from_bits).collect();
    let b: Vec<e5m2> = codes().into_iter().map(e5m2::from_bits).collect();
    for dev in devices("fp8_codes") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut af = poisoned(&dev, 256, f32::from_bits(0x7f81_2345));
        let mut bf = poisoned(&dev, 256, f32::from_bits(0x7f81_2345));
        let mut ah = poisoned(&dev, 256, f16::from_bits(0x7d55));
        let mut bh = poisoned(&dev, 256, f16::from_bits(0x7d55));
        let mut copies = poisoned(&dev, 256, e4m3::from_bits(0x55));
        let mut bits = poisoned(&dev, 512, 0xaau8);
        let cfg = LaunchConfig::for_num_elems(256u32);
        fp8_codes::launch(
            &dev,
            cfg,
            &da,
            &db,
            &mut af,
            &mut ah,
            &mut bf,
            &mut bh,
            &mut copies,
            &mut bits,
        )
        .unwrap();
        let (af, ah, bf, bh) = (
            af.download().unwrap(),
            ah.download().unwrap(),
            bf.download().unwrap(),
            bh.download().unwrap(),
        );
        let (copies, bits) = (copies.download().unwrap(), bits.download().unwrap());
        for c in codes() {
            let i = usize::from(c);
            let on = dev.backend();
            assert_eq!(
                af[i].to_bits(),
                E4M3.to_f32(c),
                "{on:?}: e4m3 {c:#x} to f32"
            );
            assert_eq!(
                ah[i].to_bits(),
                E4M3.to_f16(c),
                "{on:?}: e4m3 {c:#x} to f16"
            );
            assert_eq!(
                bf[i].to_bits(),
                E5M2.to_f32(c),
                "{on:?}: e5m2 {c:#x} to f32"
            );
            assert_eq!(
                bh[i].to_bits(),
                E5M2.to_f16(c),
                "{on:?}: e5m2 {c:#x} to f16"
            );
            assert_eq!(copies[i].to_bits(), c, "{on:?}: e4m3 store of {c:#x}");
            assert_eq!(
                (bits[2 * i], bits[2 * i + 1]),
                (c, c),
                "{on:?}: bits {c:#x}"
            );
        }
    }
}

#[test]
fn every_f16_to_fp8() {
    let (l4, l5) = (E4M3.ladder(), E5M2.ladder());
    let hs: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    for dev in devices("fp8_from_f16") {
        let dh = dev.upload(&hs).unwrap();
        let mut a = poisoned(&dev, hs.len(), e4m3::from_bits(0x55));
        let mut b = poisoned(&dev, hs.len(), e5m2::from_bits(0x55));
        let cfg = LaunchConfig::new(128u32, 256u32);
        fp8_from_f16::launch(&dev, cfg, &dh, &mut a, &mut b).unwrap();
        let a: Vec<u8> = a.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let b: Vec<u8> = b.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let on = format!("{:?}", dev.backend());
        check_codes(&format!("{on}: f16 to e4m3"), &hs, &a, |h| {
            E4M3.encode(&l4, h.to_f32())
        });
        check_codes(&format!("{on}: f16 to e5m2"), &hs, &b, |h| {
            E5M2.encode(&l5, h.to_f32())
        });
    }
}

/// Every bf16 bit pattern to both formats (as its exact `f32` rounds), and every code of
/// each format to bf16 (exact: the reference's `f32` bits, whose low 16 are zero).
#[test]
fn every_bf16_to_fp8_and_back() {
    let (l4, l5) = (E4M3.ladder(), E5M2.ladder());
    let hs: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    let c4: Vec<e4m3> = codes().into_iter().map(e4m3::from_bits).collect();
    let c5: Vec<e5m2> = codes().into_iter().map(e5m2::from_bits).collect();
    for dev in devices("fp8_bf16") {
        let dh = dev.upload(&hs).unwrap();
        let (d4, d5) = (dev.upload(&c4).unwrap(), dev.upload(&c5).unwrap());
        let mut a = poisoned(&dev, hs.len(), e4m3::from_bits(0x55));
        let mut b = poisoned(&dev, hs.len(), e5m2::from_bits(0x55));
        let mut back4 = poisoned(&dev, 256, bf16::from_bits(0x7f55));
        let mut back5 = poisoned(&dev, 256, bf16::from_bits(0x7f55));
        let cfg = LaunchConfig::new(128u32, 256u32);
        fp8_bf16::launch(
            &dev, cfg, &dh, &mut a, &mut b, &d4, &d5, &mut back4, &mut back5,
        )
        .unwrap();
        let a: Vec<u8> = a.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let b: Vec<u8> = b.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let on = format!("{:?}", dev.backend());
        check_codes(&format!("{on}: bf16 to e4m3"), &hs, &a, |h| {
            E4M3.encode(&l4, h.to_f32())
        });
        check_codes(&format!("{on}: bf16 to e5m2"), &hs, &b, |h| {
            E5M2.encode(&l5, h.to_f32())
        });
        let (back4, back5) = (back4.download().unwrap(), back5.download().unwrap());
        for c in codes() {
            let i = usize::from(c);
            let want4 = (E4M3.to_f32(c) >> 16) as u16;
            let want5 = (E5M2.to_f32(c) >> 16) as u16;
            assert_eq!(back4[i].to_bits(), want4, "{on}: e4m3 {c:#x} to bf16");
            assert_eq!(back5[i].to_bits(), want5, "{on}: e5m2 {c:#x} to bf16");
            assert_eq!(
                e4m3::from_bits(c).to_bf16().to_bits(),
                want4,
                "host e4m3 {c:#x}"
            );
        }
    }
}

/// The edge cases and `n` random values through the kernel, against the reference.
fn f32_to_fp8_on_every_device(test: &str, xs: &[f32]) {
    let (l4, l5) = (E4M3.ladder(), E5M2.ladder());
    let want4: Vec<u8> = xs.iter().map(|&x| E4M3.encode(&l4, x)).collect();
    let want5: Vec<u8> = xs.iter().map(|&x| E5M2.encode(&l5, x)).collect();
    for dev in devices(test) {
        let dx = dev.upload(xs).unwrap();
        let mut a = poisoned(&dev, xs.len(), e4m3::from_bits(0x55));
        let mut b = poisoned(&dev, xs.len(), e5m2::from_bits(0x55));
        let cfg = LaunchConfig::new(256u32, 256u32);
        fp8_from_f32::launch(&dev, cfg, &dx, &mut a, &mut b).unwrap();
        let a: Vec<u8> = a.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let b: Vec<u8> = b.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let on = format!("{:?}", dev.backend());
        let idx: Vec<usize> = (0..xs.len()).collect();
        check_codes(&format!("{on}: f32 to e4m3"), &idx, &a, |i| want4[i]);
        check_codes(&format!("{on}: f32 to e5m2"), &idx, &b, |i| want5[i]);
    }
}

#[test]
fn f32_edge_cases_to_fp8() {
    f32_to_fp8_on_every_device("fp8_from_f32 edges", &edge_f32s());
}

#[test]
fn random_f32_to_fp8() {
    f32_to_fp8_on_every_device("fp8_from_f32 random", &random_f32s(2 << 20, 11));
}

#[test]
fn shuffles_and_round_trips() {
    let a: Vec<e4m3> = codes().into_iter().map(e4m3::from_bits).collect();
    let l5 = E5M2.ladder();
    for dev in devices("fp8_shuffle") {
        let da = dev.upload(&a).unwrap();
        let mut out = poisoned(&dev, 256, e4m3::from_bits(0x55));
        let mut scaled = poisoned(&dev, 256, e5m2::from_bits(0x55));
        let cfg = LaunchConfig::for_num_elems(256u32);
        fp8_shuffle::launch(&dev, cfg, &da, &mut out, &mut scaled).unwrap();
        let (out, scaled) = (out.download().unwrap(), scaled.download().unwrap());
        for c in codes() {
            let i = usize::from(c);
            assert_eq!(out[i].to_bits(), c ^ 1, "{:?}: shuffle", dev.backend());
            let x = f32::from_bits(E4M3.to_f32(c));
            let want = E5M2.encode(&l5, x * 2.0 + 1.0);
            assert!(
                same_code(E5M2, scaled[i].to_bits(), want),
                "{:?}: {x} * 2 + 1 gave {:#x}, want {want:#x}",
                dev.backend(),
                scaled[i].to_bits()
            );
        }
    }
}

#[test]
fn axpy_in_f32_stored_as_e4m3() {
    let l4 = E4M3.ladder();
    let mut rng = Rng::new(5);
    let n = 5000;
    let x: Vec<e4m3> = (0..n)
        .map(|_| e4m3::from_bits(rng.next_u32() as u8))
        .collect();
    let y: Vec<e4m3> = (0..n)
        .map(|_| e4m3::from_bits(rng.next_u32() as u8))
        .collect();
    let alpha = -1.75f32;
    for dev in devices("axpy_fp8") {
        let dx = dev.upload(&x).unwrap();
        let mut dy = dev.upload(&y).unwrap();
        axpy_fp8::launch(
            &dev,
            LaunchConfig::for_num_elems(n as u32),
            alpha,
            &dx,
            &mut dy,
        )
        .unwrap();
        let got = dy.download().unwrap();
        for i in 0..n {
            let (a, b) = (
                f32::from_bits(E4M3.to_f32(x[i].to_bits())),
                f32::from_bits(E4M3.to_f32(y[i].to_bits())),
            );
            let want = E4M3.encode(&l4, alpha * a + b);
            assert!(
                same_code(E4M3, got[i].to_bits(), want),
                "{:?}: {alpha} * {a} + {b} gave {:#x}, want {want:#x}",
                dev.backend(),
                got[i].to_bits()
            );
        }
    }
}

#[test]
fn scalar_struct_shared_and_local_places() {
    let l5 = E5M2.ladder();
    let a: Vec<e4m3> = codes().into_iter().map(e4m3::from_bits).collect();
    let fill = e4m3::from_f32(-3.5);
    let s = Scaled {
        scale: 0.5,
        value: e5m2::from_f32(6.0),
    };
    for dev in devices("fp8_places") {
        let da = dev.upload(&a).unwrap();
        let mut out = poisoned(&dev, 512, e4m3::from_bits(0x55));
        let junk = Scaled {
            scale: -1.0,
            value: e5m2::from_bits(0x55),
        };
        let mut structs = poisoned(&dev, 256, junk);
        let cfg = LaunchConfig::new(1u32, 256u32);
        fp8_places::launch(&dev, cfg, fill, s, &da, &mut out, &mut structs).unwrap();
        let (out, structs) = (out.download().unwrap(), structs.download().unwrap());
        for c in codes() {
            let i = usize::from(c);
            let other = 255 - c;
            let first = if c % 2 == 0 { fill.to_bits() } else { other };
            let on = dev.backend();
            assert_eq!(
                (out[2 * i].to_bits(), out[2 * i + 1].to_bits()),
                (first, other),
                "{on:?}: {c:#x}"
            );
            let x = f32::from_bits(E4M3.to_f32(c));
            let want = E5M2.encode(&l5, 0.5 * 6.0 * x);
            assert!(
                same_code(E5M2, structs[i].value.to_bits(), want),
                "{on:?}: {c:#x} gave {:#x}, want {want:#x}",
                structs[i].value.to_bits()
            );
            assert_eq!(structs[i].scale, 0.5);
        }
    }
}

/// The C compiles with the real NVRTC for sm_75 (the integer arithmetic) and sm_89, sm_90
/// (the cvt instructions).
#[test]
fn nvrtc_compiles_fp8() {
    let kernels = [
        ("fp8_codes", fp8_codes::kernel()),
        ("fp8_from_f32", fp8_from_f32::kernel()),
        ("fp8_from_f16", fp8_from_f16::kernel()),
        ("fp8_shuffle", fp8_shuffle::kernel()),
        ("axpy_fp8", axpy_fp8::kernel()),
        ("fp8_places", fp8_places::kernel()),
    ];
    common::nvrtc_compiles(&kernels);
    if warpspeed::compile::nvrtc_available() {
        for (name, k) in kernels {
            warpspeed::compile::compile_cubin(k.source.as_str(), (8, 9), k.options)
                .unwrap_or_else(|e| panic!("{name} does not compile for sm_89: {e}"));
        }
    }
}

/// The prelude's conversions for GPUs before sm_89 (integer arithmetic instead of `cvt`),
/// compiled for the host with `g++` (skipped where there is none): the same bits as the
/// simulator for every code, every `f16` and a million `f32`s.
#[test]
fn c_software_path_matches_the_simulator() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = std::env::temp_dir().join(format!("warpspeed-fp8-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("software");
    // Skipped only where there is no g++ with `_Float16` (a probe); a failure to build the
    // prelude itself is a failure of this test.
    let probe = dir.join("probe.cpp");
    std::fs::write(
        &probe,
        "int main() { _Float16 h = 1; return (int)(float)h - 1; }",
    )
    .unwrap();
    let usable = std::process::Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only"])
        .arg(&probe)
        .status();
    if !usable.as_ref().is_ok_and(|s| s.success()) {
        println!("SKIPPED c_software_path_matches_the_simulator: no g++ with _Float16: {usable:?}");
        return;
    }
    let built = std::process::Command::new("g++")
        .args(["-std=c++17", "-O1", "-o"])
        .arg(&exe)
        .arg(format!(
            "-DPRELUDE_FP8=\"{root}/runtime/src/prelude_fp8.cuh\""
        ))
        .arg(format!("{root}/tests/fp8_c/software.cpp"))
        .status();
    assert!(
        built.as_ref().is_ok_and(|s| s.success()),
        "the prelude's fp8 C does not build for the host: {built:?}"
    );
    let out = std::process::Command::new(&exe).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success());
    let d = out.stdout;
    let u16_at = |p: usize| u16::from_le_bytes([d[p], d[p + 1]]);
    let u32_at = |p: usize| u32::from_le_bytes(d[p..p + 4].try_into().unwrap());
    let mut p = 0;
    for c in codes() {
        let (a, b) = (e4m3::from_bits(c), e5m2::from_bits(c));
        assert_eq!(u16_at(p), a.to_f16().to_bits(), "e4m3 {c:#x} to f16");
        assert_eq!(u16_at(p + 2), b.to_f16().to_bits(), "e5m2 {c:#x} to f16");
        assert_eq!(u32_at(p + 4), a.to_f32().to_bits(), "e4m3 {c:#x} to f32");
        assert_eq!(u32_at(p + 8), b.to_f32().to_bits(), "e5m2 {c:#x} to f32");
        p += 12;
    }
    for h in 0..=u16::MAX {
        let x = f16::from_bits(h);
        assert_eq!(d[p], e4m3::from_f16(x).to_bits(), "f16 {h:#x} to e4m3");
        assert_eq!(d[p + 1], e5m2::from_f16(x).to_bits(), "f16 {h:#x} to e5m2");
        p += 2;
    }
    let mut n = 0;
    while p < d.len() {
        let x = f32::from_bits(u32_at(p));
        assert_eq!(d[p + 4], e4m3::from_f32(x).to_bits(), "{x:e} to e4m3");
        assert_eq!(d[p + 5], e5m2::from_f32(x).to_bits(), "{x:e} to e5m2");
        p += 6;
        n += 1;
    }
    assert_eq!(n, 1 << 20);
}
