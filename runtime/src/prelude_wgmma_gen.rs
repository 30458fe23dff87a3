//! The generator of `prelude_wgmma.cuh` (a test): one `wgmma` helper per shape
//! `.m64nNk16` or `.m64nNk8` (N every multiple of 8 from 8 to 256, [`crate::mma::WGMMA_NS`])
//! and operand type, each with its `N / 2` accumulator operands, which no one should write by hand.
//! `cargo test -p warpspeed-runtime prelude_wgmma` checks the file;
//! `WARPSPEED_BLESS=1` rewrites it.

use std::fmt::Write;

/// The operand types, one row family each: (kernel-language name of the helper suffix, C
/// type, PTX type, the shape's K, the immediates after `scale-d`). A tile row is 128 bytes
/// of K whatever the type, so K is 32 bytes. The 16-bit types take imm-scale-a,
/// imm-scale-b, imm-trans-a and imm-trans-b (1, 1: no negation; 0, 0: K-major, no
/// transpose); tf32 is K-major only and has no transpose immediates (PTX ISA,
/// `wgmma.mma_async`).
const TYPES: [(&str, &str, &str, usize, &str); 3] = [
    ("bf16", "ws_bf16", "bf16", 16, "1, 1, 0, 0"),
    ("f16", "ws_f16", "f16", 16, "1, 1, 0, 0"),
    ("tf32", "float", "tf32", 8, "1, 1"),
];

/// The whole file.
fn generate() -> String {
    let mut s = String::new();
    s.push_str(HEAD);
    for g in 0..32 {
        let r: Vec<String> = (4 * g..4 * g + 4).map(|i| format!("%{i}")).collect();
        let _ = writeln!(s, "#define WS_R{g} \"{}\"", r.join(", "));
    }
    for n in crate::mma::WGMMA_NS.step_by(8) {
        for ty in TYPES {
            for form in FORMS {
                if form.fits(n, ty.3) {
                    helper(&mut s, n, ty, form);
                }
            }
        }
    }
    s.push_str(TAIL);
    s
}

/// Where a helper's A comes from and how its B tile is laid out (the kernel language's
/// `acc.wgmma(..)` and `acc.wgmma_trans_b(..)`, with a tile or a `FragmentA` first).
#[derive(Clone, Copy)]
struct Form {
    /// A is a `FragmentA` in registers (`_rs`), not a tile in shared memory.
    regs: bool,
    /// B is MN-major (`_tb`: a K x N tile, rows of N), not K-major.
    trans_b: bool,
}

/// Every form: the tile-only one of every type and shape; with A in registers or B
/// MN-major, 16-bit types only (tf32 has no transpose, and its register A is left), and
/// MN-major B of N a multiple of 64 (whole 128-byte swizzle atoms of N).
const FORMS: [Form; 4] = [
    Form {
        regs: false,
        trans_b: false,
    },
    Form {
        regs: true,
        trans_b: false,
    },
    Form {
        regs: false,
        trans_b: true,
    },
    Form {
        regs: true,
        trans_b: true,
    },
];

impl Form {
    fn fits(self, n: usize, k: usize) -> bool {
        (k == 16 || !(self.regs || self.trans_b)) && (!self.trans_b || n.is_multiple_of(64))
    }

    /// The helper's suffix after the type.
    fn suffix(self) -> &'static str {
        match (self.regs, self.trans_b) {
            (false, false) => "",
            (true, false) => "_rs",
            (false, true) => "_tb",
            (true, true) => "_rs_tb",
        }
    }
}

/// `ws_wgmma_m64n{n}k{k}_f32_{name}{suffix}`: checks, descriptors, the instruction.
fn helper(s: &mut String, n: usize, ty: (&str, &str, &str, usize, &str), form: Form) {
    let (name, c, ptx, k, imm) = ty;
    let regs = n / 2;
    // A tile row: four slabs of K.
    let row = 4 * k;
    // Four registers a macro (`WS_R0` = "%0, %1, %2, %3", `WS_D4(0)` their operands).
    let list: Vec<String> = (0..regs / 4).map(|g| format!("WS_R{g}")).collect();
    let outs: Vec<String> = (0..regs / 4).map(|g| format!("WS_D4({})", 4 * g)).collect();
    let a_param = match form.regs {
        true => format!("const ws_frag<{c}, 8>& a"),
        false => format!("const {c}* a, unsigned long long alen"),
    };
    let rows_param = match form.trans_b {
        true => ", unsigned long long rows",
        false => "",
    };
    let _ = writeln!(
        s,
        "template <typename D> __device__ __forceinline__ void ws_wgmma_m64n{n}k{k}_f32_{name}{}(D* d, {a_param}, const {c}* b, unsigned long long blen{rows_param}, unsigned long long k, unsigned int line, const char* file) {{",
        form.suffix()
    );
    let alen = match form.regs {
        true => "~0ull".to_string(),
        false => "alen".to_string(),
    };
    let (bneed, bdesc) = match form.trans_b {
        true => (format!("{}ull", n * 16), "ws_wgmma_desc_mn(b, k, rows)"),
        false => (format!("{}ull", n * row), "ws_wgmma_desc(b, k)"),
    };
    // K slabs: a tile A's 4 (128-byte rows), an MN-major B's `rows / 16`.
    let kmax = match (form.regs, form.trans_b) {
        (_, false) => "4ull",
        (true, true) => "rows / 16ull",
        (false, true) => "(rows / 16ull < 4ull ? rows / 16ull : 4ull)",
    };
    let _ = writeln!(
        s,
        "    if (!ws_wgmma_ok({alen}, {}ull, blen, {bneed}, k, {kmax}, line, file)) return;",
        64 * row,
    );
    let (a_op, a_in) = match form.regs {
        true => (
            format!("{{%{}, %{}, %{}, %{}}}", regs, regs + 1, regs + 2, regs + 3),
            // A 16-bit fragment is held packed (prelude_mma.cuh): its words are the operands.
            "\"r\"(a.x.w[0]), \"r\"(a.x.w[1]), \"r\"(a.x.w[2]), \"r\"(a.x.w[3])".to_string(),
        ),
        false => (format!("%{regs}"), "\"l\"(ws_wgmma_desc(a, k))".to_string()),
    };
    let first = if form.regs { regs + 4 } else { regs + 1 };
    // The immediates: scale-a, scale-b (1: no negation), then trans-a (a tile's only) and
    // trans-b (16-bit types only; tf32 has none).
    let imm = match (k, form.regs) {
        (16, false) => format!("1, 1, 0, {}", u8::from(form.trans_b)),
        (16, true) => format!("1, 1, {}", u8::from(form.trans_b)),
        _ => imm.to_string(),
    };
    let _ = writeln!(
        s,
        "    asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ptx}.{ptx} {{\" {} \"}}, {a_op}, %{first}, p, {imm};\\n}}\\n\"",
        first + 1,
        list.join(" \", \" "),
    );
    let _ = writeln!(s, "        : {}", outs.join(", "));
    let _ = writeln!(s, "        : {a_in}, \"l\"({bdesc}), \"r\"(1));");
    s.push_str("}\n");
}

const HEAD: &str = r#"// ---- Hopper (docs/tensor-cores.md, "Hopper: warpgroup MMA"). GENERATED by
// runtime/src/prelude_wgmma_gen.rs (WARPSPEED_BLESS=1 cargo test -p warpspeed-runtime
// prelude_wgmma rewrites it): do not edit by hand.
// (`fence_proxy_async()`, which tiles written with plain stores need before a wgmma reads
// them, is in prelude_hopper.cuh with the TMA helpers.)
#ifndef WS_HOST_SHIM
// wgmma and setmaxnreg exist only in the target sm_90a, whose compilations define
// __CUDA_ARCH_FEAT_SM90_ALL (cuda/compile/arch.rs picks that target for a kernel that calls
// a `ws_wgmma_` or `ws_setmaxnreg_` helper): for every other target they are not here, so
// the prelude compiles for sm_75/80/90 as before.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void ws_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void ws_wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// `wait_group` takes an immediate: one per `n`, 7 for anything larger (waiting more is allowed).
__device__ __forceinline__ void ws_wgmma_wait_group(unsigned int n) {
    switch (n) {
    case 0u: asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); break;
    case 1u: asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); break;
    case 2u: asm volatile("wgmma.wait_group.sync.aligned 2;" ::: "memory"); break;
    case 3u: asm volatile("wgmma.wait_group.sync.aligned 3;" ::: "memory"); break;
    case 4u: asm volatile("wgmma.wait_group.sync.aligned 4;" ::: "memory"); break;
    case 5u: asm volatile("wgmma.wait_group.sync.aligned 5;" ::: "memory"); break;
    case 6u: asm volatile("wgmma.wait_group.sync.aligned 6;" ::: "memory"); break;
    default: asm volatile("wgmma.wait_group.sync.aligned 7;" ::: "memory"); break;
    }
}
// `setmaxnreg` takes an immediate, a multiple of 8 in 24..=256: the macro passes only a
// literal it checked, so the switch folds to one instruction.
#define WS_SETMAXNREG_CASE(OP, N) case N: asm volatile("setmaxnreg." OP ".sync.aligned.u32 " #N ";"); break;
#define WS_SETMAXNREG_CASES(OP) \
    WS_SETMAXNREG_CASE(OP, 24) WS_SETMAXNREG_CASE(OP, 32) WS_SETMAXNREG_CASE(OP, 40) WS_SETMAXNREG_CASE(OP, 48) \
    WS_SETMAXNREG_CASE(OP, 56) WS_SETMAXNREG_CASE(OP, 64) WS_SETMAXNREG_CASE(OP, 72) WS_SETMAXNREG_CASE(OP, 80) \
    WS_SETMAXNREG_CASE(OP, 88) WS_SETMAXNREG_CASE(OP, 96) WS_SETMAXNREG_CASE(OP, 104) WS_SETMAXNREG_CASE(OP, 112) \
    WS_SETMAXNREG_CASE(OP, 120) WS_SETMAXNREG_CASE(OP, 128) WS_SETMAXNREG_CASE(OP, 136) WS_SETMAXNREG_CASE(OP, 144) \
    WS_SETMAXNREG_CASE(OP, 152) WS_SETMAXNREG_CASE(OP, 160) WS_SETMAXNREG_CASE(OP, 168) WS_SETMAXNREG_CASE(OP, 176) \
    WS_SETMAXNREG_CASE(OP, 184) WS_SETMAXNREG_CASE(OP, 192) WS_SETMAXNREG_CASE(OP, 200) WS_SETMAXNREG_CASE(OP, 208) \
    WS_SETMAXNREG_CASE(OP, 216) WS_SETMAXNREG_CASE(OP, 224) WS_SETMAXNREG_CASE(OP, 232) WS_SETMAXNREG_CASE(OP, 240) \
    WS_SETMAXNREG_CASE(OP, 248) WS_SETMAXNREG_CASE(OP, 256)
__device__ __forceinline__ void ws_setmaxnreg_inc(unsigned int n) { switch (n) { WS_SETMAXNREG_CASES("inc") default: break; } }
__device__ __forceinline__ void ws_setmaxnreg_dec(unsigned int n) { switch (n) { WS_SETMAXNREG_CASES("dec") default: break; } }
// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") of a K-major,
// 128B-swizzled, 1024-byte aligned tile, at its 32-byte K slab `k` (16 16-bit elements, 8
// tf32 ones): start address >> 4
// (bits 0-13, the slab 32 * k bytes in), leading byte offset 1 (bits 16-29; unused when
// swizzled), stride byte offset 1024 >> 4 (bits 32-45: 8 rows of 128 bytes), base offset 0,
// swizzle mode 1 = 128B (bits 62-63).
__device__ __forceinline__ unsigned long long ws_wgmma_desc(const void* tile, unsigned long long k) {
    unsigned int a;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(a) : "l"(tile));
    // The slab is added after the fields are made (32 k bytes are 2 k in the address's
    // units, which stay below bit 14 inside shared memory), so that one base serves the
    // four slabs of an unrolled loop.
    const unsigned long long base = (unsigned long long)((a & 0x3FFFFu) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
    return base + 2ull * k;
}
// A descriptor of an MN-major (`acc.wgmma_trans_b`), 128B-swizzled, 1024-byte aligned
// K x N tile of 16-bit elements, laid out as N / 64 column blocks of `rows` rows of 128
// bytes (64 elements of N; one TMA box of [rows, 64] each), at its K slab `k` (rows
// 16 k .. 16 k + 15, 2048 bytes a slab): start address >> 4, leading byte offset (bits
// 16-29: from one 64-wide block of N to the next, rows * 128 bytes) >> 4, stride byte
// offset 1024 >> 4 (bits 32-45: from 8 rows of K to the next 8), swizzle mode 1 = 128B.
__device__ __forceinline__ unsigned long long ws_wgmma_desc_mn(const void* tile, unsigned long long k, unsigned long long rows) {
    unsigned int a;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(a) : "l"(tile));
    const unsigned long long lbo = ((rows * 128ull) >> 4) & 0x3FFFull;
    const unsigned long long base = (unsigned long long)((a & 0x3FFFFu) >> 4) | (lbo << 16) | (64ull << 32) | (1ull << 62);
    return base + 128ull * k;
}
// The checks of `acc.wgmma(a, b, k)`: A holds the 64-row tile (`aneed` elements: rows of
// 128 bytes; a `FragmentA` passes ~0 for `alen`), B its tile (`bneed`), k < kmax (the K
// slabs of the tiles: 4, or an MN-major B's rows / 16); a failure is recorded as an
// out-of-bounds index (A: index aneed, its length; B: index bneed; k: index k, length
// kmax) and the instruction is skipped (by every thread alike, as the operands are the
// warpgroup's).
__device__ __forceinline__ bool ws_wgmma_ok(unsigned long long alen, unsigned long long aneed, unsigned long long blen, unsigned long long bneed, unsigned long long k, unsigned long long kmax, unsigned int line, const char* file) {
    if (alen < aneed) { ws_oob_report(aneed, alen, line, file); return false; }
    if (blen < bneed) { ws_oob_report(bneed, blen, line, file); return false; }
    if (k >= kmax) { ws_oob_report(k, kmax, line, file); return false; }
    return true;
}
// `acc.wgmma(a, b, k)`, D = A * B^T + D: one helper per shape and operand type, the
// accumulator's N / 2 floats as "+f" operands (warpspeed::mma::wgmma_owner's order), four
// a macro.
#define WS_D4(i) "+f"(d->x[i]), "+f"(d->x[i + 1]), "+f"(d->x[i + 2]), "+f"(d->x[i + 3])
"#;

const TAIL: &str = "#endif // __CUDA_ARCH_FEAT_SM90_ALL\n#endif // WS_HOST_SHIM\n";

#[test]
fn prelude_wgmma_is_generated() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/prelude_wgmma.cuh");
    let want = generate();
    if std::env::var("WARPSPEED_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(path, &want).expect("writing prelude_wgmma.cuh");
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "runtime/src/prelude_wgmma.cuh is not what prelude_wgmma_gen.rs generates: \
         WARPSPEED_BLESS=1 cargo test -p warpspeed-runtime prelude_wgmma"
    );
}
