//! The kernel types, one row each, as `intrinsics.rs` has one row per intrinsic: a
//! scalar's Rust name, C name, kind, width and atomic type (`SCALARS`, which `Scalar`'s
//! methods read: `rust_name`, `c_name`, `bits`, `vector`, `atomic_name`, `is_int`, ...,
//! and the parser's `Scalar::from_name`), and the names of the language's other types
//! (`NAMED`: `Dim3`, `SharedArray`, the groups, ...), which the struct resolver
//! (`structs/resolve.rs`) must never take for a `#[gpu_struct]`. The drift test
//! (`table_tests.rs`) fails when the runtime declares a kernel type that has no row here.
//! docs/internal/macro-layers.md ("Adding a type") has the steps.

use super::Scalar;

/// What a scalar is, for the rules that depend on it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Bool,
    /// `i8` .. `isize`.
    Signed,
    /// `u8` .. `usize`.
    Unsigned,
    /// `f32`, `f64`: Rust primitives, C's `float`/`double`.
    Float,
    /// `f16`, `bf16`: one 16-bit float, a library type in Rust (no literals, no `as`), a
    /// struct in C whose operators are the prelude's `<C name>_add`, `_neg`, ... helpers;
    /// it divides, negates and prints as the floats do.
    Half,
    /// `f16x2`, `bf16x2`: two 16-bit floats in one word; a library type like `Half`, with
    /// `+ - *` and no division, order or printing of its own.
    HalfPair,
    /// `e4m3`, `e5m2`: fp8 storage types, a library type in Rust and a one-byte struct in
    /// C, loaded, stored and converted (`e4m3::from_f32`, `x.to_f32()`); no operators, no
    /// literals, no `as`, no printing: a kernel converts to `f32` or `f16` to compute.
    Storage,
    /// A vector type: its lane type and lane count (`f32x4`: `(f32, 4)`); a library type
    /// in Rust, a struct aligned to its size in C.
    Vector(Scalar, usize),
}

/// One scalar kernel type.
pub struct ScalarRow {
    pub scalar: Scalar,
    /// The Rust name (`f32x4`); a library type's is under `warpspeed::`.
    pub rust: &'static str,
    /// The C spelling (`usize`/`isize` are 64-bit on both sides); the runtime's
    /// `KernelScalar::C_NAME` is the same (the drift test checks it).
    pub c: &'static str,
    pub kind: Kind,
    /// The width in bits.
    pub bits: u32,
    /// Rust's atomic type over it (`AtomicU32`), where it has atomics.
    pub atomic: Option<&'static str>,
}

const fn row(
    scalar: Scalar,
    rust: &'static str,
    c: &'static str,
    kind: Kind,
    bits: u32,
    atomic: Option<&'static str>,
) -> ScalarRow {
    ScalarRow {
        scalar,
        rust,
        c,
        kind,
        bits,
        atomic,
    }
}

use Kind::*;
use Scalar as S;

/// Every scalar kernel type, in the order the docs list them (`ty::ALL_SCALARS` is the
/// first column).
pub const SCALARS: &[ScalarRow] = &[
    row(S::Bool, "bool", "bool", Bool, 8, None),
    row(S::I8, "i8", "signed char", Signed, 8, None),
    row(S::I16, "i16", "short", Signed, 16, None),
    row(S::I32, "i32", "int", Signed, 32, Some("AtomicI32")),
    row(S::I64, "i64", "long long", Signed, 64, Some("AtomicI64")),
    row(
        S::Isize,
        "isize",
        "long long",
        Signed,
        64,
        Some("AtomicIsize"),
    ),
    row(S::U8, "u8", "unsigned char", Unsigned, 8, None),
    row(S::U16, "u16", "unsigned short", Unsigned, 16, None),
    row(
        S::U32,
        "u32",
        "unsigned int",
        Unsigned,
        32,
        Some("AtomicU32"),
    ),
    row(
        S::U64,
        "u64",
        "unsigned long long",
        Unsigned,
        64,
        Some("AtomicU64"),
    ),
    row(
        S::Usize,
        "usize",
        "unsigned long long",
        Unsigned,
        64,
        Some("AtomicUsize"),
    ),
    row(S::F32, "f32", "float", Float, 32, Some("AtomicF32")),
    row(S::F64, "f64", "double", Float, 64, Some("AtomicF64")),
    row(S::F16, "f16", "ws_f16", Half, 16, Some("AtomicF16")),
    row(
        S::F16x2,
        "f16x2",
        "ws_f16x2",
        HalfPair,
        32,
        Some("AtomicF16x2"),
    ),
    row(S::E4m3, "e4m3", "ws_e4m3", Storage, 8, None),
    row(S::E5m2, "e5m2", "ws_e5m2", Storage, 8, None),
    row(S::Bf16, "bf16", "ws_bf16", Half, 16, Some("AtomicBf16")),
    row(
        S::Bf16x2,
        "bf16x2",
        "ws_bf16x2",
        HalfPair,
        32,
        Some("AtomicBf16x2"),
    ),
    row(S::F32x2, "f32x2", "ws_f32x2", Vector(S::F32, 2), 64, None),
    row(S::F32x4, "f32x4", "ws_f32x4", Vector(S::F32, 4), 128, None),
    row(S::U32x2, "u32x2", "ws_u32x2", Vector(S::U32, 2), 64, None),
    row(S::U32x4, "u32x4", "ws_u32x4", Vector(S::U32, 4), 128, None),
    row(S::I32x2, "i32x2", "ws_i32x2", Vector(S::I32, 2), 64, None),
    row(S::I32x4, "i32x4", "ws_i32x4", Vector(S::I32, 4), 128, None),
    row(S::F64x2, "f64x2", "ws_f64x2", Vector(S::F64, 2), 128, None),
];

/// The row of a scalar; `None` for a type parameter or a `#[gpu_struct]`, which carry
/// their names themselves.
pub fn scalar_row(s: Scalar) -> Option<&'static ScalarRow> {
    SCALARS.iter().find(|r| r.scalar == s)
}

/// The language's types that are not scalars, by the name a kernel writes (the last
/// segment of its path), with what they are. The struct resolver never asks a macro for
/// one of these; the parser reads each where its comment says.
pub const NAMED: &[(&str, &str)] = &[
    ("Dim3", "thread_idx() and friends (parse/types.rs)"),
    ("Ordering", "the atomics' memory orders (parse/mod.rs)"),
    ("SharedArray", "a shared-memory array (parse/shared.rs)"),
    ("ThreadBlock", "a cooperative group (ir/groups.rs)"),
    ("ThreadBlockTile", "a cooperative group (ir/groups.rs)"),
    ("GridGroup", "a cooperative group (ir/groups.rs)"),
    ("Texture2D", "a texture parameter (parse/types/texture.rs)"),
    (
        "TensorMap",
        "a TMA tensor map parameter (parse/types/texture.rs)",
    ),
    ("Mbarrier", "a shared array's mbarriers (parse/shared.rs)"),
    ("FragmentA", "a tensor-core fragment (parse/fragment.rs)"),
    ("FragmentB", "a tensor-core fragment (parse/fragment.rs)"),
    ("FragmentAcc", "a tensor-core fragment (parse/fragment.rs)"),
    ("M16N8K16", "an mma shape (parse/fragment.rs)"),
    ("M16N8K8", "an mma shape (parse/fragment.rs)"),
    ("M16N8K32", "an mma shape (parse/fragment.rs)"),
    ("M64N8K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N16K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N24K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N32K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N40K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N48K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N56K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N64K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N72K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N80K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N88K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N96K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N104K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N112K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N120K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N128K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N136K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N144K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N152K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N160K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N168K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N176K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N184K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N192K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N200K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N208K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N216K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N224K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N232K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N240K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N248K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N256K16", "a wgmma shape (parse/fragment.rs)"),
    ("M64N8K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N16K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N24K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N32K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N40K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N48K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N56K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N64K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N72K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N80K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N88K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N96K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N104K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N112K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N120K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N128K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N136K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N144K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N152K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N160K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N168K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N176K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N184K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N192K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N200K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N208K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N216K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N224K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N232K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N240K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N248K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    ("M64N256K8", "a tf32 wgmma shape (parse/fragment.rs)"),
    (
        "FragmentShape",
        "the bound of the mma shapes (core/src/kernel/mma.rs)",
    ),
    (
        "AddressMode",
        "a texture's address mode (parse/types/texture.rs)",
    ),
];

/// Rust's own type names, which a kernel may mention (and is then told what to write),
/// never `#[gpu_struct]`s.
pub const RUST_NAMES: &[&str] = &[
    "Self", "String", "Vec", "Box", "Option", "Result", "HashMap",
];

/// Whether a type named `name` (a path's last segment) is the language's or Rust's own,
/// never a `#[gpu_struct]`: a row of `NAMED` or `RUST_NAMES`, a scalar, or an atomic type.
pub fn is_language_type(name: &str) -> bool {
    NAMED.iter().any(|(n, _)| *n == name)
        || RUST_NAMES.contains(&name)
        || SCALARS
            .iter()
            .any(|r| r.rust == name || r.atomic == Some(name))
        // An atomic type of no kernel scalar (`AtomicU8`) is refused in its own words.
        || name.starts_with("Atomic")
}
