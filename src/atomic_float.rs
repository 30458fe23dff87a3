//! `AtomicF32` and `AtomicF64`: the float atomics Rust's `core::sync::atomic` lacks.
//!
//! In a kernel, `&[AtomicF32]` (or `SharedArray::<AtomicF32, N>`) is memory updated with
//! `fetch_add`, `fetch_sub`, `fetch_min`, `fetch_max`, `swap`, `load` and `store`, as for the
//! integer atomics; on the host these types work the same way (compare-and-swap loops on the
//! bits), so code that shares them between CPU threads behaves as in a kernel.
//! `fetch_min`/`fetch_max` follow `f32::min`/`f32::max`: a NaN operand loses to a number.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

macro_rules! atomic_float {
    ($name:ident, $float:ty, $bits:ty, $atomic:ty) => {
        #[doc = concat!("A `", stringify!($float), "` updated atomically (its bits in an `", stringify!($atomic), "`).")]
        #[repr(transparent)]
        #[derive(Default)]
        pub struct $name($atomic);

        impl $name {
            pub const fn new(value: $float) -> Self {
                $name(<$atomic>::new(value.to_bits()))
            }
            pub fn load(&self, order: Ordering) -> $float {
                <$float>::from_bits(self.0.load(order))
            }
            pub fn store(&self, value: $float, order: Ordering) {
                self.0.store(value.to_bits(), order)
            }
            pub fn swap(&self, value: $float, order: Ordering) -> $float {
                <$float>::from_bits(self.0.swap(value.to_bits(), order))
            }
            pub fn into_inner(self) -> $float {
                <$float>::from_bits(self.0.into_inner())
            }
            /// Applies `f` in a compare-and-swap loop; returns the previous value.
            fn update(&self, order: Ordering, f: impl Fn($float) -> $float) -> $float {
                let load = match order {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    _ => Ordering::Acquire,
                };
                let prev = self.0.fetch_update(order, load, |bits| {
                    Some(f(<$float>::from_bits(bits)).to_bits())
                });
                <$float>::from_bits(prev.unwrap_or_else(|bits| bits))
            }
            pub fn fetch_add(&self, value: $float, order: Ordering) -> $float {
                self.update(order, |old| old + value)
            }
            pub fn fetch_sub(&self, value: $float, order: Ordering) -> $float {
                self.update(order, |old| old - value)
            }
            pub fn fetch_min(&self, value: $float, order: Ordering) -> $float {
                self.update(order, |old| old.min(value))
            }
            pub fn fetch_max(&self, value: $float, order: Ordering) -> $float {
                self.update(order, |old| old.max(value))
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.load(Ordering::Relaxed).fmt(f)
            }
        }
    };
}

atomic_float!(AtomicF32, f32, u32, AtomicU32);
atomic_float!(AtomicF64, f64, u64, AtomicU64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_atomics_on_the_host() {
        let a = AtomicF32::new(1.5);
        assert_eq!(a.fetch_add(2.0, Ordering::Relaxed), 1.5);
        assert_eq!(a.fetch_sub(0.5, Ordering::SeqCst), 3.5);
        assert_eq!(a.fetch_min(-1.0, Ordering::AcqRel), 3.0);
        assert_eq!(a.fetch_max(f32::NAN, Ordering::Release), -1.0);
        assert_eq!(a.swap(8.0, Ordering::Acquire), -1.0);
        assert_eq!(a.into_inner(), 8.0);
        let b = AtomicF64::new(0.25);
        b.store(1e300, Ordering::Relaxed);
        assert_eq!(b.fetch_max(2e300, Ordering::Relaxed), 1e300);
        assert_eq!(b.load(Ordering::Relaxed), 2e300);
    }
}
