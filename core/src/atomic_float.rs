//! `AtomicF32`, `AtomicF64`, `AtomicF16`, `AtomicF16x2`, `AtomicBf16` and `AtomicBf16x2`:
//! the float atomics Rust's `core::sync::atomic` lacks.
//!
//! In a kernel, `&[AtomicF32]` (or `SharedArray::<AtomicF32, N>`) is memory updated with
//! `fetch_add`, `fetch_sub`, `fetch_min`, `fetch_max`, `swap`, `compare_exchange`, `load` and
//! `store`, as for the integer atomics; on the host these types work the same way
//! (compare-and-swap loops on the bits), so code that shares them between CPU threads
//! behaves as in a kernel. `fetch_min`/`fetch_max` follow `f32::min`/`f32::max`: a NaN
//! operand loses to a number.
//!
//! The half types (`f16`, CUDA's `__half`, and `f16x2`, `__half2`) have CUDA's operations
//! only: `fetch_add` (`f16x2` adds each half), `swap`, `compare_exchange`, `load`, `store`;
//! so do the bfloat16 types (`bf16`, `__nv_bfloat16`, and `bf16x2`, `__nv_bfloat162`).

use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};

use warpspeed_runtime::{bf16, bf16x2, f16, f16x2};

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
            /// Stores `new` if the value has the bits of `current` (so `-0.0` and `0.0`
            /// differ, and a NaN can match itself): `Ok(previous)`, else `Err(actual)`.
            pub fn compare_exchange(
                &self,
                current: $float,
                new: $float,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$float, $float> {
                self.0
                    .compare_exchange(current.to_bits(), new.to_bits(), success, failure)
                    .map(<$float>::from_bits)
                    .map_err(<$float>::from_bits)
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
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.load(Ordering::Relaxed).fmt(f)
            }
        }
    };
}

/// `fetch_sub`, `fetch_min` and `fetch_max`, for `f32` and `f64`.
macro_rules! atomic_float_arith {
    ($name:ident, $float:ty) => {
        impl $name {
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
    };
}

atomic_float!(AtomicF32, f32, u32, AtomicU32);
atomic_float!(AtomicF64, f64, u64, AtomicU64);
atomic_float_arith!(AtomicF32, f32);
atomic_float_arith!(AtomicF64, f64);
atomic_float!(AtomicF16, f16, u16, AtomicU16);
atomic_float!(AtomicF16x2, f16x2, u32, AtomicU32);
atomic_float!(AtomicBf16, bf16, u16, AtomicU16);
atomic_float!(AtomicBf16x2, bf16x2, u32, AtomicU32);

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
        assert_eq!(
            a.compare_exchange(-0.0, 1.0, Ordering::SeqCst, Ordering::SeqCst),
            Err(8.0)
        );
        assert_eq!(
            a.compare_exchange(8.0, -0.0, Ordering::SeqCst, Ordering::SeqCst),
            Ok(8.0)
        );
        assert!(
            a.compare_exchange(0.0, 1.0, Ordering::SeqCst, Ordering::SeqCst)
                .is_err(),
            "by bits"
        );
        assert_eq!(a.into_inner().to_bits(), (-0.0f32).to_bits());
        let b = AtomicF64::new(0.25);
        b.store(1e300, Ordering::Relaxed);
        assert_eq!(b.fetch_max(2e300, Ordering::Relaxed), 1e300);
        assert_eq!(b.load(Ordering::Relaxed), 2e300);
    }

    fn h(x: f32) -> f16 {
        f16::from_f32(x)
    }

    #[test]
    fn half_atomics_on_the_host() {
        let a = AtomicF16::new(h(1.5));
        assert_eq!(a.fetch_add(h(2.0), Ordering::Relaxed), h(1.5));
        assert_eq!(a.load(Ordering::SeqCst), h(3.5));
        // 2048 + 1 rounds to 2048 (ties to even), as half's `+`.
        a.store(h(2048.0), Ordering::Release);
        assert_eq!(a.fetch_add(h(1.0), Ordering::AcqRel), h(2048.0));
        assert_eq!(a.swap(h(-0.25), Ordering::Acquire), h(2048.0));
        assert_eq!(
            a.compare_exchange(h(0.25), h(1.0), Ordering::SeqCst, Ordering::Relaxed),
            Err(h(-0.25))
        );
        assert_eq!(a.into_inner().to_bits(), h(-0.25).to_bits());
        assert_eq!(AtomicF16::default().into_inner().to_bits(), 0);
        assert_eq!(format!("{:?}", AtomicF16::new(h(0.5))), "0.5");
        // `new` is const: a static holds one.
        static ONE: AtomicF16 = AtomicF16::new(f16::ONE);
        assert_eq!(ONE.load(Ordering::Relaxed), h(1.0));

        let p = AtomicF16x2::new(f16x2::new(h(1.0), h(-1.0)));
        let old = p.fetch_add(f16x2::new(h(0.5), h(65504.0)), Ordering::SeqCst);
        assert_eq!(old, f16x2::new(h(1.0), h(-1.0)));
        let now = p.load(Ordering::Relaxed);
        assert_eq!((now.lo, now.hi), (h(1.5), h(65504.0)));
        p.store(f16x2::new(h(3.0), h(4.0)), Ordering::Relaxed);
        assert_eq!(
            p.swap(f16x2::default(), Ordering::Relaxed),
            f16x2::new(h(3.0), h(4.0))
        );
        assert_eq!(p.into_inner().to_bits(), 0);
    }

    #[test]
    fn half_atomic_adds_from_many_threads() {
        // Small integers: every order of the additions gives the same exact sum.
        let a = AtomicF16::new(h(0.0));
        let p = AtomicF16x2::new(f16x2::new(h(0.0), h(100.0)));
        std::thread::scope(|s| {
            for t in 0..8 {
                let (a, p) = (&a, &p);
                s.spawn(move || {
                    for i in 0..200 {
                        let v = h(((t + i) % 3) as f32);
                        a.fetch_add(v, Ordering::Relaxed);
                        p.fetch_add(f16x2::new(v, -v), Ordering::Relaxed);
                    }
                });
            }
        });
        let total: f32 = (0..8)
            .flat_map(|t| (0..200).map(move |i| ((t + i) % 3) as f32))
            .sum();
        assert_eq!(a.into_inner().to_f32(), total);
        let p = p.into_inner();
        assert_eq!((p.lo.to_f32(), p.hi.to_f32()), (total, 100.0 - total));
    }

    #[test]
    fn bf16_atomics_on_the_host() {
        let b = |x: f32| bf16::from_f32(x);
        let a = AtomicBf16::new(b(256.0));
        // 256 + 1 is a tie: to even, 256.
        assert_eq!(a.fetch_add(b(1.0), Ordering::Relaxed), b(256.0));
        assert_eq!(a.load(Ordering::SeqCst), b(256.0));
        assert_eq!(a.swap(b(-0.5), Ordering::AcqRel), b(256.0));
        assert_eq!(
            a.compare_exchange(b(-0.5), b(2.0), Ordering::SeqCst, Ordering::Relaxed),
            Ok(b(-0.5))
        );
        let p = AtomicBf16x2::new(bf16x2::new(b(1.0), b(-1.0)));
        p.fetch_add(bf16x2::new(b(0.5), b(3.0)), Ordering::SeqCst);
        assert_eq!(p.into_inner(), bf16x2::new(b(1.5), b(2.0)));
    }
}
