//! What a collective combines and how: [`ReduceOp`] (NCCL's `ncclRedOp_t`) and
//! [`CollectiveScalar`], the element types NCCL moves (`ncclDataType_t`), each with the
//! simulator's arithmetic for them.
//!
//! The simulator reduces in rank order, `((x0 op x1) op x2) ..`, one element at a time in
//! the element's own type: integers wrap (as NCCL's do), `f16` and `bf16` round each step
//! to the type (IEEE half arithmetic), and `Avg` is the sum so formed, then divided by the
//! rank count (integers: truncated, as NCCL's integer average). Integer results are exact
//! and equal NCCL's; float results may differ from NCCL's in the last bits, whose order
//! depends on its algorithm (ring or tree) and the rank count.

use crate::bf16_types::bf16;
use crate::half_types::f16;
use crate::scalar::KernelScalar;

mod sealed {
    pub trait Sealed {}
}

/// How all_reduce, reduce and reduce_scatter combine the ranks' elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (integers wrap).
    Sum,
    /// The product (integers wrap).
    Prod,
    /// The least (floats: a NaN on any rank gives NaN).
    Min,
    /// The greatest (floats: a NaN on any rank gives NaN).
    Max,
    /// The sum divided by the rank count (integers: truncated toward zero).
    Avg,
}

impl ReduceOp {
    /// The name in messages and in NCCL's documentation.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Avg => "avg",
        }
    }
}

/// An element type the collectives move: the integers of 1, 4 and 8 bytes, `f16`, `bf16`,
/// `f32` and `f64` (NCCL's `ncclDataType_t`; NCCL has no 2-byte integers). Sealed: the
/// set is NCCL's.
pub trait CollectiveScalar: KernelScalar + PartialOrd + sealed::Sealed {
    /// The Rust name of the type (`"f32"`), for messages.
    const NAME: &'static str;
    /// NCCL's `ncclDataType_t` code of the type (`ncclFloat32` is 7).
    #[doc(hidden)]
    const NCCL_TYPE: u32;
    /// `a op b` (for `Avg`: the sum).
    fn combine(a: Self, b: Self, op: ReduceOp) -> Self;
    /// The average's last step: `self / ranks`.
    fn divide(self, ranks: usize) -> Self;
}

macro_rules! collective_int {
    ($($t:ty => $code:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveScalar for $t {
            const NAME: &'static str = stringify!($t);
            const NCCL_TYPE: u32 = $code;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum | ReduceOp::Avg => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
            fn divide(self, ranks: usize) -> Self {
                // `ranks` fits every type's positive range: a world of more ranks than
                // `i8::MAX` divides an 8-bit sum to zero or minus one anyway.
                match <$t>::try_from(ranks) {
                    Ok(r) if r != 0 => self / r,
                    _ => 0,
                }
            }
        }
    )*};
}

// NCCL's codes: ncclInt8 0, ncclUint8 1, ncclInt32 2, ncclUint32 3, ncclInt64 4,
// ncclUint64 5, ncclFloat16 6, ncclFloat32 7, ncclFloat64 8, ncclBfloat16 9.
collective_int!(i8 => 0, u8 => 1, i32 => 2, u32 => 3, i64 => 4, u64 => 5);

/// `min`/`max` of floats as NCCL's: a NaN wins.
fn float_pick<T: PartialOrd + Copy>(a: T, b: T, a_nan: bool, b_nan: bool, max: bool) -> T {
    if a_nan {
        a
    } else if b_nan || (b > a) == max {
        b
    } else {
        a
    }
}

macro_rules! collective_float {
    ($($t:ty => $code:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveScalar for $t {
            const NAME: &'static str = stringify!($t);
            const NCCL_TYPE: u32 = $code;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum | ReduceOp::Avg => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Min => float_pick(a, b, a.is_nan(), b.is_nan(), false),
                    ReduceOp::Max => float_pick(a, b, a.is_nan(), b.is_nan(), true),
                }
            }
            fn divide(self, ranks: usize) -> Self {
                self / ranks as $t
            }
        }
    )*};
}

collective_float!(f32 => 7, f64 => 8);

macro_rules! collective_half {
    ($($t:ty => $code:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl CollectiveScalar for $t {
            const NAME: &'static str = stringify!($t);
            const NCCL_TYPE: u32 = $code;
            fn combine(a: Self, b: Self, op: ReduceOp) -> Self {
                // Through f32, which holds every value of the type: each result is the
                // correctly rounded one (IEEE half arithmetic).
                let (x, y) = (a.to_f32(), b.to_f32());
                match op {
                    ReduceOp::Sum | ReduceOp::Avg => <$t>::from_f32(x + y),
                    ReduceOp::Prod => <$t>::from_f32(x * y),
                    ReduceOp::Min => float_pick(a, b, x.is_nan(), y.is_nan(), false),
                    ReduceOp::Max => float_pick(a, b, x.is_nan(), y.is_nan(), true),
                }
            }
            fn divide(self, ranks: usize) -> Self {
                <$t>::from_f32(self.to_f32() / ranks as f32)
            }
        }
    )*};
}

collective_half!(f16 => 6, bf16 => 9);

/// The rank-order reduction of `inputs` (one slice a rank, all one length).
pub(crate) fn reduce<T: CollectiveScalar>(inputs: &[&[T]], op: ReduceOp) -> Vec<T> {
    let Some((first, rest)) = inputs.split_first() else {
        return Vec::new();
    };
    let mut out = first.to_vec();
    for rank in rest {
        for (o, &x) in out.iter_mut().zip(rank.iter()) {
            *o = T::combine(*o, x, op);
        }
    }
    if op == ReduceOp::Avg {
        for o in &mut out {
            *o = o.divide(inputs.len());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_average_truncates() {
        let a = [i32::MAX, -7, 3];
        let b = [1, 2, -4];
        assert_eq!(reduce(&[&a, &b], ReduceOp::Sum), vec![i32::MIN, -5, -1]);
        assert_eq!(reduce(&[&a, &b], ReduceOp::Avg), vec![i32::MIN / 2, -2, 0]);
        assert_eq!(reduce(&[&a, &b], ReduceOp::Min), vec![1, -7, -4]);
        assert_eq!(
            reduce(&[&[200u8][..], &[100u8][..]], ReduceOp::Sum),
            vec![44]
        );
    }

    #[test]
    fn floats_reduce_in_rank_order_and_nan_wins_min_and_max() {
        let (a, b, c) = ([1e20f32, f32::NAN], [1.0f32, 0.0], [-1e20f32, 5.0]);
        // ((1e20 + 1) - 1e20) in f32 is 0: the rank order, not a reassociation.
        let sum = reduce(&[&a, &b, &c], ReduceOp::Sum);
        assert_eq!(sum[0], 0.0);
        assert!(reduce(&[&b, &a], ReduceOp::Max)[1].is_nan());
        assert!(reduce(&[&a, &c], ReduceOp::Min)[1].is_nan());
        let h = |x: f32| f16::from_f32(x);
        // 2048 + 1 is 2048 in f16 (11 significant bits), each step rounded.
        let got = reduce(
            &[&[h(2048.0)][..], &[h(1.0)][..], &[h(1.0)][..]],
            ReduceOp::Sum,
        );
        assert_eq!(got[0].to_f32(), 2048.0);
    }
}
