//! The property test's harness (tests/semantics_prop.rs says what it checks): inputs with
//! edge values, the host C++ build of the emitted C, the comparisons. Shared by the
//! checked-in set (semantics_prop.rs) and the large opt-in one (semantics_prop_large.rs).

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use warpspeed::prelude::*;
pub use warpspeed::{Backend, Device, LaunchConfig};

pub const N: usize = 512;
const TRANS_ULPS: u64 = 8;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
    Bool,
}
pub use Ty::*;

impl Ty {
    fn bytes(self) -> usize {
        match self {
            I8 | U8 | Bool => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            _ => 8,
        }
    }
    fn c_name(self) -> &'static str {
        match self {
            I8 => "signed char",
            I16 => "short",
            I32 => "int",
            I64 | Isize => "long long",
            U8 => "unsigned char",
            U16 => "unsigned short",
            U32 => "unsigned int",
            U64 | Usize => "unsigned long long",
            F32 => "float",
            F64 => "double",
            Bool => "bool",
        }
    }
    fn is_float(self) -> bool {
        matches!(self, F32 | F64)
    }
    /// Shows the value stored in `bits` as Rust would print it.
    fn show(self, b: u64) -> String {
        match self {
            I8 => format!("{}", b as u8 as i8),
            I16 => format!("{}", b as u16 as i16),
            I32 => format!("{}", b as u32 as i32),
            I64 | Isize => format!("{}", b as i64),
            U8 | U16 | U32 | U64 | Usize => format!("{b}"),
            F32 => format!("{:e} ({:#010x})", f32::from_bits(b as u32), b),
            F64 => format!("{:e} ({:#018x})", f64::from_bits(b), b),
            Bool => format!("{}", b != 0),
        }
    }
}

/// A kernel scalar as raw bits in a u64 (zero-extended).
pub trait Bits: Copy {
    fn from_bits(b: u64) -> Self;
    fn to_bits64(self) -> u64;
}
macro_rules! int_bits {
    ($($t:ty => $u:ty),*) => {$(
        impl Bits for $t {
            fn from_bits(b: u64) -> Self { b as $u as $t }
            fn to_bits64(self) -> u64 { self as $u as u64 }
        }
    )*};
}
int_bits!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => u64, u8 => u8, u16 => u16,
          u32 => u32, u64 => u64, usize => u64);
impl Bits for f32 {
    fn from_bits(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
}
impl Bits for f64 {
    fn from_bits(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
}
impl Bits for bool {
    fn from_bits(b: u64) -> Self {
        b != 0
    }
    fn to_bits64(self) -> u64 {
        self as u64
    }
}
pub fn from_bits<T: Bits>(v: &[u64]) -> Vec<T> {
    v.iter().map(|&b| T::from_bits(b)).collect()
}
pub fn to_bits<T: Bits>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits64()).collect()
}

pub type Launch = fn(&Device, &[Vec<u64>]) -> warpspeed::Result<Vec<u64>>;

pub struct Case {
    pub name: &'static str,
    pub expr: &'static str,
    pub params: &'static [Ty],
    pub out: Ty,
    pub transcendental: bool,
    pub source: fn() -> &'static str,
    pub launch: Launch,
    pub reference: fn(&[u64]) -> u64,
}

// ---------------------------------------------------------------- inputs

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn int_edges(bits: u32, signed: bool) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut v: Vec<i128> = vec![
        0, 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255, 256,
    ];
    v.extend([
        65535,
        65536,
        1 << 31,
        (1 << 31) - 1,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
    ]);
    v.extend([
        1 << 62,
        (1 << 63) - 1,
        1 << 63,
        -1,
        -2,
        -3,
        -31,
        -32,
        -33,
        -64,
        -100,
        -128,
    ]);
    v.extend([-129, -32768, -(1 << 31), -(1 << 31) - 1, -(1 << 63)]);
    let (min, max): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    v.extend([min, max, min + 1, max - 1]);
    v.iter().map(|&x| (x as u64) & mask).collect()
}

fn f64_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        0.49999999999999994,
        1.5,
        2.5,
        -2.5,
        0.1,
        3.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        5e-324,
        -5e-324,
        2.225_073_858_507_201e-308, // the largest subnormal
        127.9,
        128.0,
        -128.0,
        -128.9,
        -129.0,
        255.0,
        255.9,
        256.0,
        32767.5,
        -32768.9,
        65535.9,
        65536.0,
        2147483647.0,
        2147483647.5,
        2147483648.0,
        -2147483648.0,
        -2147483648.9,
        -2147483649.0,
        4294967295.0,
        4294967295.9,
        4294967296.0,
        9.223372036854775e18,
        9223372036854775808.0,
        -9223372036854775808.0,
        -9.223372036854778e18,
        18446744073709549568.0,
        18446744073709551616.0,
        1e300,
        -1e300,
        1e-300,
        3.4028235e38,
        3.4028236e38,
        1e39,
        1.401298464324817e-45,
        1.1754943508222875e-38,
        16777217.0,
        1e10,
        -1e10,
        2.0f64.powi(52) + 0.5,
        2.0f64.powi(53) + 1.0,
    ];
    v.extend((1..8).map(|k| k as f64 * 0.25 - 1.0));
    v
}

fn f32_edges() -> Vec<f32> {
    let mut v: Vec<f32> = f64_edges().iter().map(|&x| x as f32).collect();
    v.extend([
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        f32::EPSILON,
        f32::from_bits(1),
    ]);
    v.extend([
        f32::from_bits(0x807f_ffff),
        f32::from_bits(0x4effffff),
        2147483520.0,
    ]);
    v.extend([
        9.2233715e18,
        9.223373e18,
        1.8446743e19,
        1.8446745e19,
        16777215.0,
    ]);
    v
}

/// `n` inputs of type `t`: about 40% edge values, the rest random bits or small values.
fn inputs(t: Ty, rng: &mut Rng, n: usize) -> Vec<u64> {
    let (bits, signed) = match t {
        I8 => (8, true),
        I16 => (16, true),
        I32 => (32, true),
        I64 | Isize => (64, true),
        U8 => (8, false),
        U16 => (16, false),
        U32 => (32, false),
        U64 | Usize => (64, false),
        F32 | F64 | Bool => (0, false),
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let r = rng.below(100);
        let v = match t {
            Bool => rng.below(2),
            F32 => {
                let e = f32_edges();
                let x: f32 = if r < 40 {
                    e[rng.below(e.len() as u64) as usize]
                } else if r < 60 {
                    f32::from_bits(rng.next() as u32)
                } else if r < 80 {
                    (rng.below(20001) as f32 - 10000.0) / 8.0
                } else {
                    (rng.next() as i64 as f64 / 2f64.powi(rng.below(64) as i32)) as f32
                };
                x.to_bits() as u64
            }
            F64 => {
                let e = f64_edges();
                let x: f64 = if r < 40 {
                    e[rng.below(e.len() as u64) as usize]
                } else if r < 60 {
                    f64::from_bits(rng.next())
                } else if r < 80 {
                    (rng.below(20001) as f64 - 10000.0) / 8.0
                } else {
                    rng.next() as i64 as f64 / 2f64.powi(rng.below(64) as i32)
                };
                x.to_bits()
            }
            _ => {
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                if r < 40 {
                    let e = int_edges(bits, signed);
                    e[rng.below(e.len() as u64) as usize]
                } else if r < 70 {
                    rng.next() & mask
                } else {
                    ((rng.below(201) as i64 - 100) as u64) & mask
                }
            }
        };
        out.push(v);
    }
    out
}

fn case_inputs(idx: usize, case: &Case) -> Vec<Vec<u64>> {
    let mut rng = Rng(0x5eed ^ (idx as u64).wrapping_mul(0x1000_0000_01b3));
    case.params
        .iter()
        .map(|&t| inputs(t, &mut rng, N))
        .collect()
}

// ---------------------------------------------------------------- comparison

fn ordered(t: Ty, b: u64) -> i128 {
    // Maps float bits to integers whose order is the float order, for ulp distances.
    match t {
        F32 => {
            let s = b as u32 as i32;
            (if s < 0 { i32::MIN.wrapping_sub(s) } else { s }) as i128
        }
        _ => {
            let s = b as i64;
            (if s < 0 { i64::MIN.wrapping_sub(s) } else { s }) as i128
        }
    }
}

fn is_nan(t: Ty, b: u64) -> bool {
    match t {
        F32 => f32::from_bits(b as u32).is_nan(),
        F64 => f64::from_bits(b).is_nan(),
        _ => false,
    }
}

fn same(case: &Case, want: u64, got: u64) -> bool {
    let t = case.out;
    if want == got {
        return true;
    }
    if !t.is_float() {
        return false;
    }
    if is_nan(t, want) && is_nan(t, got) {
        return true;
    }
    if case.transcendental && !is_nan(t, want) && !is_nan(t, got) {
        return (ordered(t, want) - ordered(t, got)).unsigned_abs() <= TRANS_ULPS as u128;
    }
    false
}

/// Compares `got` with `want`; describes up to 3 mismatching threads.
fn compare(
    case: &Case,
    ins: &[Vec<u64>],
    want_name: &str,
    want: &[u64],
    got_name: &str,
    got: &[u64],
    report: &mut String,
) -> bool {
    let bad: Vec<usize> = (0..N).filter(|&i| !same(case, want[i], got[i])).collect();
    if bad.is_empty() {
        return true;
    }
    let _ = writeln!(
        report,
        "\n{} ({} of {N} threads differ): out: {:?} = {}",
        case.name,
        bad.len(),
        case.out,
        case.expr
    );
    for &i in bad.iter().take(3) {
        let args: Vec<String> = case
            .params
            .iter()
            .enumerate()
            .map(|(j, t)| format!("x{j}: {:?} = {}", t, t.show(ins[j][i])))
            .collect();
        let _ = writeln!(
            report,
            "  thread {i}: {}\n    {want_name}: {}\n    {got_name}: {}",
            args.join(", "),
            case.out.show(want[i]),
            case.out.show(got[i])
        );
    }
    false
}

// ---------------------------------------------------------------- host C++

const SHIM: &str = r#"// Host stand-ins for what the emitted CUDA C uses, with CUDA's semantics.
#include <cmath>
#include <math.h>
#include <climits>
#include <cstring>
#include <cstdlib>
#define WS_HOST_SHIM
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
struct ws_host_uint3 { unsigned int x, y, z; };
extern ws_host_uint3 threadIdx, blockIdx, blockDim, gridDim;
// cvt.rzi.{s,u}{32,64}.f{32,64}: truncate toward zero, saturate to the range. NaN gives
// MIN/MAX here, as sm_90 was seen to do for some widths (PTX documents 0): the emitted C
// must not rely on the intrinsic for NaN.
static inline int ws_h_i32(double d) { if (d != d) return INT_MIN; if (d >= 2147483648.0) return INT_MAX; if (d <= -2147483649.0) return INT_MIN; return (int)d; }
static inline unsigned int ws_h_u32(double d) { if (d != d) return UINT_MAX; if (d >= 4294967296.0) return UINT_MAX; if (d <= -1.0) return 0; return (unsigned int)d; }
static inline long long ws_h_i64(double d) { if (d != d) return LLONG_MIN; if (d >= 9223372036854775808.0) return LLONG_MAX; if (d < -9223372036854775808.0) return LLONG_MIN; return (long long)d; }
static inline unsigned long long ws_h_u64(double d) { if (d != d) return ULLONG_MAX; if (d >= 18446744073709551616.0) return ULLONG_MAX; if (d <= -1.0) return 0; return (unsigned long long)d; }
static inline int __float2int_rz(float x) { return ws_h_i32(x); }
static inline unsigned int __float2uint_rz(float x) { return ws_h_u32(x); }
static inline long long __float2ll_rz(float x) { return ws_h_i64(x); }
static inline unsigned long long __float2ull_rz(float x) { return ws_h_u64(x); }
static inline int __double2int_rz(double x) { return ws_h_i32(x); }
static inline unsigned int __double2uint_rz(double x) { return ws_h_u32(x); }
static inline long long __double2ll_rz(double x) { return ws_h_i64(x); }
static inline unsigned long long __double2ull_rz(double x) { return ws_h_u64(x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
// fminf/fmaxf as CUDA's (PTX min/max): a NaN operand, quiet or signalling, yields the
// other operand, as Rust's f32::min does; glibc's fminf turns a signalling NaN into NaN.
template <typename F> static inline F ws_h_min(F a, F b) { if (a != a) return b; if (b != b) return a; return b < a ? b : a; }
template <typename F> static inline F ws_h_max(F a, F b) { if (a != a) return b; if (b != b) return a; return b > a ? b : a; }
#define fminf ws_h_min<float>
#define fmaxf ws_h_max<float>
#define fmin ws_h_min<double>
#define fmax ws_h_max<double>
// Bounds checks: the generated kernels index in bounds; an index out of them aborts.
template <typename T> static inline T* ws_at(T* p, unsigned long long i, unsigned long long n, unsigned int, const char*) { if (i >= n) abort(); return p + i; }
template <typename T> static inline T ws_ld(const T* p, unsigned long long i, unsigned long long n, unsigned int, const char*) { if (i >= n) abort(); return p[i]; }
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float __uint_as_float(unsigned int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned int __float_as_uint(float x) { unsigned int u; std::memcpy(&u, &x, 4); return u; }
static inline long long __double_as_longlong(double x) { long long u; std::memcpy(&u, &x, 8); return u; }
static inline unsigned int __brev(unsigned int x) { unsigned int r = 0; for (int i = 0; i < 32; i++) { r = (r << 1) | (x & 1u); x >>= 1; } return r; }
static inline unsigned long long __brevll(unsigned long long x) { unsigned long long r = 0; for (int i = 0; i < 64; i++) { r = (r << 1) | (x & 1ull); x >>= 1; } return r; }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * (__int128)b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * (unsigned __int128)b) >> 64); }
static inline double __longlong_as_double(long long x) { double f; std::memcpy(&f, &x, 8); return f; }
"#;

fn which(prog: &str) -> bool {
    Command::new(prog)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn work_dir() -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let d = base.join(format!("warpspeed-semantics-prop-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Builds every case's emitted C as host C++ (in parallel translation units), runs all
/// threads of all cases, and returns each case's outputs as bits.
fn run_host_cpp(cases: &[Case], ins: &[Vec<Vec<u64>>], dir: &Path) -> Vec<Vec<u64>> {
    std::fs::write(dir.join("shim.h"), SHIM).unwrap();
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8);
    let ubsan = std::env::var_os("WARPSPEED_PROP_NO_UBSAN").is_none();
    let mut flags: Vec<&str> = vec![
        "-std=c++17",
        "-O1",
        "-ffp-contract=off",
        "-fno-fast-math",
        "-w",
    ];
    if ubsan {
        flags.extend(["-fsanitize=undefined", "-fno-sanitize-recover=all"]);
    }
    // Kernel translation units: each case's whole source in its own namespace.
    let mut units = vec![String::from("#include \"shim.h\"\n"); jobs];
    for (k, c) in cases.iter().enumerate() {
        let u = &mut units[k % jobs];
        let _ = write!(u, "namespace ws_case_{} {{\n{}\n}}\n", c.name, (c.source)());
    }
    // The driver: reads every input, runs every thread, writes every output.
    let mut m = String::from("#include \"shim.h\"\n#include <cstdio>\n#include <cstdlib>\n");
    m.push_str("ws_host_uint3 threadIdx, blockIdx, blockDim, gridDim;\n");
    m.push_str(
        "static void* rd(FILE* f, size_t bytes) { void* p = malloc(bytes ? bytes : 1); \
         if (fread(p, 1, bytes, f) != bytes) { fprintf(stderr, \"short read\\n\"); exit(2); } return p; }\n",
    );
    for c in cases {
        let mut ps = Vec::new();
        for t in c.params {
            ps.push(format!("const {}*", t.c_name()));
            ps.push("unsigned long long".into());
        }
        ps.push(format!("{}*", c.out.c_name()));
        ps.push("unsigned long long".into());
        let _ = writeln!(m, "extern \"C\" void {}({});", c.name, ps.join(", "));
    }
    let _ = writeln!(
        m,
        "int main(int argc, char** argv) {{\n  FILE* in = fopen(argv[1], \"rb\"); FILE* out = fopen(argv[2], \"wb\");\n  \
         if (!in || !out) return 3;\n  const unsigned long long n = {N}ull;\n  \
         blockDim.x = 256; blockDim.y = blockDim.z = 1; gridDim.x = (unsigned)((n + 255) / 256); gridDim.y = gridDim.z = 1;"
    );
    for c in cases {
        m.push_str("  {\n");
        let mut args = Vec::new();
        for (j, t) in c.params.iter().enumerate() {
            let _ = writeln!(
                m,
                "    {0}* a{j} = ({0}*)rd(in, n * {1});",
                t.c_name(),
                t.bytes()
            );
            args.push(format!("a{j}, n"));
        }
        let _ = writeln!(
            m,
            "    {0}* o = ({0}*)calloc(n, {1});",
            c.out.c_name(),
            c.out.bytes()
        );
        let _ = writeln!(
            m,
            "    for (unsigned long long t = 0; t < n; t++) {{ blockIdx.x = (unsigned)(t / 256); threadIdx.x = (unsigned)(t % 256); {}({}, o, n); }}",
            c.name,
            args.join(", ")
        );
        let _ = writeln!(m, "    fwrite(o, {}, n, out); free(o);", c.out.bytes());
        for j in 0..c.params.len() {
            let _ = writeln!(m, "    free(a{j});");
        }
        m.push_str("  }\n");
    }
    m.push_str("  fclose(out); return 0;\n}\n");
    std::fs::write(dir.join("main.cpp"), m).unwrap();
    let mut children = Vec::new();
    for (j, u) in units.iter().enumerate() {
        let src = dir.join(format!("unit{j}.cpp"));
        std::fs::write(&src, u).unwrap();
        let child = Command::new("g++")
            .args(&flags)
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(dir.join(format!("unit{j}.o")))
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("g++");
        children.push(child);
    }
    for ch in children {
        let o = ch.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "g++ failed on the emitted C (sources in {}):\n{}",
            dir.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let exe = dir.join("driver");
    let mut link = Command::new("g++");
    link.args(&flags).arg(dir.join("main.cpp"));
    for j in 0..units.len() {
        link.arg(dir.join(format!("unit{j}.o")));
    }
    let o = link.arg("-o").arg(&exe).output().unwrap();
    assert!(
        o.status.success(),
        "g++ link failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let mut input = Vec::new();
    for (c, ins) in cases.iter().zip(ins) {
        for (t, v) in c.params.iter().zip(ins) {
            for &b in v {
                input.extend_from_slice(&b.to_le_bytes()[..t.bytes()]);
            }
        }
    }
    std::fs::write(dir.join("in.bin"), input).unwrap();
    let o = Command::new(&exe)
        .arg(dir.join("in.bin"))
        .arg(dir.join("out.bin"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "the host C++ driver failed (UBSan finds C undefined behaviour in the emitted code; \
         sources in {}):\n{}",
        dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(dir.join("out.bin")).unwrap();
    let mut pos = 0;
    let mut outs = Vec::new();
    for c in cases {
        let w = c.out.bytes();
        let mut v = Vec::with_capacity(N);
        for _ in 0..N {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(&bytes[pos..pos + w]);
            pos += w;
            v.push(u64::from_le_bytes(b));
        }
        outs.push(v);
    }
    assert_eq!(pos, bytes.len());
    outs
}

// ---------------------------------------------------------------- the test

/// Runs every case on the simulator, as plain Rust (release builds), as host C++ and on
/// the GPU where there is one, and fails with a report of the disagreements.
pub fn agree_bit_for_bit(cases: &[Case]) {
    let ins: Vec<Vec<Vec<u64>>> = cases
        .iter()
        .enumerate()
        .map(|(k, c)| case_inputs(k, c))
        .collect();
    let mut report = String::new();
    let mut failed = 0usize;

    // (a) The simulator: the macro's emitted Rust.
    let sim = Device::simulator();
    let sim_out: Vec<Vec<u64>> = cases
        .iter()
        .zip(&ins)
        .map(|(c, i)| (c.launch)(&sim, i).unwrap_or_else(|e| panic!("{}: simulator: {e}", c.name)))
        .collect();

    // Plain Rust, typed by rustc: the reference for the simulator.
    if cfg!(debug_assertions) {
        println!("semantics_prop: debug build: plain-Rust reference skipped (it would panic on overflow); run with --release");
    } else {
        for ((c, i), s) in cases.iter().zip(&ins).zip(&sim_out) {
            let want: Vec<u64> = (0..N)
                .map(|t| {
                    let row: Vec<u64> = i.iter().map(|v| v[t]).collect();
                    (c.reference)(&row)
                })
                .collect();
            if !compare(c, i, "plain Rust", &want, "simulator", s, &mut report) {
                failed += 1;
            }
        }
    }

    // (b) The emitted C as host C++.
    let require_gxx = std::env::var("WARPSPEED_REQUIRE_GXX").is_ok_and(|v| v == "1");
    if which("g++") {
        let dir = work_dir();
        let t0 = std::time::Instant::now();
        let host = run_host_cpp(cases, &ins, &dir);
        println!(
            "semantics_prop: host C++ ({} cases) in {:.1?}",
            cases.len(),
            t0.elapsed()
        );
        for ((c, i), (s, h)) in cases.iter().zip(&ins).zip(sim_out.iter().zip(&host)) {
            if !compare(c, i, "simulator", s, "host C++", h, &mut report) {
                failed += 1;
            }
        }
        if failed == 0 {
            let _ = std::fs::remove_dir_all(&dir);
        }
    } else if require_gxx {
        panic!("WARPSPEED_REQUIRE_GXX=1 but g++ was not found");
    } else {
        println!("semantics_prop: g++ not found: host C++ comparison skipped");
    }

    // (c) The GPU.
    let require_gpu = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");
    let dev = Device::new().expect("Device::new");
    if dev.backend() == Backend::Simulator {
        assert!(!require_gpu, "WARPSPEED_REQUIRE_GPU=1 but no GPU was found");
        println!("semantics_prop: no GPU: GPU comparison skipped");
    } else {
        let t0 = std::time::Instant::now();
        let gpu_out = launch_on_threads(&dev, cases, &ins);
        for (((c, i), s), g) in cases.iter().zip(&ins).zip(&sim_out).zip(gpu_out) {
            match g {
                Ok(g) => {
                    if !compare(c, i, "simulator", s, "GPU", &g, &mut report) {
                        failed += 1;
                    }
                }
                Err(e) => {
                    failed += 1;
                    let _ = writeln!(report, "\n{}: GPU launch failed: {e}\n  {}", c.name, c.expr);
                }
            }
        }
        println!(
            "semantics_prop: GPU ({}) in {:.1?}",
            dev.name(),
            t0.elapsed()
        );
    }

    assert!(failed == 0, "{failed} comparisons failed:{report}");
}

/// Every case launched on `dev`, from as many host threads as the machine has cores (at
/// most 16): each first launch compiles its kernel with NVRTC, which is most of the time,
/// and the runtime compiles different kernels on different threads at once. The results
/// come back in `cases`' order.
fn launch_on_threads(
    dev: &Device,
    cases: &[Case],
    ins: &[Vec<Vec<u64>>],
) -> Vec<warpspeed::Result<Vec<u64>>> {
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 16);
    let mut out: Vec<Option<warpspeed::Result<Vec<u64>>>> =
        (0..cases.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                scope.spawn(move || {
                    (j..cases.len())
                        .step_by(jobs)
                        .map(|k| (k, (cases[k].launch)(dev, &ins[k])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for w in workers {
            for (k, r) in w.join().expect("a launching thread panicked") {
                out[k] = Some(r);
            }
        }
    });
    out.into_iter()
        .map(|r| r.expect("every case launched"))
        .collect()
}

/// Every case's emitted C, each in its own namespace, compiled by NVRTC in programs of 200
/// cases (so CI without a GPU still proves NVRTC accepts it; the GPU run compiles each on
/// its own).
pub fn compile_with_nvrtc(cases: &[Case]) {
    if !warpspeed::compile::nvrtc_available() {
        assert!(
            std::env::var("WARPSPEED_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "NVRTC is required (WARPSPEED_REQUIRE_NVRTC=1) but not loadable"
        );
        println!("semantics_prop: NVRTC is not loadable here: NVRTC compile skipped");
        return;
    }
    // In programs of 200 cases: NVRTC's memory grows with the program (the 3,853 cases of
    // the large set as one program took 12 GB).
    let t0 = std::time::Instant::now();
    for chunk in cases.chunks(200) {
        let mut src = String::new();
        for c in chunk {
            let _ = write!(
                src,
                "namespace ws_case_{} {{\n{}\n}}\n",
                c.name,
                (c.source)()
            );
        }
        warpspeed::compile::compile_cubin(
            &src,
            (8, 0),
            warpspeed::KernelOptions { fast_math: false },
        )
        .unwrap_or_else(|e| panic!("NVRTC rejects the emitted C: {e}"));
    }
    println!(
        "semantics_prop: NVRTC compiled {} cases in {:.1?}",
        cases.len(),
        t0.elapsed()
    );
}
