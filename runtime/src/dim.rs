//! [`Dim3`]: grid and block sizes and indices, as CUDA's `dim3`. A leaf: it imports
//! nothing from the crate.

/// Three unsigned components, as CUDA's `dim3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The first (fastest-varying) component.
    pub x: u32,
    /// The second component.
    pub y: u32,
    /// The third component.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    /// `x * y * z`, the number of threads or blocks this size holds.
    pub const fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// `(x, y, z)`, as CUDA tools print indices.
impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}

/// An integer a grid size, a block size, a number of elements or a number of bytes of a
/// [`LaunchConfig`](crate::LaunchConfig) may be given as: any of Rust's integer types up
/// to 64 bits (`u8` to `u64`, `usize`, `i8` to `i64`, `isize`), so that
/// `LaunchConfig::new(n.div_ceil(256), 256)` works with `n: usize` and
/// `LaunchConfig::new(4, 256)` with integer literals (which are `i32` when nothing else
/// fixes their type).
///
/// The conversion is checked, never truncated: a value that CUDA cannot launch with (more
/// than the device allows, which is below `u32::MAX`, or negative) makes the launch an
/// [`Error::InvalidLaunch`](crate::Error::InvalidLaunch) that names the value and the
/// limit; nothing runs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a launch size",
    label = "a size must be a Rust integer (`u32`, `usize`, `i32`, ...)",
    note = "convert it to one first: a float `x` as `x.ceil() as usize`"
)]
pub trait DimInt: Copy + sealed::Sealed {
    /// The value, exactly.
    #[doc(hidden)]
    fn to_i128(self) -> i128;
}

/// A grid or block size for [`LaunchConfig::new`](crate::LaunchConfig::new): a [`Dim3`],
/// one integer `x`, or a tuple `(x, y)` or `(x, y, z)`, each component a [`DimInt`]
/// (`u32`, `usize`, ...; they may differ: `(w.div_ceil(16), 16)`); missing dimensions
/// are 1.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a grid or block size",
    label = "expected an integer, a tuple `(x, y)` or `(x, y, z)` of integers, or a `Dim3`",
    note = "each integer may be of any Rust integer type up to 64 bits (`u32`, `usize`, `i32`, ...); convert a float first: `x.ceil() as usize`"
)]
pub trait IntoDim3: sealed::Sealed {
    /// The components `x, y, z`, exactly.
    #[doc(hidden)]
    fn to_i128s(self) -> [i128; 3];
}

mod sealed {
    /// Only the types listed here are sizes.
    pub trait Sealed {}
}

macro_rules! dim_ints {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl DimInt for $t {
            fn to_i128(self) -> i128 {
                // Lossless: every listed type fits an i128.
                self as i128
            }
        }
    )*};
}
dim_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl sealed::Sealed for Dim3 {}
impl IntoDim3 for Dim3 {
    fn to_i128s(self) -> [i128; 3] {
        [self.x.into(), self.y.into(), self.z.into()]
    }
}

impl<X: DimInt> IntoDim3 for X {
    fn to_i128s(self) -> [i128; 3] {
        [self.to_i128(), 1, 1]
    }
}

impl<X: DimInt, Y: DimInt> sealed::Sealed for (X, Y) {}
impl<X: DimInt, Y: DimInt> IntoDim3 for (X, Y) {
    fn to_i128s(self) -> [i128; 3] {
        [self.0.to_i128(), self.1.to_i128(), 1]
    }
}

impl<X: DimInt, Y: DimInt, Z: DimInt> sealed::Sealed for (X, Y, Z) {}
impl<X: DimInt, Y: DimInt, Z: DimInt> IntoDim3 for (X, Y, Z) {
    fn to_i128s(self) -> [i128; 3] {
        [self.0.to_i128(), self.1.to_i128(), self.2.to_i128()]
    }
}
