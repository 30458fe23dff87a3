//! The contract between code that `#[gpu_kernel]` generates and the runtime.
//!
//! The macro emits, for each kernel or device function, a module holding a [`SourceItem`]
//! (its CUDA C, split into a prototype and a definition, plus the device functions it calls),
//! and for kernels a [`KernelDef`] and a typed `launch` that packs its arguments into
//! [`KernelArgs`]. The runtime turns these into an NVRTC compilation and a launch on a GPU, or
//! into calls of the kernel's simulator entry ([`SimEntry`]) on the CPU.
//!
//! Generated code reaches this module only through `warpspeed::__private`.

use std::sync::LazyLock;

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
}

/// Compile-time options a kernel carries into NVRTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelOptions {
    /// `#[gpu_kernel(fast_math)]`: lets NVRTC contract `a * b + c`, flush denormals and use
    /// approximate division and square root. Off by default, so `+ - * / sqrt` agree with
    /// Rust bit for bit.
    pub fast_math: bool,
}

/// Everything the runtime needs to compile and run one kernel.
pub struct KernelDef {
    /// The Rust name of the kernel (`life`), for messages.
    pub rust_name: &'static str,
    /// The `extern "C" __global__` entry's name in [`KernelDef::source`].
    pub entry: &'static str,
    /// The complete, self-contained CUDA C of the kernel and every device function it calls.
    pub source: &'static LazyLock<String>,
    pub options: KernelOptions,
    /// Runs one thread of the kernel on the CPU (simulator backend).
    pub sim: SimEntry,
}

/// The simulator entry: one thread of the kernel, arguments in launch order.
pub type SimEntry = fn(&ThreadCtx, &[Arg]);

/// Concatenates the prelude, the prototypes of every device function reachable from
/// `root` (each once, in first-reached order) and then every definition, `root` last.
pub fn collect_source(root: &'static SourceItem) -> String {
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
    // Prototypes first, so device functions may call each other in any order (recursion
    // is refused by NVRTC's stack limits only at run time, not by C's declaration order).
    for item in items.iter().skip(1) {
        out.push_str(item.prototype);
        out.push('\n');
    }
    for item in items.iter().skip(1).rev() {
        out.push('\n');
        out.push_str(item.definition);
    }
    out.push('\n');
    out.push_str(root.definition);
    out
}

/// The C that every kernel starts with: typedefs and the helpers that give C Rust's
/// semantics (wrapping arithmetic, masked shifts, saturating float-to-int casts).
/// It includes no header: NVRTC as users get it has none.
pub const CUDA_PRELUDE: &str = include_str!("prelude.cuh");

/// Three unsigned components, as CUDA's `dim3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    /// `x * y * z`, the number of threads or blocks this size holds.
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// Where one simulated thread stands: CUDA's built-in index variables.
#[derive(Clone, Copy, Debug)]
pub struct ThreadCtx {
    pub thread_idx: Dim3,
    pub block_idx: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
}

impl ThreadCtx {
    pub fn thread_idx(&self) -> Dim3 {
        self.thread_idx
    }
    pub fn block_idx(&self) -> Dim3 {
        self.block_idx
    }
    pub fn block_dim(&self) -> Dim3 {
        self.block_dim
    }
    pub fn grid_dim(&self) -> Dim3 {
        self.grid_dim
    }
    /// Numba's `cuda.grid(1)`: the global index in x.
    pub fn grid_1d(&self) -> usize {
        self.block_idx.x as usize * self.block_dim.x as usize + self.thread_idx.x as usize
    }
    pub fn grid_2d(&self) -> (usize, usize) {
        (
            self.grid_1d(),
            self.block_idx.y as usize * self.block_dim.y as usize + self.thread_idx.y as usize,
        )
    }
    pub fn grid_3d(&self) -> (usize, usize, usize) {
        let (x, y) = self.grid_2d();
        (
            x,
            y,
            self.block_idx.z as usize * self.block_dim.z as usize + self.thread_idx.z as usize,
        )
    }
    /// Numba's `cuda.gridsize(1)`: threads in the whole grid along x.
    pub fn grid_stride_1d(&self) -> usize {
        self.grid_dim.x as usize * self.block_dim.x as usize
    }
}

/// One packed kernel argument. Slices become (address, length): on the GPU a device
/// pointer, on the simulator a host address. Scalars keep their bits in the low bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Slice { addr: u64, len: u64 },
    Scalar { bits: u64, size: u8 },
}

impl Arg {
    /// Rebuilds a read-only slice handle in the simulator entry.
    pub fn slice<T: KernelScalar>(&self) -> Slice<T> {
        match *self {
            Arg::Slice { addr, len } => Slice {
                ptr: addr as usize as *const T,
                len: len as usize,
            },
            Arg::Scalar { .. } => unreachable!("kernel ABI mismatch: scalar where a slice belongs"),
        }
    }
    /// Rebuilds a writable slice handle in the simulator entry.
    pub fn slice_mut<T: KernelScalar>(&self) -> SliceMut<T> {
        match *self {
            Arg::Slice { addr, len } => SliceMut {
                ptr: addr as usize as *mut T,
                len: len as usize,
            },
            Arg::Scalar { .. } => unreachable!("kernel ABI mismatch: scalar where a slice belongs"),
        }
    }
    /// Reads a scalar back in the simulator entry.
    pub fn scalar<T: KernelScalar>(&self) -> T {
        match *self {
            Arg::Scalar { bits, .. } => T::from_bits(bits),
            Arg::Slice { .. } => unreachable!("kernel ABI mismatch: slice where a scalar belongs"),
        }
    }
}

/// Types a kernel takes by value or as slice elements.
pub trait KernelScalar: Copy + Send + Sync + 'static {
    /// The C spelling, for messages.
    const C_NAME: &'static str;
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

macro_rules! kernel_scalar {
    ($($t:ty => $c:literal, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl KernelScalar for $t {
            const C_NAME: &'static str = $c;
            fn to_bits(self) -> u64 { let $v = self; $to }
            fn from_bits($b: u64) -> Self { $from }
        }
    )*};
}

kernel_scalar! {
    bool => "bool", |v| v as u64, |b| b != 0;
    i8 => "signed char", |v| v as u8 as u64, |b| b as u8 as i8;
    i16 => "short", |v| v as u16 as u64, |b| b as u16 as i16;
    i32 => "int", |v| v as u32 as u64, |b| b as u32 as i32;
    i64 => "long long", |v| v as u64, |b| b as i64;
    isize => "long long", |v| v as u64, |b| b as isize;
    u8 => "unsigned char", |v| v as u64, |b| b as u8;
    u16 => "unsigned short", |v| v as u64, |b| b as u16;
    u32 => "unsigned int", |v| v as u64, |b| b as u32;
    u64 => "unsigned long long", |v| v, |b| b;
    usize => "unsigned long long", |v| v as u64, |b| b as usize;
    f32 => "float", |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    f64 => "double", |v| v.to_bits(), |b| f64::from_bits(b);
}

/// A read-only slice inside a simulated kernel (`&[T]` in the kernel's signature).
/// Holds a raw pointer: many simulated threads read the same memory at once, and no
/// Rust reference to it is ever formed.
#[derive(Clone, Copy, Debug)]
pub struct Slice<T> {
    ptr: *const T,
    len: usize,
}

/// A writable slice inside a simulated kernel (`&mut [T]` in the kernel's signature).
#[derive(Clone, Copy, Debug)]
pub struct SliceMut<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the handles are plain addresses into buffers that outlive the launch; every
// access goes through `read`/`write` on raw pointers, never through a shared `&mut`.
unsafe impl<T: Send> Send for Slice<T> {}
unsafe impl<T: Sync> Sync for Slice<T> {}
unsafe impl<T: Send> Send for SliceMut<T> {}
unsafe impl<T: Sync> Sync for SliceMut<T> {}

/// Panics with the kernel-side bounds message; the simulator turns it into `Err`.
#[cold]
#[inline(never)]
fn out_of_bounds(index: usize, len: usize, line: u32) -> ! {
    std::panic::panic_any(OutOfBoundsPanic { index, len, line })
}

/// The payload of a simulated out-of-bounds access.
#[derive(Debug, Clone, Copy)]
pub struct OutOfBoundsPanic {
    pub index: usize,
    pub len: usize,
    pub line: u32,
}

impl<T: KernelScalar> Slice<T> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `slice[index]` at Rust source line `line`.
    #[inline]
    pub fn load(&self, index: usize, line: u32) -> T {
        if index >= self.len {
            out_of_bounds(index, self.len, line);
        }
        // SAFETY: index < len and the buffer lives for the launch.
        unsafe { self.ptr.add(index).read() }
    }
}

impl<T: KernelScalar> SliceMut<T> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// `slice[index]` at Rust source line `line`.
    #[inline]
    pub fn load(&self, index: usize, line: u32) -> T {
        if index >= self.len {
            out_of_bounds(index, self.len, line);
        }
        // SAFETY: index < len and the buffer lives for the launch.
        unsafe { self.ptr.add(index).read() }
    }
    /// `slice[index] = value` at Rust source line `line`.
    #[inline]
    pub fn store(&self, index: usize, value: T, line: u32) {
        if index >= self.len {
            out_of_bounds(index, self.len, line);
        }
        // SAFETY: index < len and the buffer lives for the launch.
        unsafe { self.ptr.add(index).write(value) }
    }
    /// The read-only view, for passing a `&mut [T]` where a `&[T]` is expected.
    pub fn as_slice(&self) -> Slice<T> {
        Slice {
            ptr: self.ptr,
            len: self.len,
        }
    }
}

/// A `&mut [T]` passed where a device function takes `&[T]` (Rust's reborrow coercion).
impl<T> From<SliceMut<T>> for Slice<T> {
    fn from(s: SliceMut<T>) -> Slice<T> {
        Slice {
            ptr: s.ptr,
            len: s.len,
        }
    }
}
