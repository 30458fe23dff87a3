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

// ---------------------------------------------------------------- module-level constants

const N: usize = 8;
const SCALE: f32 = 2.5;
const SHIFT: u32 = 3;
const NEG: i64 = i64::MIN + 70;
const LIMIT: u8 = 200;
const FLAG: bool = true;
const TINY: f64 = f64::MIN_POSITIVE;
const QUIET: f32 = f32::NAN;

mod config {
    pub const BLOCK: usize = 64;
    pub const BIAS: i32 = -17;
}
use config::BLOCK;
use core::f32::consts::PI;

/// Module constants as values (each typed by its use), as local and shared array lengths,
/// converted with `as` where nothing else gives their type, by path and through `use`.
#[gpu_kernel]
fn module_consts(x: &[f32], out: &mut [f32], ints: &mut [i64], bytes: &[u8], small: &mut [u8]) {
    let tile = SharedArray::<f32, BLOCK>::new();
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * config::BLOCK + t;
    let mut acc: [f32; N] = [0.0; N];
    for k in 0..N {
        acc[k] = k as f32 * SCALE;
    }
    let mut rows = [[0i32; N]; 2];
    rows[1][N - 1] = config::BIAS;
    if i < x.len() {
        tile[t] = x[i] * PI;
    }
    sync_threads();
    if i < x.len() {
        let mut s = tile[(t + 1) % BLOCK];
        for k in 0..N {
            s += acc[k];
        }
        out[i] = s;
        let bits = (i as u32) << SHIFT;
        let flagged = if FLAG { 1i64 } else { 0 };
        ints[i] = NEG + bits as i64 + rows[1][N - 1] as i64 + flagged + (N as i64) * 1000;
        small[i] = if bytes[i] > LIMIT { LIMIT } else { bytes[i] };
    }
    if i == 0 {
        // A constant whose type nothing around it fixes is bound with its type.
        let tiny: f64 = TINY;
        let quiet: f32 = QUIET;
        out[0] = (tiny * 2.0) as f32 + quiet.min(1.0) + BLOCK as f32;
    }
}

fn module_consts_host(x: &[f32], bytes: &[u8]) -> (Vec<f32>, Vec<i64>, Vec<u8>) {
    let n = x.len();
    let acc: Vec<f32> = (0..N).map(|k| k as f32 * SCALE).collect();
    let mut out = vec![0.0f32; n];
    let mut ints = vec![0i64; n];
    let mut small = vec![0u8; n];
    for i in 0..n {
        let (b, t) = (i / BLOCK, i % BLOCK);
        let j = b * BLOCK + (t + 1) % BLOCK;
        let mut s = if j < n { x[j] * PI } else { f32::NAN };
        for a in &acc {
            s += a;
        }
        out[i] = s;
        let bits = (i as u32) << SHIFT;
        ints[i] = NEG + bits as i64 + config::BIAS as i64 + 1 + (N as i64) * 1000;
        small[i] = bytes[i].min(LIMIT);
    }
    out[0] = (TINY * 2.0) as f32 + QUIET.min(1.0) + BLOCK as f32;
    (out, ints, small)
}

#[test]
fn module_constants() {
    let mut rng = Rng::new(5);
    // Whole blocks, so every thread's neighbour in the tile was loaded.
    let n = BLOCK * 20;
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let bytes: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
    let (want_out, want_ints, want_small) = module_consts_host(&x, &bytes);
    for dev in devices("module_constants") {
        let (dx, db) = (dev.upload(&x).unwrap(), dev.upload(&bytes).unwrap());
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut ints = dev.upload(&vec![7i64; n]).unwrap();
        let mut small = dev.upload(&vec![7u8; n]).unwrap();
        let cfg = LaunchConfig::new((n / BLOCK) as u32, BLOCK as u32);
        module_consts::launch(&dev, cfg, &dx, &mut out, &mut ints, &db, &mut small).unwrap();
        let out: Vec<u32> = out
            .download()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let want: Vec<u32> = want_out.iter().map(|v| v.to_bits()).collect();
        assert_eq!(out, want, "{:?}", dev.backend());
        assert_eq!(ints.download().unwrap(), want_ints, "{:?}", dev.backend());
        assert_eq!(small.download().unwrap(), want_small, "{:?}", dev.backend());
    }
}

/// The C program defines each constant from the value rustc computed.
#[test]
fn module_constants_reach_the_c() {
    let src = module_consts::CUDA_SOURCE.as_str();
    assert!(
        src.contains("#define ws_c0_BLOCK ((unsigned long long)64ull)"),
        "{src}"
    );
    assert!(
        src.contains(&format!("__int_as_float(0x{:08x})", SCALE.to_bits())),
        "{src}"
    );
    assert!(
        src.contains(&format!("__int_as_float(0x{:08x})", QUIET.to_bits())),
        "{src}"
    );
    assert!(
        src.contains("((long long)(-9223372036854775737ll - 1ll))"),
        "{src}"
    );
}

mod other {
    use warpspeed::prelude::*;
    /// Another `N`, of another type and value, in the same C program as the kernel's.
    pub const N: u32 = 3;

    #[gpu_device]
    pub fn times_n(x: u32) -> u32 {
        let a = [N; 2];
        x * N + a[1]
    }
}

#[gpu_kernel]
fn two_ns(out: &mut [u32]) {
    let i = grid_1d();
    if i < out.len() {
        let v: u32 = other::times_n(i as u32);
        out[i] = v + N as u32;
    }
}

#[test]
fn each_function_sees_its_own_constants() {
    let n = 300;
    for dev in devices("each_function_sees_its_own_constants") {
        let mut out = dev.upload(&vec![0u32; n]).unwrap();
        two_ns::launch(&dev, LaunchConfig::for_num_elems(n as u32), &mut out).unwrap();
        let want: Vec<u32> = (0..n as u32)
            .map(|i| i * other::N + other::N + N as u32)
            .collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

const TILE: usize = 16;

/// A tiled transpose with a padded 2-D shared tile whose sizes are constant expressions,
/// and a local array of `2 * N` elements.
#[gpu_kernel]
fn transpose_tiles(input: &[u32], out: &mut [u32], sums: &mut [u32], n: usize) {
    let tile = SharedArray::<[u32; { TILE + 1 }], TILE>::new();
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (bx, by) = (block_idx().x as usize * TILE, block_idx().y as usize * TILE);
    if by + ty < n && bx + tx < n {
        tile[ty][tx] = input[(by + ty) * n + bx + tx];
    }
    sync_threads();
    if bx + ty < n && by + tx < n {
        out[(bx + ty) * n + by + tx] = tile[tx][ty];
    }
    let mut twice = [0u32; 2 * N];
    for k in 0..2 * N {
        twice[k] = k as u32 + tile.len() as u32;
    }
    let mut s = 0u32;
    for k in 0..2 * N {
        s += twice[k];
    }
    if tx == 0 && ty == 0 {
        sums[block_idx().y as usize * grid_dim().x as usize + block_idx().x as usize] = s;
    }
}

#[test]
fn constant_expressions_as_lengths() {
    let mut rng = Rng::new(21);
    let n: usize = 50; // not a multiple of TILE: the edge blocks are partial
    let input: Vec<u32> = (0..n * n).map(|_| rng.next_u32()).collect();
    let blocks = n.div_ceil(TILE);
    let want: Vec<u32> = (0..n * n).map(|k| input[(k % n) * n + k / n]).collect();
    let sum: u32 = (0..2 * N as u32).map(|k| k + TILE as u32).sum();
    for dev in devices("constant_expressions_as_lengths") {
        let d = dev.upload(&input).unwrap();
        let mut out = dev.upload(&vec![0u32; n * n]).unwrap();
        let mut sums = dev.upload(&vec![0u32; blocks * blocks]).unwrap();
        let cfg = LaunchConfig::new((blocks as u32, blocks as u32), (TILE as u32, TILE as u32));
        transpose_tiles::launch(&dev, cfg, &d, &mut out, &mut sums, n).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
        assert_eq!(
            sums.download().unwrap(),
            vec![sum; blocks * blocks],
            "{:?}",
            dev.backend()
        );
    }
}

/// Every kernel of this file, for the NVRTC check.
fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![
        ("numeric_consts", &numeric_consts::KERNEL),
        ("degrees_to_turns", &degrees_to_turns::KERNEL),
        ("module_consts", &module_consts::KERNEL),
        ("two_ns", &two_ns::KERNEL),
        ("transpose_tiles", &transpose_tiles::KERNEL),
    ]
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&kernels());
}
