//! The contract between code that `#[gpu_kernel]` generates and the runtime.
//!
//! The macro emits, for each kernel or device function, a module holding a [`SourceItem`]
//! (its CUDA C, split into a prototype and a definition, plus the device functions it calls),
//! and for kernels a [`KernelDef`] and a typed `launch` that packs its arguments into
//! `KernelArgs`. The runtime turns these into an NVRTC compilation and a launch on a GPU, or
//! into one future per simulated thread from the kernel's simulator entry ([`SimEntry`]) on
//! the CPU. The simulator side of the contract (source locations, [`ThreadCtx`], the memory
//! handles) lives in `sim/` and is re-exported here; docs/internal/sim-abi.md describes it.
//!
//! Generated code reaches this module only through `warpspeed::__private`.

use std::sync::LazyLock;

pub use crate::bf16_types::{bf16, bf16_from_f64, bf16x2};
pub use crate::cuda::compile::KernelOptions;
pub use crate::dim::Dim3;
pub use crate::half_types::{f16, f16_from_f64, f16x2};
pub use crate::mma::MmaShape;
pub use crate::scalar::{Arg, KernelScalar, TexArg};
pub use crate::sim::{
    capture_sim_prints, format_g, frag_load_acc, fragment_index, host_call, kernel_code,
    sim_check_len, src_loc_by_id, AtomicArith, AtomicInt, AtomicScalar, AtomicSlice, Fragment,
    LenDecl, MbarrierRef, MmaElem, MmaScalar, SimEntry, SimFuture, SimMbarriers, SimTensorMap,
    SimTexture, Slice, SliceMut, SrcLoc, ThreadCtx, WgmmaA,
};
pub use crate::vector_types::{f32x2, f32x4, f64x2, i32x2, i32x4, u32x2, u32x4};

/// One piece of generated CUDA C: a kernel or a `#[gpu_device]` function.
pub struct SourceItem {
    /// The Rust path of the item, for messages.
    pub rust_name: &'static str,
    /// C prototype (`__device__ int nbrs(...);`), empty for kernels.
    pub prototype: &'static str,
    /// Full C definition.
    pub definition: &'static str,
    /// Device functions this item calls directly; their own `deps` are followed too.
    pub deps: &'static [&'static SourceItem],
    /// The module-level constants the definition names, as C macros written right before
    /// it (see [`c_const`]); built at run time, since a macro cannot see a constant's value.
    pub consts: Option<fn() -> String>,
}

/// A module-level constant of a kernel as C: `#undef NAME` and `#define NAME value`, its
/// value exact and of the constant's C type. Each item defines its constants right before
/// its definition, so two items may give the same name different values.
pub fn c_const<T: ConstScalar>(name: &str, value: T) -> String {
    format!("#undef {name}\n#define {name} {}\n", value.c_value())
}

/// The types a module-level constant used in a kernel may have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel's constant: a constant used in a kernel is a bool, an integer, `f32` or `f64`",
    label = "a constant of type `{Self}`"
)]
pub trait ConstScalar: KernelScalar {
    /// The value as a C expression of exactly the type [`KernelScalar::C_NAME`].
    fn c_value(self) -> String;
}

macro_rules! const_int {
    ($($t:ty),*) => {$(
        impl ConstScalar for $t {
            fn c_value(self) -> String {
                let c = <$t as KernelScalar>::C_NAME;
                // A negative value as `-(m) - 1`, so the type's minimum needs no literal
                // that overflows.
                if (self as i128) < 0 {
                    format!("(({c})(-{}ll - 1ll))", -((self as i128) + 1))
                } else {
                    format!("(({c}){}ull)", self as i128)
                }
            }
        }
    )*};
}
const_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl ConstScalar for bool {
    fn c_value(self) -> String {
        self.to_string()
    }
}

impl ConstScalar for f32 {
    /// By its bits: exact, NaN and infinities included.
    fn c_value(self) -> String {
        format!("__int_as_float(0x{:08x})", self.to_bits())
    }
}

impl ConstScalar for f64 {
    fn c_value(self) -> String {
        format!("__longlong_as_double(0x{:016x}ll)", self.to_bits())
    }
}

/// Everything the runtime needs to compile and run one kernel: what `#[gpu_kernel]`
/// generates as `<kernel>::KERNEL`. Name it to ask about the kernel
/// ([`LaunchConfig::for_occupancy`](crate::LaunchConfig::for_occupancy)`(&dev,
/// &my_kernel::KERNEL, n)`); its fields are the generated code's contract with the runtime.
pub struct KernelDef {
    /// The Rust name of the kernel (`life`), for messages.
    pub rust_name: &'static str,
    /// The `extern "C" __global__` entry's name in [`KernelDef::source`].
    pub entry: &'static str,
    /// The complete, self-contained CUDA C of the kernel and every device function it calls.
    pub source: &'static LazyLock<String>,
    /// What NVRTC is asked for (`#[gpu_kernel(fast_math)]`).
    pub options: KernelOptions,
    /// The kernel's parameter names in launch order (for race reports).
    pub params: &'static [&'static str],
    /// The kernel calls `this_grid().sync()`: it must be launched with
    /// `launch_cooperative` (a plain launch is refused).
    pub grid_sync: bool,
    /// `#[gpu_kernel(block = (x, y, z))]`: the only block shape the kernel may be launched
    /// with (a launch with another is refused); `None` for any.
    pub block: Option<[u32; 3]>,
    /// Starts one thread of the kernel on the CPU (simulator backend).
    pub sim: SimEntry,
    /// The bounds checks the launch may prove, by site: entry `n` is the check the CUDA C
    /// writes `(WS_P(n) ? plain : checked)` (docs/bounds.md, "Proven at launch"). Empty:
    /// every check stays.
    pub provable: &'static [ProvableCheck],
}

impl KernelDef {
    /// The CUDA C program NVRTC compiles for a launch that proved the check sites of
    /// `proven` (bit `n`: site `n` of [`KernelDef::provable`]; docs/bounds.md, "Proven at
    /// launch"): [`KernelDef::source`], after `#define WS_PROVEN` when any is proven. Its
    /// text is what the disk cache's key hashes.
    pub fn program(&self, proven: u64) -> std::borrow::Cow<'static, str> {
        crate::cuda::program(self.source, proven)
    }
}

/// A bounds check the macro could not prove, and what proves it at a launch: any one of
/// `any_of` holding (each a polynomial that is at least zero) on the launch's values.
#[derive(Debug)]
pub struct ProvableCheck {
    /// Alternative conditions; each is `sum of terms >= 0`.
    pub any_of: &'static [&'static [LaunchTerm]],
}

/// One term of a launch condition: `coef` times the product of `atoms`.
#[derive(Debug)]
pub struct LaunchTerm {
    pub coef: i128,
    pub atoms: &'static [LaunchAtom],
}

/// A value the launch knows, in a launch condition.
#[derive(Clone, Copy, Debug)]
pub enum LaunchAtom {
    /// The unsigned scalar argument at this parameter position.
    Scalar(u16),
    /// The length of the slice argument at this parameter position.
    Len(u16),
    /// `block_dim()` on this axis (0: x, 1: y, 2: z).
    Block(u8),
    /// `grid_dim()` on this axis.
    Grid(u8),
    /// A module-level constant's value (Rust's, read where the kernel is defined).
    Value(i128),
}

/// The block shape of `#[gpu_kernel(block = (B, 1, 1))]` whose extents name constants (a
/// const parameter, a module-level `const`), checked where Rust knows their values: in a
/// const context, so a shape no GPU has is a compile error (for a const-generic kernel,
/// at the instance's first use). Not an API: the generated code calls it.
#[doc(hidden)]
pub const fn checked_block(b: [u64; 3]) -> [u32; 3] {
    if b[0] == 0 || b[1] == 0 || b[2] == 0 {
        panic!("#[gpu_kernel(block = (x, y, z))]: a block extent is at least 1");
    }
    if b[0] > 1024 || b[1] > 1024 || b[2] > 64 || b[0] * b[1] * b[2] > 1024 {
        panic!("#[gpu_kernel(block = (x, y, z))]: a block has at most 1024 threads (x * y * z), and z is at most 64");
    }
    [b[0] as u32, b[1] as u32, b[2] as u32]
}

/// Concatenates the prelude, the prototypes of every device function reachable from
/// `root` (each once, in first-reached order) and then every definition, `root` last.
pub fn collect_source(root: &'static SourceItem) -> String {
    collect_source_with(root, root.consts)
}

/// [`collect_source`] with `root_consts` as the root's constants: a generic kernel's
/// instance, whose constants' values include its const parameters'.
pub fn collect_source_with(
    root: &'static SourceItem,
    root_consts: Option<fn() -> String>,
) -> String {
    let mut items: Vec<&'static SourceItem> = Vec::new();
    fn visit(item: &'static SourceItem, items: &mut Vec<&'static SourceItem>) {
        if items.iter().any(|seen| std::ptr::eq(*seen, item)) {
            return;
        }
        items.push(item);
        for dep in item.deps {
            visit(dep, items);
        }
    }
    visit(root, &mut items);
    let mut out = String::from(CUDA_PRELUDE);
    out.push('\n');
    // Types (`#[gpu_struct]`s) before every function that may name them, each after the
    // types it holds.
    let mut types = Vec::new();
    type_order(root, &mut types);
    for item in &types {
        out.push_str(item.prototype);
        out.push('\n');
        if let Some(checks) = item.consts {
            out.push_str(&checks());
        }
    }
    let items: Vec<&'static SourceItem> = items.into_iter().filter(|i| !i.is_type()).collect();
    // Prototypes first, so device functions may call each other in any order (recursion
    // is refused by NVRTC's stack limits only at run time, not by C's declaration order).
    for item in items.iter().skip(1) {
        out.push_str(item.prototype);
        out.push('\n');
    }
    for item in items.iter().skip(1).rev() {
        out.push('\n');
        if let Some(consts) = item.consts {
            out.push_str(&consts());
        }
        out.push_str(item.definition);
    }
    out.push('\n');
    if let Some(consts) = root_consts {
        out.push_str(&consts());
    }
    out.push_str(root.definition);
    out
}

/// The [`KernelDef`] of one instance of a generic kernel, built by `make` at its first
/// use and kept for the program's life (so its source's address names it in the
/// in-memory cache, as a concrete kernel's static does). `key` is the instance's
/// `TypeId` (the generated module's `__Instance<T, B>`).
pub fn kernel_instance(
    key: std::any::TypeId,
    make: impl FnOnce() -> KernelDef,
) -> &'static KernelDef {
    use std::collections::HashMap;
    use std::sync::{Mutex, PoisonError};
    static INSTANCES: LazyLock<Mutex<HashMap<std::any::TypeId, &'static KernelDef>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut map = INSTANCES.lock().unwrap_or_else(PoisonError::into_inner);
    // One leak per instance a program launches: bounded by the instances it names.
    map.entry(key)
        .or_insert_with(|| Box::leak(Box::new(make())))
}

/// A `'static` lazily assembled source for an instance's [`KernelDef::source`].
pub fn leak_source(source: fn() -> String) -> &'static LazyLock<String> {
    Box::leak(Box::new(LazyLock::new(source)))
}

impl SourceItem {
    /// A type (a `#[gpu_struct]`'s C definition): a prototype and no definition; its
    /// `consts` are its layout checks, written after it.
    pub fn is_type(&self) -> bool {
        self.definition.is_empty() && !self.prototype.is_empty()
    }
}

/// The types reachable from `item`, each after the types it depends on (post-order).
fn type_order(item: &'static SourceItem, out: &mut Vec<&'static SourceItem>) {
    fn go(
        item: &'static SourceItem,
        seen: &mut Vec<&'static SourceItem>,
        out: &mut Vec<&'static SourceItem>,
    ) {
        if seen.iter().any(|s| std::ptr::eq(*s, item)) {
            return;
        }
        seen.push(item);
        for dep in item.deps {
            go(dep, seen, out);
        }
        if item.is_type() {
            out.push(item);
        }
    }
    go(item, &mut Vec::new(), out);
}

/// The C that every kernel starts with: typedefs and the helpers that give C Rust's
/// semantics (wrapping arithmetic, masked shifts, saturating float-to-int casts).
/// It includes no header: NVRTC as users get it has none. `prelude_num.cuh` holds the
/// numeric methods' helpers (`ws_rotate_left<T>`, `ws_is_nan`, ...), `prelude_fp8.cuh` the
/// fp8 types' conversions (`ws_e4m3_from_f32`, ...), `prelude_tex.cuh` the texture fetch
/// (`ws_tex2d_fetch<T>`), `prelude_mma.cuh` the tensor-core fragments and `mma.sync`
/// (`ws_frag<T, N>`, `ws_mma_m16n8k16_f32_f16`), `prelude_hopper.cuh` mbarriers and TMA
/// (`ws_mbarrier_*`, `ws_tma_*`, `ws_fence_*`),
/// `prelude_wgmma.cuh` Hopper's `wgmma`,
/// `setmaxnreg` and `fence.proxy.async` (generated by `prelude_wgmma_gen.rs`).
pub const CUDA_PRELUDE: &str = concat!(
    include_str!("prelude.cuh"),
    include_str!("prelude_fp8.cuh"),
    include_str!("prelude_tex.cuh"),
    include_str!("prelude_mma.cuh"),
    include_str!("prelude_hopper.cuh"),
    include_str!("prelude_wgmma.cuh"),
    // Last: it ends with the line that marks the end of the prelude.
    include_str!("prelude_num.cuh")
);
