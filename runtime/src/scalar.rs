//! The values a kernel takes: [`KernelScalar`] (what may be a parameter or a slice
//! element, and its bits) and [`Arg`] (one packed argument of a launch). A leaf, shared by
//! both backends and the generated code.

use crate::bf16_types::{bf16, bf16x2};
use crate::fp8::{e4m3, e5m2};
use crate::half_types::{f16, f16x2};

/// One packed kernel argument. Slices become (address, length): on the GPU a device
/// pointer, on the simulator a host address. Scalars keep their bits in the low bytes
/// (16 of them for the 16-byte vector types); a `#[gpu_struct]` larger than 16 bytes
/// keeps its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A slice: its memory's address (device pointer or simulated host address) and its
    /// length in elements.
    Slice { addr: u64, len: u64 },
    /// A scalar: its bits in the low `size` bytes.
    Scalar { bits: u128, size: u8 },
    /// A value of more than 16 bytes (a `#[gpu_struct]`): its memory, padding zero, in a
    /// buffer of 16-byte words (the GPU reads it at the parameter's alignment, at most 16).
    Bytes(Box<[u128]>),
    /// A `Texture2D<T>` parameter (`texture.rs`).
    Texture(TexArg),
    /// A `TensorMap<T>` parameter (`tensor_map.rs`).
    TensorMap(Box<TmaArg>),
}

/// One tensor map as a kernel argument. On a GPU the kernel receives two C parameters:
/// `map`, the 128-byte `CUtensorMap` (a `const __grid_constant__` parameter), and
/// `box_word`; the simulator reads the memory at `addr` itself with the geometry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaArg {
    /// The encoded `CUtensorMap` (zero on the simulator).
    pub map: [u64; 16],
    /// The address of element (0, 0): a device pointer, or a simulated host address.
    pub addr: u64,
    /// Rows of the tensor.
    pub rows: u64,
    /// Columns (the innermost dimension).
    pub cols: u64,
    /// Elements from one row to the next.
    pub pitch: u64,
    /// Rows of a box.
    pub box_rows: u32,
    /// Columns of a box.
    pub box_cols: u32,
    /// How a box lands in shared memory.
    pub swizzle: crate::swizzle::Swizzle,
    /// The kernel's second C parameter: the box's elements in the low 32 bits, the tile
    /// alignment (128, or 1024 under the 128-byte swizzle) in the high 32 bits.
    pub box_word: u64,
}

/// One texture as a kernel argument. On a GPU the kernel receives four C parameters:
/// `handle` (the `cudaTextureObject_t`), `width`, `height` and `mode`
/// (`AddressMode::code`); the simulator reads the memory at `addr` itself, rows `pitch`
/// elements apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexArg {
    /// The texture object (0 on the simulator).
    pub handle: u64,
    /// Width in texels (at least 1).
    pub width: i32,
    /// Height in texels (at least 1).
    pub height: i32,
    /// `AddressMode::code`.
    pub mode: i32,
    /// The address of texel (0, 0): a device pointer, or a simulated host address.
    pub addr: u64,
    /// Elements from one row to the next.
    pub pitch: u64,
}

impl Arg {
    /// Reads a scalar back in the simulator entry.
    pub fn scalar<T: KernelScalar>(&self) -> T {
        match self {
            Arg::Scalar { bits, .. } => T::from_bits128(*bits),
            Arg::Bytes(words) => T::read_bytes(words_as_bytes(words)),
            Arg::Slice { .. } | Arg::Texture(_) | Arg::TensorMap(_) => {
                unreachable!("kernel ABI mismatch: memory where a scalar belongs")
            }
        }
    }

    /// `value` as an argument: its bits, or its bytes when it has more than 16.
    pub fn of<T: KernelScalar>(value: T) -> Arg {
        let size = std::mem::size_of::<T>();
        if size <= 16 {
            return Arg::Scalar {
                bits: value.to_bits128(),
                size: size as u8,
            };
        }
        let mut words = vec![0u128; size.div_ceil(16)].into_boxed_slice();
        let mut bytes = vec![0u8; size];
        value.write_bytes(&mut bytes);
        for (w, chunk) in words.iter_mut().zip(bytes.chunks(16)) {
            let mut b = [0u8; 16];
            b[..chunk.len()].copy_from_slice(chunk);
            *w = u128::from_le_bytes(b);
        }
        Arg::Bytes(words)
    }
}

/// The bytes of little-endian 16-byte words, in memory order.
fn words_as_bytes(words: &[u128]) -> &[u8] {
    // SAFETY: u128 has no padding and every byte of it is initialised; the bytes of a
    // little-endian word are its memory (warpspeed's hosts are little endian, as the GPU).
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

/// How the simulator reads and writes an element of a `#[gpu_struct]` type: field by
/// field, each through the simulator's element access (a struct has padding, which is
/// never read, and may be larger than any atomic access).
pub struct StructAccess<T> {
    /// Reads the element at the pointer.
    pub load: unsafe fn(*const T) -> T,
    /// Writes the element at the pointer.
    pub store: unsafe fn(*mut T, T),
}

/// Types a kernel takes by value or as slice elements: the scalars, the half types and the
/// vector types ([`Vector`](crate::Vector)), each plain data of its C type's size (at most
/// 16 bytes) and aligned to its size; and the `#[gpu_struct]`s, `#[repr(C)]` structs of
/// these (any size), for which the macro implements this trait.
pub trait KernelScalar: Copy + Send + Sync + 'static {
    /// The C spelling, for messages.
    const C_NAME: &'static str;
    /// The value's bits in the low `size_of::<Self>()` bytes (its memory, little endian);
    /// of a 16-byte vector type the low 8 bytes (lanes `x` and `y` of an `f32x4`; all
    /// of them: [`KernelScalar::to_bits128`]).
    fn to_bits(self) -> u64;
    /// The inverse of [`KernelScalar::to_bits`] (a 16-byte vector's high 8 bytes zero).
    fn from_bits(bits: u64) -> Self;
    /// All of the value's bits, as [`KernelScalar::to_bits`] for every size up to 16
    /// bytes: what a kernel argument and an element of simulated memory hold.
    fn to_bits128(self) -> u128 {
        u128::from(self.to_bits())
    }
    /// The inverse of [`KernelScalar::to_bits128`].
    fn from_bits128(bits: u128) -> Self {
        Self::from_bits(bits as u64)
    }
    /// Writes the value's memory as the GPU holds it into `out[..size_of::<Self>()]`
    /// (padding bytes zero): what uploads and struct arguments send. For the types of at
    /// most 16 bytes, the bytes of [`KernelScalar::to_bits128`]; a `#[gpu_struct]`
    /// writes each field at its offset.
    fn write_bytes(self, out: &mut [u8]) {
        let n = std::mem::size_of::<Self>();
        out[..n].copy_from_slice(&self.to_bits128().to_le_bytes()[..n]);
    }
    /// The inverse of [`KernelScalar::write_bytes`].
    fn read_bytes(bytes: &[u8]) -> Self {
        let n = std::mem::size_of::<Self>();
        let mut b = [0u8; 16];
        b[..n].copy_from_slice(&bytes[..n]);
        Self::from_bits128(u128::from_le_bytes(b))
    }
    /// `Some` for a `#[gpu_struct]`: how the simulator reads and writes one in memory.
    #[doc(hidden)]
    const STRUCT: Option<StructAccess<Self>> = None;
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
    f16 => "ws_f16", |v| u64::from(v.to_bits()), |b| f16::from_bits(b as u16);
    f16x2 => "ws_f16x2", |v| u64::from(v.to_bits()), |b| f16x2::from_bits(b as u32);
    e4m3 => "ws_e4m3", |v| u64::from(v.to_bits()), |b| e4m3::from_bits(b as u8);
    e5m2 => "ws_e5m2", |v| u64::from(v.to_bits()), |b| e5m2::from_bits(b as u8);
    bf16 => "ws_bf16", |v| u64::from(v.to_bits()), |b| bf16::from_bits(b as u16);
    bf16x2 => "ws_bf16x2", |v| u64::from(v.to_bits()), |b| bf16x2::from_bits(b as u32);
}
