//! Four consecutive elements moved as one access: [`load4`] and [`store4`], which an
//! elementwise kernel generic over its element type uses where it cannot name a vector type
//! (`warpspeed::algorithms::map!`'s vector path). docs/vectors.md ("Four elements as one
//! access") has the rules.

use super::outside_kernel;

/// The four elements of `src`, a four-element sub-slice written at the call with its end
/// (`&x[i..i + 4]`, of global or shared memory, any element type; a whole slice is a
/// compile error, `&q[0..4]` for one four long): one access of `4 * size_of::<T>()` bytes
/// where that is 4, 8 or 16 bytes (`ld.global.v4.f32` for `f32`), two to four 16-byte
/// accesses for 32 to 64 bytes (`f64`, a struct of two `f32`), and four element loads
/// otherwise. The wide access is taken only where the address is aligned to it
/// (`min(4 * size_of::<T>(), 16)` bytes): the C tests the address and falls back to four
/// loads, so any offset is correct and an aligned one is fast. The sub-slice is checked as
/// any (`i + 4 <= x.len()`, which the bounds prover usually removes); a range not four long
/// is [`Error::OutOfBounds`](crate::Error::OutOfBounds) at this line (index 3 of its length
/// when shorter, index its length of length 4 when longer), and gives `T::default()`s.
pub fn load4<T>(src: &[T]) -> (T, T, T, T) {
    let _ = src;
    outside_kernel("load4")
}

/// Writes `a, b, c, d` to the four elements of `dst` (`&mut out[i..i + 4]`, written at the
/// call as [`load4`]'s), as one wide store where the address is aligned, as [`load4`]
/// reads. A range not four long is [`Error::OutOfBounds`](crate::Error::OutOfBounds) at
/// this line, as [`load4`]'s, and nothing is written.
pub fn store4<T>(dst: &mut [T], a: T, b: T, c: T, d: T) {
    let _ = (dst, a, b, c, d);
    outside_kernel("store4")
}
