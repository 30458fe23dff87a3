//! A library of kernel pieces for other crates (issue 20 item 6): a `pub` `#[gpu_struct]`
//! at the crate root and one in a module, `pub` `#[gpu_device]` functions that take and
//! return them, and a `pub` kernel. `tests/cross_crate.rs` (another crate) and
//! `src/bin/lin_bin.rs` (this package's binary, also another crate) write kernels with them.

use warpspeed::prelude::*;

/// A line `y = a * x + b`, at the crate root.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lin {
    pub a: f32,
    pub b: f32,
}

/// The line at `x`.
#[gpu_device]
pub fn eval(l: Lin, x: f32) -> f32 {
    l.a * x + l.b
}

/// The line through two points.
#[gpu_device]
pub fn through(x0: f32, y0: f32, x1: f32, y1: f32) -> Lin {
    let a = (y1 - y0) / (x1 - x0);
    Lin { a, b: y0 - a * x0 }
}

pub mod geo {
    use warpspeed::prelude::*;

    /// A point, in a module.
    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Pt {
        pub x: i32,
        pub y: i32,
    }

    /// Manhattan length and the quadrant.
    #[gpu_device]
    pub fn norm1(p: Pt) -> (u32, u32) {
        let q = if p.x >= 0 {
            if p.y >= 0 {
                0
            } else {
                3
            }
        } else if p.y >= 0 {
            1
        } else {
            2
        };
        (p.x.unsigned_abs() + p.y.unsigned_abs(), q)
    }

    /// A point (a result of a struct type the caller need not import).
    #[gpu_device]
    pub fn at(x: i32, y: i32) -> Pt {
        Pt { x, y }
    }

    /// Generic.
    #[gpu_device]
    pub fn mix<T: Float>(a: T, b: T) -> T {
        a * b + a
    }
}

/// A kernel of the library, launched by other crates.
#[gpu_kernel]
pub fn eval_all(l: Lin, x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = eval(l, x[i]);
    }
}

/// In the crate, by absolute paths (`crate::geo::Pt`, `crate::geo::norm1`): the paths
/// rustc refuses for a macro-expanded `#[macro_export]` macro itself.
#[gpu_kernel]
pub fn quadrants(p: &[crate::geo::Pt], q: &mut [u32]) {
    let i = grid_1d();
    if i < p.len() {
        let (_, quadrant) = crate::geo::norm1(p[i]);
        q[i] = quadrant;
    }
}

/// A generic struct and a generic device function over it, in a module (issue 20 item 4).
pub mod scale {
    use warpspeed::prelude::*;
    use warpspeed::Float;

    /// `x * k + off`.
    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Scale<T: Float> {
        pub k: T,
        pub off: T,
    }

    /// `x` scaled.
    #[gpu_device]
    pub fn apply<T: Float>(s: Scale<T>, x: T) -> T {
        x * s.k + s.off
    }

    /// The inverse scale (`k` non-zero).
    #[gpu_device]
    pub fn inverse<T: Float>(s: Scale<T>) -> Scale<T> {
        let k = T::one() / s.k;
        Scale {
            k,
            off: T::zero() - s.off * k,
        }
    }
}
