//! Vector types: two or four scalars moved by one load or store, CUDA's `float4`, `uint2`,
//! `int4`, `double2`, ... ([`f32x2`], [`f32x4`], [`u32x2`], [`u32x4`], [`i32x2`], [`i32x4`],
//! [`f64x2`]).
//!
//! Each is a `#[repr(C)]` struct of public fields `x, y` (and `z, w`) aligned to its whole
//! size, as CUDA's are, so that an element of a `&[f32x4]` is one 16-byte access on the GPU
//! (`ld.global.v4.f32`, `st.global.v4.f32`). In C they are `ws_f32x4` and friends, structs
//! of the same layout the kernel prelude defines (no CUDA header). `+`, `-` and `*` work
//! lane by lane; the integer ones wrap, as `std::simd` and the kernel language do.
//!
//! Host data moves between scalars and vectors with [`Vector::from_lanes`] (copies into a
//! `Vec`) and [`Vector::as_lanes`] (a view), device buffers with
//! [`DeviceBuffer::into_vectors`](crate::DeviceBuffer::into_vectors) and
//! [`DeviceBuffer::from_vectors`](crate::DeviceBuffer::from_vectors) (no copy). See
//! docs/vectors.md.

use std::ops::{Add, AddAssign, Mul, MulAssign, Sub, SubAssign};

use crate::error::{Error, Result};
use crate::scalar::KernelScalar;

/// A vector type: `LANES` values of type [`Vector::Lane`] side by side, with no padding
/// and aligned to its size. Implemented by [`f32x2`], [`f32x4`], [`u32x2`], [`u32x4`],
/// [`i32x2`], [`i32x4`] and [`f64x2`].
pub trait Vector: KernelScalar + PartialEq + std::fmt::Debug + Default {
    /// The type of one lane (`f32` for [`f32x4`]).
    type Lane: KernelScalar;
    /// The number of lanes (4 for [`f32x4`]).
    const LANES: usize;

    /// The lanes `x, y[, z, w]` in order.
    ///
    /// ```
    /// use warpspeed::{f32x4, Vector};
    /// assert_eq!(f32x4::new(1.0, 2.0, 3.0, 4.0).to_lanes(), vec![1.0, 2.0, 3.0, 4.0]);
    /// ```
    fn to_lanes(self) -> Vec<Self::Lane> {
        Self::as_lanes(std::slice::from_ref(&self)).to_vec()
    }

    /// The vectors `lanes` holds, `LANES` values each, copied (a `&[f32]` is not aligned
    /// for `f32x4`, so it cannot be viewed as one); an [`Error::NotWholeVectors`] when
    /// the length is not a multiple of `LANES`.
    ///
    /// ```
    /// use warpspeed::{f32x2, Vector};
    /// let v = f32x2::from_lanes(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(v, vec![f32x2::new(1.0, 2.0), f32x2::new(3.0, 4.0)]);
    /// assert!(f32x2::from_lanes(&[1.0, 2.0, 3.0]).is_err());
    /// ```
    fn from_lanes(lanes: &[Self::Lane]) -> Result<Vec<Self>> {
        whole_vectors::<Self>(lanes.len(), "from_lanes")?;
        let mut out = vec![Self::default(); lanes.len() / Self::LANES];
        // SAFETY: `out` holds exactly `lanes.len()` lanes (see `as_lanes_mut`'s layout
        // argument), and a `&mut [Self]` excludes any other access while it is written.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<Self::Lane>(), lanes.len())
        };
        dst.copy_from_slice(lanes);
        Ok(out)
    }

    /// The lanes of `vectors`, in order, without copying: `[f32x4]` viewed as `[f32]`.
    ///
    /// ```
    /// use warpspeed::{u32x2, Vector};
    /// let v = [u32x2::new(1, 2), u32x2::new(3, 4)];
    /// assert_eq!(u32x2::as_lanes(&v), &[1, 2, 3, 4]);
    /// ```
    fn as_lanes(vectors: &[Self]) -> &[Self::Lane] {
        // SAFETY: every vector type is `#[repr(C)]` with `LANES` fields of type `Lane` and
        // no padding (size == LANES * size_of::<Lane>(), checked in the tests), so its
        // memory is `LANES` initialised `Lane`s, aligned for `Lane`.
        unsafe {
            std::slice::from_raw_parts(
                vectors.as_ptr().cast::<Self::Lane>(),
                vectors.len() * Self::LANES,
            )
        }
    }
}

/// `len` lanes are a whole number of `V`s, or the error that says they are not.
pub(crate) fn whole_vectors<V: Vector>(len: usize, what: &str) -> Result<()> {
    if len.is_multiple_of(V::LANES) {
        Ok(())
    } else {
        Err(Error::NotWholeVectors {
            what: what.into(),
            vector: short_name::<V>(),
            lane: short_name::<V::Lane>(),
            len,
            lanes: V::LANES,
        })
    }
}

/// `f32x4` for `warpspeed_runtime::vector_types::f32x4`.
fn short_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// One vector type: the struct, its constructor, its lane-wise `+ - *` and its
/// [`KernelScalar`] and [`Vector`] impls.
macro_rules! vector_type {
    (
        $(#[$doc:meta])*
        $name:ident, $c:literal, $lane:ident, $n:literal, $align:literal, $bits:ident,
        [$($f:ident),+], $new_doc:literal
    ) => {
        $(#[$doc])*
        #[repr(C, align($align))]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        #[allow(non_camel_case_types)]
        pub struct $name {
            $(
                #[doc = concat!("The `", stringify!($f), "` lane.")]
                pub $f: $lane,
            )+
        }

        impl $name {
            #[doc = $new_doc]
            pub const fn new($($f: $lane),+) -> Self {
                $name { $($f),+ }
            }

            /// Every lane `v` (the kernel language has it too: a scalar does not mix with a
            /// vector, `v * 2.0` is written `v * f32x4::splat(2.0)`).
            pub const fn splat(v: $lane) -> Self {
                $name { $($f: v),+ }
            }
        }

        impl From<[$lane; $n]> for $name {
            fn from(a: [$lane; $n]) -> Self {
                let [$($f),+] = a;
                $name { $($f),+ }
            }
        }

        impl From<$name> for [$lane; $n] {
            fn from(v: $name) -> Self {
                [$(v.$f),+]
            }
        }

        impl Add for $name {
            type Output = $name;
            /// Lane by lane.
            fn add(self, rhs: $name) -> $name {
                $name { $($f: self.$f.lane_add(rhs.$f)),+ }
            }
        }
        impl Sub for $name {
            type Output = $name;
            /// Lane by lane.
            fn sub(self, rhs: $name) -> $name {
                $name { $($f: self.$f.lane_sub(rhs.$f)),+ }
            }
        }
        impl Mul for $name {
            type Output = $name;
            /// Lane by lane.
            fn mul(self, rhs: $name) -> $name {
                $name { $($f: self.$f.lane_mul(rhs.$f)),+ }
            }
        }
        impl AddAssign for $name {
            fn add_assign(&mut self, rhs: $name) {
                *self = *self + rhs;
            }
        }
        impl SubAssign for $name {
            fn sub_assign(&mut self, rhs: $name) {
                *self = *self - rhs;
            }
        }
        impl MulAssign for $name {
            fn mul_assign(&mut self, rhs: $name) {
                *self = *self * rhs;
            }
        }

        impl KernelScalar for $name {
            const C_NAME: &'static str = $c;
            fn to_bits(self) -> u64 {
                self.to_bits128() as u64
            }
            fn from_bits(bits: u64) -> Self {
                Self::from_bits128(u128::from(bits))
            }
            fn to_bits128(self) -> u128 {
                let mut bits = 0u128;
                let mut shift = 0;
                $(
                    bits |= (<$lane as LaneToBits>::to_bits(self.$f) as $bits as u128) << shift;
                    shift += <$bits>::BITS;
                )+
                let _ = shift;
                bits
            }
            fn from_bits128(bits: u128) -> Self {
                let mut shift = 0;
                $(
                    let $f = <$lane as LaneBits<$bits>>::from_bits((bits >> shift) as $bits);
                    shift += <$bits>::BITS;
                )+
                let _ = shift;
                $name { $($f),+ }
            }
        }

        impl Vector for $name {
            type Lane = $lane;
            const LANES: usize = $n;
        }
    };
}

/// Lane-wise operations: floats as IEEE (`+`), integers wrapping.
trait LaneOps: Sized {
    fn lane_add(self, o: Self) -> Self;
    fn lane_sub(self, o: Self) -> Self;
    fn lane_mul(self, o: Self) -> Self;
}

macro_rules! lane_ops {
    ($($t:ty: $add:ident, $sub:ident, $mul:ident;)*) => {$(
        impl LaneOps for $t {
            fn lane_add(self, o: Self) -> Self { self.$add(o) }
            fn lane_sub(self, o: Self) -> Self { self.$sub(o) }
            fn lane_mul(self, o: Self) -> Self { self.$mul(o) }
        }
    )*};
}

lane_ops! {
    f32: add, sub, mul;
    f64: add, sub, mul;
    u32: wrapping_add, wrapping_sub, wrapping_mul;
    i32: wrapping_add, wrapping_sub, wrapping_mul;
}

/// `from_bits` for the lanes: the float types' own, the integers' a cast.
trait LaneBits<B> {
    fn from_bits(b: B) -> Self;
}
impl LaneBits<u32> for f32 {
    fn from_bits(b: u32) -> f32 {
        f32::from_bits(b)
    }
}
impl LaneBits<u64> for f64 {
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
}
impl LaneBits<u32> for u32 {
    fn from_bits(b: u32) -> u32 {
        b
    }
}
impl LaneBits<u32> for i32 {
    fn from_bits(b: u32) -> i32 {
        b as i32
    }
}

/// `to_bits` for the lanes.
trait LaneToBits {
    fn to_bits(self) -> u64;
}
impl LaneToBits for f32 {
    fn to_bits(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
}
impl LaneToBits for f64 {
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
}
impl LaneToBits for u32 {
    fn to_bits(self) -> u64 {
        u64::from(self)
    }
}
impl LaneToBits for i32 {
    fn to_bits(self) -> u64 {
        u64::from(self as u32)
    }
}

vector_type! {
    /// Two `f32`s in 8 bytes, CUDA's `float2` (`ws_f32x2` in the generated C): an element of
    /// a `&[f32x2]` is one `ld.global.v2.f32`.
    f32x2, "ws_f32x2", f32, 2, 8, u32, [x, y], "The vector `(x, y)`, CUDA's `make_float2`."
}
vector_type! {
    /// Four `f32`s in 16 bytes, CUDA's `float4` (`ws_f32x4` in the generated C): an element
    /// of a `&[f32x4]` is one `ld.global.v4.f32`.
    ///
    /// ```
    /// use warpspeed::f32x4;
    /// let v = f32x4::new(1.0, 2.0, 3.0, 4.0);
    /// assert_eq!(v + f32x4::splat(1.0), f32x4::new(2.0, 3.0, 4.0, 5.0));
    /// assert_eq!((v.x, v.w), (1.0, 4.0));
    /// ```
    f32x4, "ws_f32x4", f32, 4, 16, u32, [x, y, z, w], "The vector `(x, y, z, w)`, CUDA's `make_float4`."
}
vector_type! {
    /// Two `u32`s in 8 bytes, CUDA's `uint2` (`ws_u32x2`). `+ - *` wrap.
    u32x2, "ws_u32x2", u32, 2, 8, u32, [x, y], "The vector `(x, y)`, CUDA's `make_uint2`."
}
vector_type! {
    /// Four `u32`s in 16 bytes, CUDA's `uint4` (`ws_u32x4`). `+ - *` wrap.
    u32x4, "ws_u32x4", u32, 4, 16, u32, [x, y, z, w], "The vector `(x, y, z, w)`, CUDA's `make_uint4`."
}
vector_type! {
    /// Two `i32`s in 8 bytes, CUDA's `int2` (`ws_i32x2`). `+ - *` wrap.
    i32x2, "ws_i32x2", i32, 2, 8, u32, [x, y], "The vector `(x, y)`, CUDA's `make_int2`."
}
vector_type! {
    /// Four `i32`s in 16 bytes, CUDA's `int4` (`ws_i32x4`). `+ - *` wrap.
    i32x4, "ws_i32x4", i32, 4, 16, u32, [x, y, z, w], "The vector `(x, y, z, w)`, CUDA's `make_int4`."
}
vector_type! {
    /// Two `f64`s in 16 bytes, CUDA's `double2` (`ws_f64x2`): an element of a `&[f64x2]` is
    /// one `ld.global.v2.f64`.
    f64x2, "ws_f64x2", f64, 2, 16, u64, [x, y], "The vector `(x, y)`, CUDA's `make_double2`."
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout<V: Vector>(align: usize) {
        assert_eq!(
            std::mem::size_of::<V>(),
            V::LANES * std::mem::size_of::<V::Lane>(),
            "{} has no padding",
            V::C_NAME
        );
        assert_eq!(std::mem::align_of::<V>(), align, "{}", V::C_NAME);
        assert_eq!(std::mem::size_of::<V>(), align, "{}", V::C_NAME);
    }

    #[test]
    fn layouts() {
        layout::<f32x2>(8);
        layout::<f32x4>(16);
        layout::<u32x2>(8);
        layout::<u32x4>(16);
        layout::<i32x2>(8);
        layout::<i32x4>(16);
        layout::<f64x2>(16);
    }

    #[test]
    fn bits_are_the_memory() {
        let v = f32x4::new(1.0, -2.0, f32::NAN, 0.5);
        let bits = v.to_bits128();
        // SAFETY: f32x4 is 16 plain bytes.
        let mem: u128 = unsafe { std::mem::transmute(v) };
        assert_eq!(bits, mem, "x in the lowest bytes (little endian)");
        assert_eq!(f32x4::from_bits128(bits).to_bits128(), bits);
        assert_eq!(v.to_bits(), bits as u64, "to_bits: the low 8 bytes");
        assert_eq!(
            f32x4::from_bits(bits as u64),
            f32x4::new(1.0, -2.0, 0.0, 0.0)
        );
        let d = f64x2::new(-0.0, 3.25);
        // SAFETY: f64x2 is 16 plain bytes.
        assert_eq!(d.to_bits128(), unsafe {
            std::mem::transmute::<f64x2, u128>(d)
        });
        assert_eq!(f64x2::from_bits128(d.to_bits128()), d);
        let i = i32x2::new(-1, 7);
        assert_eq!(i.to_bits(), 0x0000_0007_ffff_ffff);
        assert_eq!(i32x2::from_bits(i.to_bits()), i);
        assert_eq!(u32x4::from_bits128(0).to_bits128(), 0);
        assert_eq!(u32x4::default(), u32x4::splat(0));
    }

    #[test]
    fn ops_are_lanewise_and_integers_wrap() {
        let a = i32x4::new(i32::MAX, 1, -3, 4);
        let b = i32x4::new(1, 2, 3, -4);
        assert_eq!(a + b, i32x4::new(i32::MIN, 3, 0, 0));
        assert_eq!(a - b, i32x4::new(i32::MAX - 1, -1, -6, 8));
        assert_eq!(a * b, i32x4::new(i32::MAX, 2, -9, -16));
        let u = u32x2::new(0, u32::MAX);
        assert_eq!(u - u32x2::splat(1), u32x2::new(u32::MAX, u32::MAX - 1));
        let mut f = f32x2::new(0.1, 3.0);
        f *= f32x2::splat(2.0);
        f += f32x2::new(1.0, 1.0);
        f -= f32x2::new(0.0, 7.0);
        assert_eq!(f, f32x2::new(0.1 * 2.0 + 1.0, 0.0));
        assert_eq!(
            f64x2::new(1.5, 2.0) * f64x2::new(2.0, 0.25),
            f64x2::new(3.0, 0.5)
        );
    }

    #[test]
    fn lanes_round_trip() {
        let lanes: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let v = f32x4::from_lanes(&lanes).unwrap();
        assert_eq!(v[1], f32x4::new(4.0, 5.0, 6.0, 7.0));
        assert_eq!(f32x4::as_lanes(&v), &lanes[..]);
        assert_eq!(v[0].to_lanes(), vec![0.0, 1.0, 2.0, 3.0]);
        let err = f32x4::from_lanes(&lanes[..6]).unwrap_err().to_string();
        assert!(err.contains("6 `f32`s") && err.contains("f32x4"), "{err}");
        assert_eq!(<[f32; 4]>::from(v[1]), [4.0, 5.0, 6.0, 7.0]);
        assert_eq!(i32x2::from([1, 2]), i32x2::new(1, 2));
        assert!(u32x4::from_lanes(&[]).unwrap().is_empty());
    }
}
