//! Element access to simulated memory: every load and store is a hardware atomic access
//! of the element's width, so even a racy kernel is not undefined behaviour in Rust.
//!
//! Plain kernel loads and stores are Relaxed atomic accesses ([`load_elem`],
//! [`store_elem`]); kernel atomics ([`AtomicScalar`], [`AtomicInt`]) are sequentially
//! consistent read-modify-writes on the element, at least as strong as any ordering a
//! kernel can ask for. Float add/min/max (`f16` and `f16x2` add too) and
//! `atomic_inc`/`atomic_dec` are compare-exchange loops on the bits.

use std::sync::atomic::{
    AtomicI32, AtomicI64, AtomicIsize, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
    Ordering::{Relaxed, SeqCst},
};

use crate::bf16_types::{bf16, bf16x2};
use crate::half_types::{f16, f16x2};
use crate::scalar::KernelScalar;

/// Reads one element as a Relaxed atomic load of its width; a 16-byte vector
/// ([`f32x4`](crate::f32x4), [`f64x2`](crate::f64x2), ...) as two 8-byte ones, low half
/// first (the GPU's `ld.v4.f32` is not one atomic access either: PTX makes a vector access
/// one access per lane). Race checks see the element as one, as they do every element.
///
/// # Safety
/// `p` is in bounds of a live allocation and aligned for `T` (whose alignment equals its
/// size for every [`KernelScalar`] but the `#[gpu_struct]`s on the 64-bit targets
/// warpspeed supports; a struct is read field by field, each as here).
#[inline(always)]
pub(crate) unsafe fn load_elem<T: KernelScalar>(p: *const T) -> T {
    const { assert!(T::STRUCT.is_some() || std::mem::align_of::<T>() >= std::mem::size_of::<T>()) };
    if let Some(access) = T::STRUCT {
        // SAFETY: as the caller promised; a struct reads each field through this function.
        return unsafe { (access.load)(p) };
    }
    let p = p.cast_mut();
    // SAFETY (each arm): as the caller promised; the atomic type has T's size and
    // alignment (16 bytes: two 8-byte halves, each aligned), and no non-atomic access to
    // simulated memory exists during a launch.
    let bits = unsafe {
        match std::mem::size_of::<T>() {
            1 => u128::from(AtomicU8::from_ptr(p.cast()).load(Relaxed)),
            2 => u128::from(AtomicU16::from_ptr(p.cast()).load(Relaxed)),
            4 => u128::from(AtomicU32::from_ptr(p.cast()).load(Relaxed)),
            8 => u128::from(AtomicU64::from_ptr(p.cast()).load(Relaxed)),
            16 => {
                let half = p.cast::<u64>();
                let lo = AtomicU64::from_ptr(half).load(Relaxed);
                let hi = AtomicU64::from_ptr(half.add(1)).load(Relaxed);
                u128::from(lo) | u128::from(hi) << 64
            }
            n => unreachable!("no {n}-byte kernel scalar"),
        }
    };
    T::from_bits128(bits)
}

/// Writes one element as a Relaxed atomic store of its width (16 bytes: two 8-byte
/// stores, as [`load_elem`] reads them).
///
/// # Safety
/// As [`load_elem`], and the memory is writable.
#[inline(always)]
pub(crate) unsafe fn store_elem<T: KernelScalar>(p: *mut T, value: T) {
    const { assert!(T::STRUCT.is_some() || std::mem::align_of::<T>() >= std::mem::size_of::<T>()) };
    if let Some(access) = T::STRUCT {
        // SAFETY: as the caller promised; a struct writes each field through this function.
        return unsafe { (access.store)(p, value) };
    }
    let bits = value.to_bits128();
    // SAFETY: as the caller promised (see load_elem).
    unsafe {
        match std::mem::size_of::<T>() {
            1 => AtomicU8::from_ptr(p.cast()).store(bits as u8, Relaxed),
            2 => AtomicU16::from_ptr(p.cast()).store(bits as u16, Relaxed),
            4 => AtomicU32::from_ptr(p.cast()).store(bits as u32, Relaxed),
            8 => AtomicU64::from_ptr(p.cast()).store(bits as u64, Relaxed),
            16 => {
                let half = p.cast::<u64>();
                AtomicU64::from_ptr(half).store(bits as u64, Relaxed);
                AtomicU64::from_ptr(half.add(1)).store((bits >> 64) as u64, Relaxed);
            }
            n => unreachable!("no {n}-byte kernel scalar"),
        }
    }
}

/// Scalars a kernel may update atomically (`&[AtomicU32]`, shared atomic arrays): CUDA's
/// `int`, `unsigned int`, `unsigned long long`, `long long`, `float`, `double`, plus
/// `usize`/`isize` (64-bit), `f16` (`__half`), `f16x2` (`__half2`), `bf16`
/// (`__nv_bfloat16`) and `bf16x2` (`__nv_bfloat162`). Every operation
/// returns the old value. The half types have only these operations (CUDA's table: load,
/// store, exchange, compare-and-swap, add); the others have [`AtomicArith`] too.
///
/// The methods are the simulator's; kernels call them through `AtomicSlice`.
///
/// # Safety (all methods)
/// `p` points to a live, aligned element of simulated memory.
pub trait AtomicScalar: KernelScalar {
    #[doc(hidden)]
    unsafe fn atomic_load(p: *mut Self) -> Self;
    #[doc(hidden)]
    unsafe fn atomic_store(p: *mut Self, v: Self);
    #[doc(hidden)]
    unsafe fn atomic_swap(p: *mut Self, v: Self) -> Self;
    /// Compares bits: `Ok(old)` when the element held `current`, else `Err(actual)`.
    #[doc(hidden)]
    unsafe fn atomic_compare_exchange(p: *mut Self, current: Self, new: Self)
        -> Result<Self, Self>;
    /// Integers wrap; floats add with Rust's `+` (`f16`: `half`'s, `f16x2`: each half).
    #[doc(hidden)]
    unsafe fn atomic_add(p: *mut Self, v: Self) -> Self;
}

/// Subtraction, minimum and maximum on top of [`AtomicScalar`]: the integers, `f32` and
/// `f64` (not the half types).
pub trait AtomicArith: AtomicScalar {
    #[doc(hidden)]
    unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self;
    /// Floats use `f32::min`/`f64::min` (a NaN operand loses).
    #[doc(hidden)]
    unsafe fn atomic_min(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atomic_max(p: *mut Self, v: Self) -> Self;
}

/// Integer atomics: the bitwise operations on top of [`AtomicArith`].
pub trait AtomicInt: AtomicArith {
    #[doc(hidden)]
    unsafe fn atomic_and(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atomic_or(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atomic_xor(p: *mut Self, v: Self) -> Self;
}

macro_rules! atomic_int {
    ($($t:ty => $a:ty;)*) => {$(
        // SAFETY of every `from_ptr` below: the caller of these unsafe methods promises a
        // live, aligned element; `$a` has the size and alignment of `$t`.
        impl AtomicScalar for $t {
            unsafe fn atomic_load(p: *mut Self) -> Self {
                unsafe { <$a>::from_ptr(p).load(SeqCst) }
            }
            unsafe fn atomic_store(p: *mut Self, v: Self) {
                unsafe { <$a>::from_ptr(p).store(v, SeqCst) }
            }
            unsafe fn atomic_swap(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).swap(v, SeqCst) }
            }
            unsafe fn atomic_compare_exchange(p: *mut Self, current: Self, new: Self) -> Result<Self, Self> {
                unsafe { <$a>::from_ptr(p).compare_exchange(current, new, SeqCst, SeqCst) }
            }
            unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_add(v, SeqCst) }
            }
        }
        impl AtomicArith for $t {
            unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_sub(v, SeqCst) }
            }
            unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_min(v, SeqCst) }
            }
            unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_max(v, SeqCst) }
            }
        }
        impl AtomicInt for $t {
            unsafe fn atomic_and(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_and(v, SeqCst) }
            }
            unsafe fn atomic_or(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_or(v, SeqCst) }
            }
            unsafe fn atomic_xor(p: *mut Self, v: Self) -> Self {
                unsafe { <$a>::from_ptr(p).fetch_xor(v, SeqCst) }
            }
        }
    )*};
}

atomic_int! {
    u32 => AtomicU32;
    i32 => AtomicI32;
    u64 => AtomicU64;
    i64 => AtomicI64;
    usize => AtomicUsize;
    isize => AtomicIsize;
}

/// The operations of [`AtomicScalar`] on a float type by its bits in `$a`.
macro_rules! atomic_float_scalar {
    ($($t:ty => $a:ty, $bits:ty;)*) => {$(
        impl AtomicScalar for $t {
            unsafe fn atomic_load(p: *mut Self) -> Self {
                // SAFETY: see atomic_int; `$a` has the size and alignment of `$t`.
                <$t>::from_bits(unsafe { <$a>::from_ptr(p.cast()).load(SeqCst) })
            }
            unsafe fn atomic_store(p: *mut Self, v: Self) {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p.cast()).store(v.to_bits(), SeqCst) }
            }
            unsafe fn atomic_swap(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                <$t>::from_bits(unsafe { <$a>::from_ptr(p.cast()).swap(v.to_bits(), SeqCst) })
            }
            unsafe fn atomic_compare_exchange(p: *mut Self, current: Self, new: Self) -> Result<Self, Self> {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p.cast()) }
                    .compare_exchange(current.to_bits(), new.to_bits(), SeqCst, SeqCst)
                    .map(<$t>::from_bits)
                    .map_err(<$t>::from_bits)
            }
            unsafe fn atomic_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: as the caller promised.
                unsafe { float_rmw::<$t, $a, $bits>(p, |old| old + v) }
            }
        }
    )*};
}

macro_rules! atomic_float {
    ($($t:ty => $a:ty, $bits:ty;)*) => {$(
        atomic_float_scalar! { $t => $a, $bits; }
        impl AtomicArith for $t {
            unsafe fn atomic_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as the caller promised.
                unsafe { float_rmw::<$t, $a, $bits>(p, |old| old - v) }
            }
            unsafe fn atomic_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as the caller promised.
                unsafe { float_rmw::<$t, $a, $bits>(p, |old| old.min(v)) }
            }
            unsafe fn atomic_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as the caller promised.
                unsafe { float_rmw::<$t, $a, $bits>(p, |old| old.max(v)) }
            }
        }
    )*};
}

atomic_float! {
    f32 => AtomicU32, u32;
    f64 => AtomicU64, u64;
}

atomic_float_scalar! {
    f16 => AtomicU16, u16;
    f16x2 => AtomicU32, u32;
    bf16 => AtomicU16, u16;
    bf16x2 => AtomicU32, u32;
}

/// The float types' bit access, for [`float_rmw`].
trait FloatBits: Copy {
    type Bits: Copy + Eq;
    fn to_bits_(self) -> Self::Bits;
    fn from_bits_(b: Self::Bits) -> Self;
}

impl FloatBits for f32 {
    type Bits = u32;
    fn to_bits_(self) -> u32 {
        self.to_bits()
    }
    fn from_bits_(b: u32) -> f32 {
        f32::from_bits(b)
    }
}

impl FloatBits for f64 {
    type Bits = u64;
    fn to_bits_(self) -> u64 {
        self.to_bits()
    }
    fn from_bits_(b: u64) -> f64 {
        f64::from_bits(b)
    }
}

impl FloatBits for f16 {
    type Bits = u16;
    fn to_bits_(self) -> u16 {
        self.to_bits()
    }
    fn from_bits_(b: u16) -> f16 {
        f16::from_bits(b)
    }
}

impl FloatBits for f16x2 {
    type Bits = u32;
    fn to_bits_(self) -> u32 {
        self.to_bits()
    }
    fn from_bits_(b: u32) -> f16x2 {
        f16x2::from_bits(b)
    }
}

impl FloatBits for bf16 {
    type Bits = u16;
    fn to_bits_(self) -> u16 {
        self.to_bits()
    }
    fn from_bits_(b: u16) -> bf16 {
        bf16::from_bits(b)
    }
}

impl FloatBits for bf16x2 {
    type Bits = u32;
    fn to_bits_(self) -> u32 {
        self.to_bits()
    }
    fn from_bits_(b: u32) -> bf16x2 {
        bf16x2::from_bits(b)
    }
}

/// The atomic types holding float bits.
trait AtomicBits<B> {
    /// # Safety
    /// As `AtomicU32::from_ptr`.
    unsafe fn at<'a>(p: *mut B) -> &'a Self;
    fn load_(&self) -> B;
    fn cas_(&self, old: B, new: B) -> Result<B, B>;
}

macro_rules! atomic_bits {
    ($($a:ty, $b:ty;)*) => {$(
        impl AtomicBits<$b> for $a {
            unsafe fn at<'a>(p: *mut $b) -> &'a Self {
                // SAFETY: as the caller promised.
                unsafe { <$a>::from_ptr(p) }
            }
            fn load_(&self) -> $b {
                self.load(SeqCst)
            }
            fn cas_(&self, old: $b, new: $b) -> Result<$b, $b> {
                self.compare_exchange_weak(old, new, SeqCst, SeqCst)
            }
        }
    )*};
}

atomic_bits! {
    AtomicU16, u16;
    AtomicU32, u32;
    AtomicU64, u64;
}

/// `*p = f(*p)` on a float element, atomically (a compare-exchange loop on its bits);
/// returns the old value.
///
/// # Safety
/// `p` points to a live, aligned element of simulated memory.
unsafe fn float_rmw<F, A, B>(p: *mut F, f: impl Fn(F) -> F) -> F
where
    F: FloatBits<Bits = B>,
    A: AtomicBits<B>,
    B: Copy + Eq,
{
    // SAFETY: as the caller promised; F and B have the same size and alignment.
    let a = unsafe { A::at(p.cast::<B>()) };
    let mut old = a.load_();
    loop {
        let new = f(F::from_bits_(old)).to_bits_();
        match a.cas_(old, new) {
            Ok(_) => return F::from_bits_(old),
            Err(actual) => old = actual,
        }
    }
}

/// CUDA's `atomicInc`: `old >= limit ? 0 : old + 1`; returns the old value.
///
/// # Safety
/// `p` points to a live, aligned element of simulated memory.
pub(crate) unsafe fn atomic_inc(p: *mut u32, limit: u32) -> u32 {
    // SAFETY: as the caller promised.
    let a = unsafe { AtomicU32::from_ptr(p) };
    a.fetch_update(SeqCst, SeqCst, |old| {
        Some(if old >= limit { 0 } else { old + 1 })
    })
    .unwrap_or_else(|old| old)
}

/// CUDA's `atomicDec`: `(old == 0 || old > limit) ? limit : old - 1`; returns the old value.
///
/// # Safety
/// `p` points to a live, aligned element of simulated memory.
pub(crate) unsafe fn atomic_dec(p: *mut u32, limit: u32) -> u32 {
    // SAFETY: as the caller promised.
    let a = unsafe { AtomicU32::from_ptr(p) };
    a.fetch_update(SeqCst, SeqCst, |old| {
        Some(if old == 0 || old > limit {
            limit
        } else {
            old - 1
        })
    })
    .unwrap_or_else(|old| old)
}

/// A field of a `#[gpu_struct]` element in simulated memory, read as [`load_elem`] reads
/// an element (the struct's generated `StructAccess` calls this).
///
/// # Safety
/// `p` points to the field of a live, aligned element of simulated memory.
#[doc(hidden)]
pub unsafe fn sim_load_field<T: KernelScalar>(p: *const T) -> T {
    // SAFETY: as the caller promised.
    unsafe { load_elem(p) }
}

/// The store of [`sim_load_field`].
///
/// # Safety
/// As [`sim_load_field`], and the memory is writable.
#[doc(hidden)]
pub unsafe fn sim_store_field<T: KernelScalar>(p: *mut T, value: T) {
    // SAFETY: as the caller promised.
    unsafe { store_elem(p, value) }
}
