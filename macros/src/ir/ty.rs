//! Kernel types: the scalars of the language, and the few compound types an expression
//! can have. `Var` is an inference variable of the type checker.

pub mod fragment;
pub mod table;
#[cfg(test)]
mod table_tests;

use std::fmt;
use table::{self as types, Kind};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Scalar {
    Bool,
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
    /// `warpspeed::f16` (the `half` crate's): CUDA's `__half`, stored as bits in C.
    F16,
    /// `warpspeed::f16x2`: two halves in 32 bits, CUDA's `__half2`.
    F16x2,
    /// `warpspeed::e4m3` and `warpspeed::e5m2`: the fp8 storage types, CUDA's
    /// `__nv_fp8_e4m3`/`__nv_fp8_e5m2`, a byte in C (`Kind::Storage`).
    E4m3,
    E5m2,
    /// `warpspeed::bf16` (the `half` crate's): CUDA's `__nv_bfloat16`, stored as bits in C.
    Bf16,
    /// `warpspeed::bf16x2`: two bf16s in 32 bits, CUDA's `__nv_bfloat162`.
    Bf16x2,
    /// The vector types (`warpspeed::f32x4`, CUDA's `float4`, ...): structs of 2 or 4
    /// lanes `x, y, z, w`, aligned to their size, so one element is one vector access.
    F32x2,
    F32x4,
    U32x2,
    U32x4,
    I32x2,
    I32x4,
    F64x2,
    /// A type parameter of a generic function (`T`), only in the simulator body's types
    /// (`generics::diff`): the type checker and the C see each instance's concrete type.
    Param(&'static str),
    /// A `#[gpu_struct]`, by its index in the kernel's table (`ir/structs.rs`): a value
    /// with named fields, taken and stored whole like the scalars (no arithmetic).
    Struct(StructId),
}

/// A `#[gpu_struct]` as a kernel type: its index in the function's struct table, and its
/// Rust and C names, which it carries so that printing a type needs no table. Equal when
/// the index is.
#[derive(Clone, Copy, Debug)]
pub struct StructId {
    pub index: u16,
    rust: &'static str,
    c: &'static str,
    /// An instance of a generic struct: its type arguments (`[f32]` of `Params<f32>`; in a
    /// generic function's simulator body `[T]`, `generics::diff`). Empty otherwise.
    pub args: &'static [Scalar],
}

impl StructId {
    /// Struct `index` of the table, named `name` in Rust (its C name is `ws_s_<name>`). The
    /// names are leaked, once per struct a table reads: `Scalar` is `Copy` and its names
    /// `&'static str`.
    pub fn new(index: usize, name: &str) -> StructId {
        StructId {
            index: index as u16,
            rust: Box::leak(name.to_string().into_boxed_str()),
            c: Box::leak(c_struct_name(name).into_boxed_str()),
            args: &[],
        }
    }

    /// Instance `index` of a generic struct: `Params<f32>` in Rust, `c` in C
    /// (`ws_s_Params_f32`), of arguments `args`.
    pub fn instance(index: usize, rust: &str, c: &str, args: &[Scalar]) -> StructId {
        StructId {
            index: index as u16,
            rust: Box::leak(rust.to_string().into_boxed_str()),
            c: Box::leak(c.to_string().into_boxed_str()),
            args: Box::leak(args.to_vec().into_boxed_slice()),
        }
    }

    /// The same struct with other arguments (the simulator body's `Params<T>`).
    pub fn with_args(self, args: Vec<Scalar>) -> StructId {
        StructId {
            args: Box::leak(args.into_boxed_slice()),
            ..self
        }
    }
}

impl PartialEq for StructId {
    fn eq(&self, other: &StructId) -> bool {
        self.index == other.index
    }
}

impl Eq for StructId {}

impl std::hash::Hash for StructId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.index.hash(h)
    }
}

/// The C name of a struct named `name` in Rust.
pub fn c_struct_name(name: &str) -> String {
    format!("ws_s_{name}")
}

/// Every scalar kernel type, in the table's order (`ty/table.rs`).
pub const ALL_SCALARS: [Scalar; types::SCALARS.len()] = {
    let mut all = [Scalar::Bool; types::SCALARS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = types::SCALARS[i].scalar;
        i += 1;
    }
    all
};

impl Scalar {
    /// The scalar a type name is (`ir/types.rs`): the parser's rule for every scalar.
    pub fn from_name(name: &str) -> Option<Scalar> {
        types::SCALARS
            .iter()
            .find(|r| r.rust == name)
            .map(|r| r.scalar)
    }

    /// The Rust name (`ir/types.rs`; a type parameter's and a struct's their own).
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Param(name) => name,
            Scalar::Struct(id) => id.rust,
            s => types::scalar_row(s).map_or("", |r| r.rust),
        }
    }

    /// The C spelling (`ir/types.rs`). `usize`/`isize` are 64-bit on both sides.
    pub fn c_name(self) -> &'static str {
        match self {
            // Never reaches the C: each instance is emitted with its concrete types.
            Scalar::Param(_) => "ws_generic",
            Scalar::Struct(id) => id.c,
            s => types::scalar_row(s).map_or("", |r| r.c),
        }
    }

    fn kind(self) -> Option<Kind> {
        types::scalar_row(self).map(|r| r.kind)
    }

    pub fn is_int(self) -> bool {
        matches!(self.kind(), Some(Kind::Signed | Kind::Unsigned))
    }
    /// A `#[gpu_struct]`.
    pub fn is_struct(self) -> bool {
        matches!(self, Scalar::Struct(_))
    }
    /// `f32x4` and the other vector types.
    pub fn is_vector(self) -> bool {
        self.vector().is_some()
    }
    /// A vector type's lane type and lane count (`f32x4`: `(f32, 4)`).
    pub fn vector(self) -> Option<(Scalar, usize)> {
        match self.kind()? {
            Kind::Vector(lane, n) => Some((lane, n)),
            _ => None,
        }
    }
    /// The lane type of field `name` (`x`, `y`, and `z`, `w` of the 4-lane ones) of a
    /// vector type.
    pub fn vector_field(self, name: &str) -> Option<Scalar> {
        let (lane, n) = self.vector()?;
        let k = ["x", "y", "z", "w"].iter().position(|f| *f == name)?;
        (k < n).then_some(lane)
    }
    /// Library types in Rust, structs in C: the half, fp8 and vector types (named through
    /// `::warpspeed::` in the emitted Rust).
    pub fn is_library(self) -> bool {
        self.is_half() || self.is_vector() || self.is_storage()
    }
    /// `e4m3`, `e5m2`: storage types, which kernels load, store and convert, and never
    /// compute with (`ty/table.rs` `Kind::Storage`).
    pub fn is_storage(self) -> bool {
        self.kind() == Some(Kind::Storage)
    }
    /// `f16`, `bf16`, `f16x2` and `bf16x2`: library types in Rust (no literals, no `as`),
    /// structs in C.
    pub fn is_half(self) -> bool {
        matches!(self.kind(), Some(Kind::Half | Kind::HalfPair))
    }
    /// `f16`, `bf16`: a half type of one lane, which divides, negates and prints as the
    /// floats do (`ty/table.rs` `Kind::Half`).
    pub fn is_half_float(self) -> bool {
        self.kind() == Some(Kind::Half)
    }
    pub fn is_float(self) -> bool {
        self.kind() == Some(Kind::Float)
    }
    /// `u32`, `u64`, `usize`: C computes these in their own type (no promotion to `int`)
    /// and wraps them as Rust's release build does, so their `+ - * / %` need no helper.
    pub fn is_wide_unsigned(self) -> bool {
        matches!(self, Scalar::U32 | Scalar::U64 | Scalar::Usize)
    }
    pub fn is_signed_int(self) -> bool {
        self.kind() == Some(Kind::Signed)
    }
    /// The width in bits (`ir/types.rs`); a struct's and a type parameter's 64, as a
    /// stand-in never used for their layout.
    pub fn bits(self) -> u32 {
        types::scalar_row(self).map_or(64, |r| r.bits)
    }
    /// Rust's atomic type over this scalar (`AtomicU32`), for the types with atomics.
    pub fn atomic_name(self) -> Option<&'static str> {
        types::scalar_row(self)?.atomic
    }
    pub fn from_atomic_name(name: &str) -> Option<Scalar> {
        ALL_SCALARS
            .iter()
            .copied()
            .find(|s| s.atomic_name() == Some(name))
    }
    /// The integer type of the same width and the given signedness (`i32` <-> `u32`).
    pub fn twin(self, signed: bool) -> Scalar {
        use Scalar::*;
        match (self, signed) {
            (I8 | U8, true) => I8,
            (I8 | U8, false) => U8,
            (I16 | U16, true) => I16,
            (I16 | U16, false) => U16,
            (I32 | U32, true) => I32,
            (I32 | U32, false) => U32,
            (I64 | U64, true) => I64,
            (I64 | U64, false) => U64,
            (Isize | Usize, true) => Isize,
            (Isize | Usize, false) => Usize,
            (s, _) => s,
        }
    }
    /// The unsigned type of the same width (for zero-extending bit counts).
    pub fn unsigned_c_name(self) -> &'static str {
        match self.bits() {
            8 => "unsigned char",
            16 => "unsigned short",
            32 => "unsigned int",
            _ => "unsigned long long",
        }
    }
}

/// The length of a local or shared array: a literal, or a module-level constant whose value
/// only rustc knows (`[0u32; N]`), named in C by a macro the runtime defines.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Len {
    Lit(u64),
    Const(ConstRef),
}

/// A module-level constant of a function: its index in the function's constant table and
/// its path as written (`N`, `config::N`), with where it was written (for rustc's errors;
/// not part of its identity).
#[derive(Clone, Debug)]
pub struct ConstRef {
    pub id: usize,
    pub path: String,
    pub span: proc_macro2::Span,
}

impl PartialEq for ConstRef {
    fn eq(&self, o: &Self) -> bool {
        self.id == o.id && self.path == o.path
    }
}

impl Eq for ConstRef {}

impl ConstRef {
    /// The C macro standing for the constant in its function: `ws_c0_N`.
    pub fn c_name(&self) -> String {
        // The last name of a path; of an expression, its letters (`2*N` -> `2_N`).
        let last = self.path.rsplit("::").next().unwrap_or("c");
        let name: String = last
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("ws_c{}_{name}", self.id)
    }
}

impl Len {
    /// The literal length, if the macro knows it.
    pub fn known(&self) -> Option<u64> {
        match self {
            Len::Lit(n) => Some(*n),
            Len::Const(_) => None,
        }
    }
    /// The length as a C expression of type `unsigned long long`.
    pub fn c(&self) -> String {
        match self {
            Len::Lit(n) => format!("{n}ull"),
            Len::Const(c) => format!("((unsigned long long){})", c.c_name()),
        }
    }
}

impl fmt::Display for Len {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Len::Lit(n) => write!(f, "{n}"),
            Len::Const(c) => f.write_str(&c.path),
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Ty {
    Scalar(Scalar),
    Unit,
    /// The type of `return`, `break`, `continue`: never produces a value.
    Never,
    /// `thread_idx()` and friends.
    Dim3,
    /// `(usize, usize)` and `(usize, usize, usize)` from `grid_2d()`/`grid_3d()`.
    Tuple(Vec<Ty>),
    Array(Box<Ty>, Len),
    /// A kernel parameter `&[T]` (false) or `&mut [T]` (true); also a 1-D shared array
    /// (`SharedArray::<T, N>`, writable) and a row of a 2-D one.
    Slice(Scalar, bool),
    /// Atomics in memory: a `&[AtomicU32]` parameter or a `SharedArray::<AtomicU32, N>`.
    Atomics(Scalar),
    /// A `Texture2D<T>` kernel parameter: only the receiver of `fetch`, `width`, `height`.
    Texture2D(Scalar),
    /// A `TensorMap<T>` kernel parameter: only an argument of `tma_load_2d`.
    TensorMap(Scalar),
    /// A `SharedArray::<Mbarrier, N>`: indexed only as the receiver of an mbarrier method
    /// (`full[i].wait(p)`) or as `tma_load_2d`'s barrier (`&full[i]`).
    Mbarriers,
    /// A 2-D shared tile `SharedArray::<[T; W], H>`: indexing gives a row, a `Slice(T, true)`
    /// of width `W`.
    Rows(Scalar, Len),
    /// `Ordering::Relaxed` and friends: only as arguments of atomic methods.
    Ordering,
    /// The `Result` of `compare_exchange` on atomics of this scalar: only a receiver of
    /// `.is_ok()`, `.is_err()`, `.unwrap_or_else(|v| v)`.
    CasResult(Scalar),
    /// A cooperative group (`this_thread_block()`, a tile, `this_grid()`): no run-time value.
    Group(GroupKind),
    /// A tensor-core fragment (`FragmentAcc<f32, M16N8K16>`): a lane's elements `x`.
    Fragment(fragment::Frag),
    Var(usize),
}

impl Ty {
    /// Whether a type parameter (`Scalar::Param`) occurs in the type (a generic struct's
    /// argument included: `Params<T>`).
    pub fn has_param(&self) -> bool {
        match self {
            Ty::Scalar(s)
            | Ty::Slice(s, _)
            | Ty::Atomics(s)
            | Ty::Rows(s, _)
            | Ty::CasResult(s) => match s {
                Scalar::Param(_) => true,
                Scalar::Struct(id) => id.args.iter().any(|a| matches!(a, Scalar::Param(_))),
                _ => false,
            },
            Ty::Tuple(items) => items.iter().any(Ty::has_param),
            Ty::Array(elem, _) => elem.has_param(),
            _ => false,
        }
    }

    pub const USIZE: Ty = Ty::Scalar(Scalar::Usize);
    pub const BOOL: Ty = Ty::Scalar(Scalar::Bool);
    pub const U32: Ty = Ty::Scalar(Scalar::U32);

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }
}

/// What a group value is (its methods are in `groups.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum GroupKind {
    /// `this_thread_block()`.
    Block,
    /// `tiled_partition::<N>(..)`: N consecutive threads, N a power of two up to 32.
    Tile(u32),
    /// `this_grid()` (its `sync()` needs `launch_cooperative`).
    Grid,
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Ty::Scalar(s) => f.write_str(s.rust_name()),
            Ty::Unit => f.write_str("()"),
            Ty::Never => f.write_str("!"),
            Ty::Dim3 => f.write_str("Dim3"),
            Ty::Tuple(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Ty::Array(elem, n) => write!(f, "[{elem}; {n}]"),
            Ty::Slice(s, false) => write!(f, "&[{}]", s.rust_name()),
            Ty::Slice(s, true) => write!(f, "&mut [{}]", s.rust_name()),
            Ty::Atomics(s) => write!(f, "&[{}]", s.atomic_name().unwrap_or("Atomic?")),
            Ty::Rows(s, w) => write!(f, "SharedArray<[{}; {w}], _>", s.rust_name()),
            Ty::Texture2D(s) => write!(f, "Texture2D<{}>", s.rust_name()),
            Ty::TensorMap(s) => write!(f, "&TensorMap<{}>", s.rust_name()),
            Ty::Mbarriers => f.write_str("SharedArray<Mbarrier, _>"),
            Ty::Ordering => f.write_str("Ordering"),
            Ty::CasResult(s) => write!(f, "Result<{0}, {0}>", s.rust_name()),
            Ty::Group(GroupKind::Block) => f.write_str("ThreadBlock"),
            Ty::Group(GroupKind::Tile(n)) => write!(f, "ThreadBlockTile<{n}>"),
            Ty::Group(GroupKind::Grid) => f.write_str("GridGroup"),
            Ty::Fragment(frag) => write!(f, "{frag}"),
            Ty::Var(_) => f.write_str("_"),
        }
    }
}
