//! Constants in kernels (docs/language.md, "Constants"): the standard library's numeric
//! constants (`u32::BITS`, `f32::MIN_POSITIVE`, `core::f32::consts::PI`, ...), written into
//! memory bit for bit and used in arithmetic, on the simulator and on the GPU where there is
//! one, each against the value Rust has on the host; and NVRTC compiles every kernel here.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, Rng};

#[gpu_kernel]
fn numeric_consts(ints: &mut [i64], f32s: &mut [f32], f64s: &mut [f64]) {
    ints[0] = u32::BITS as i64;
    ints[1] = i8::BITS as i64;
    ints[2] = u64::BITS as i64;
    ints[3] = i16::MIN as i64;
    ints[4] = i64::MIN;
    ints[5] = i64::MAX;
    ints[6] = u16::MAX as i64;
    ints[7] = f32::MANTISSA_DIGITS as i64;
    ints[8] = f64::MIN_EXP as i64;
    ints[9] = f32::MAX_10_EXP as i64;
    ints[10] = (usize::BITS - 1) as i64;
    ints[11] = isize::MIN as i64;
    f32s[0] = f32::MIN_POSITIVE;
    f32s[1] = f32::EPSILON;
    f32s[2] = f32::MAX;
    f32s[3] = f32::MIN;
    f32s[4] = f32::INFINITY;
    f32s[5] = f32::NEG_INFINITY;
    f32s[6] = f32::NAN;
    f32s[7] = core::f32::consts::PI;
    f32s[8] = std::f32::consts::FRAC_1_SQRT_2;
    f32s[9] = core::f32::consts::LN_2;
    f32s[10] = core::f32::consts::TAU;
    f64s[0] = f64::MIN_POSITIVE;
    f64s[1] = f64::EPSILON;
    f64s[2] = f64::MAX;
    f64s[3] = f64::NAN;
    f64s[4] = std::f64::consts::PI;
    f64s[5] = core::f64::consts::E;
    f64s[6] = core::f64::consts::LOG2_10;
    f64s[7] = std::f64::consts::FRAC_2_SQRT_PI;
}

#[test]
fn numeric_constants_are_rusts_bits() {
    let ints: [i64; 12] = [
        u32::BITS as i64,
        i8::BITS as i64,
        u64::BITS as i64,
        i16::MIN as i64,
        i64::MIN,
        i64::MAX,
        u16::MAX as i64,
        f32::MANTISSA_DIGITS as i64,
        f64::MIN_EXP as i64,
        f32::MAX_10_EXP as i64,
        (usize::BITS - 1) as i64,
        isize::MIN as i64,
    ];
    let f32s: [f32; 11] = [
        f32::MIN_POSITIVE,
        f32::EPSILON,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        core::f32::consts::PI,
        std::f32::consts::FRAC_1_SQRT_2,
        core::f32::consts::LN_2,
        core::f32::consts::TAU,
    ];
    let f64s: [f64; 8] = [
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::MAX,
        f64::NAN,
        std::f64::consts::PI,
        core::f64::consts::E,
        core::f64::consts::LOG2_10,
        std::f64::consts::FRAC_2_SQRT_PI,
    ];
    for dev in devices("numeric_constants_are_rusts_bits") {
        // Poisoned first, so a constant never written shows.
        let mut di = dev.upload(&[7i64; 12]).unwrap();
        let mut df = dev.upload(&[7.0f32; 11]).unwrap();
        let mut dd = dev.upload(&[7.0f64; 8]).unwrap();
        numeric_consts::launch(&dev, LaunchConfig::new(1, 1), &mut di, &mut df, &mut dd).unwrap();
        assert_eq!(di.download().unwrap(), ints, "{:?}", dev.backend());
        let bits32: Vec<u32> = df.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let want32: Vec<u32> = f32s.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits32, want32, "{:?}", dev.backend());
        let bits64: Vec<u64> = dd.download().unwrap().iter().map(|x| x.to_bits()).collect();
        let want64: Vec<u64> = f64s.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits64, want64, "{:?}", dev.backend());
    }
}

#[gpu_kernel]
fn degrees_to_turns(deg: &[f32], out: &mut [f32], bits: &mut [u32]) {
    let i = grid_1d();
    if i < deg.len() {
        let rad = deg[i] * (core::f32::consts::PI / 180.0);
        out[i] = rad / core::f32::consts::TAU + f32::EPSILON;
        // The top set bit of the index, counted from u32::BITS.
        bits[i] = u32::BITS - (i as u32 + 1).leading_zeros();
    }
}

#[test]
fn numeric_constants_in_arithmetic() {
    let mut rng = Rng::new(11);
    let n = 1000;
    let deg: Vec<f32> = (0..n).map(|_| rng.range_f32(-360.0, 360.0)).collect();
    for dev in devices("numeric_constants_in_arithmetic") {
        let d = dev.upload(&deg).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut bits = dev.upload(&vec![u32::MAX; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        degrees_to_turns::launch(&dev, cfg, &d, &mut out, &mut bits).unwrap();
        let (out, bits) = (out.download().unwrap(), bits.download().unwrap());
        for i in 0..n {
            let rad = deg[i] * (core::f32::consts::PI / 180.0);
            let want = rad / core::f32::consts::TAU + f32::EPSILON;
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "{:?} at {i}",
                dev.backend()
            );
            assert_eq!(bits[i], u32::BITS - (i as u32 + 1).leading_zeros());
        }
    }
}

/// Every kernel of this file, for the NVRTC check.
fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![
        ("numeric_consts", &numeric_consts::KERNEL),
        ("degrees_to_turns", &degrees_to_turns::KERNEL),
    ]
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&kernels());
}
