//! Integer methods as a release build computes them, in every build: the simulator's
//! spelling of the kernel methods whose std form panics on overflow in debug builds and
//! that have no `wrapping_` twin in std (the macro's method table names these).

/// `next_power_of_two` and `next_multiple_of` with release-mode wrapping.
pub trait ReleaseInt: Sized {
    /// The smallest power of two `>= self`; 0 past `MAX` (release builds wrap to 0).
    fn next_power_of_two(self) -> Self;
    /// The smallest multiple of `rhs` that is `>= self`, wrapping past `MAX`; panics
    /// when `rhs` is 0, as std does.
    fn next_multiple_of(self, rhs: Self) -> Self;
}

macro_rules! release_int {
    ($($t:ty),*) => {$(
        impl ReleaseInt for $t {
            fn next_power_of_two(self) -> Self {
                self.checked_next_power_of_two().unwrap_or(0)
            }
            fn next_multiple_of(self, rhs: Self) -> Self {
                match self % rhs {
                    0 => self,
                    r => self.wrapping_add(rhs - r),
                }
            }
        }
    )*};
}
release_int!(u8, u16, u32, u64, usize);

#[cfg(test)]
mod tests {
    use super::ReleaseInt;

    #[test]
    fn wraps_where_std_panics_in_debug() {
        assert_eq!(ReleaseInt::next_power_of_two(200u8), 0);
        assert_eq!(ReleaseInt::next_power_of_two(100u8), 128);
        assert_eq!(ReleaseInt::next_power_of_two(0u32), 1);
        assert_eq!(ReleaseInt::next_multiple_of(250u8, 7), 252);
        assert_eq!(ReleaseInt::next_multiple_of(253u8, 7), 3); // 259 wraps to 3
    }
}
