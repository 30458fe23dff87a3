//! `warpspeed::algorithms::operator!` (issue 22): a user's `#[gpu_device]` function made an
//! operator in the user's crate, over a scalar and over a `#[gpu_struct]`, reduced on both
//! backends against the CPU folding with the very same function (device functions run on
//! the host too); the identity for an empty input; the scratch and result checks; a
//! segmented scan with the struct operator against the CPU's.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::operator::Operator;
use warpspeed::algorithms::segmented::{self, Segments};
use warpspeed::algorithms::{operator, reduce};
use warpspeed::prelude::*;

/// The one of two values nearer zero, the first of equals.
#[gpu_device]
fn nearer_zero(a: f32, b: f32) -> f32 {
    if b.abs() < a.abs() {
        b
    } else {
        a
    }
}

operator! {
    /// The value nearest zero.
    pub struct NearestZero { elem: f32, combine: nearer_zero, identity: f32::INFINITY }
}

/// A running summary: how many, their sum, and the greatest (wrapping sum: exact in any
/// order).
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    count: u32,
    total: i64,
    top: i32,
}

mod ops {
    use super::Summary;
    use warpspeed::prelude::*;

    /// Two summaries as one.
    #[gpu_device]
    pub fn merge(a: Summary, b: Summary) -> Summary {
        Summary {
            count: a.count + b.count,
            total: a.total + b.total,
            top: a.top.max(b.top),
        }
    }
}

operator! {
    struct Merge {
        elem: Summary,
        combine: ops::merge,
        identity: Summary { count: 0, total: 0, top: -2147483648 },
    }
}

#[test]
fn a_users_float_operator_is_the_cpus_fold() {
    let mut rng = Rng::new(31);
    for n in [0usize, 1, 255, 1024, 1025, 100_003] {
        // Distinct magnitudes: the nearest to zero is one element, whatever the order.
        let mut x: Vec<f32> = (0..n).map(|i| (i as f32 + 1.0) * 0.5).collect();
        for i in (1..n).rev() {
            x.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        for (i, v) in x.iter_mut().enumerate() {
            if i % 2 == 1 {
                *v = -*v;
            }
        }
        let want = x.iter().copied().fold(f32::INFINITY, nearer_zero);
        for dev in devices("a_users_float_operator_is_the_cpus_fold") {
            let d = dev.upload(&x).unwrap();
            let got = reduce::reduce::<NearestZero>(&dev, &d).unwrap();
            assert_eq!(got, want, "n {n} {:?}", dev.backend());
        }
    }
}

#[test]
fn a_users_struct_operator_is_the_cpus_fold() {
    let mut rng = Rng::new(32);
    for n in [0usize, 1, 3, 1023, 4097, 300_001] {
        let x: Vec<Summary> = (0..n)
            .map(|_| {
                let v = rng.next_u64() as i32;
                Summary {
                    count: 1,
                    total: v as i64,
                    top: v,
                }
            })
            .collect();
        let identity = Summary {
            count: 0,
            total: 0,
            top: i32::MIN,
        };
        let want = x.iter().copied().fold(identity, ops::merge);
        for dev in devices("a_users_struct_operator_is_the_cpus_fold") {
            let d = dev.upload(&x).unwrap();
            assert_eq!(
                reduce::reduce::<Merge>(&dev, &d).unwrap(),
                want,
                "n {n} {:?}",
                dev.backend()
            );
            // Into a view of a larger buffer, on a stream, with the caller's scratch.
            let s = dev.create_stream().unwrap();
            let mut out = dev.upload(&[identity; 3]).unwrap();
            let mut scratch = dev.zeros::<Summary>(reduce::partials_for(n)).unwrap();
            reduce::reduce_into_with_scratch::<Merge>(
                &s,
                &d,
                &mut out.slice_mut(2..3),
                &mut scratch,
            )
            .unwrap();
            s.synchronize().unwrap();
            assert_eq!(out.download().unwrap(), vec![identity, identity, want]);
        }
    }
}

#[test]
fn a_users_struct_operator_scans_segments() {
    let mut rng = Rng::new(33);
    // Segments: empty, one element, past the 4096-element tile, short; none at the ends.
    let offsets = [2usize, 2, 3, 4100, 4100, 4330, 9001];
    let n = 9005;
    let x: Vec<Summary> = (0..n)
        .map(|_| {
            let v = rng.next_u64() as i32;
            Summary {
                count: 1,
                total: v as i64,
                top: v,
            }
        })
        .collect();
    let identity = Summary {
        count: 0,
        total: 0,
        top: i32::MIN,
    };
    let poison = Summary {
        count: 5,
        total: 5,
        top: 5,
    };
    let mut want = [vec![poison; n], vec![poison; n]];
    for w in offsets.windows(2) {
        let mut acc = identity;
        for i in w[0]..w[1] {
            want[1][i] = acc;
            acc = ops::merge(acc, x[i]);
            want[0][i] = acc;
        }
    }
    for dev in devices("a_users_struct_operator_scans_segments") {
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![poison; n]).unwrap();
        segmented::inclusive::<Merge>(&dev, &d, &segs, &mut out).unwrap();
        assert!(out.download().unwrap() == want[0], "{:?}", dev.backend());
        let mut out = dev.upload(&vec![poison; n]).unwrap();
        segmented::exclusive::<Merge>(&dev, &d, &segs, &mut out).unwrap();
        assert!(out.download().unwrap() == want[1], "{:?}", dev.backend());
    }
}

#[test]
fn short_scratch_is_refused_before_anything_runs() {
    for dev in devices("short_scratch_is_refused_before_anything_runs") {
        let x = dev.upload(&vec![1.0f32; 5000]).unwrap();
        let mut out = dev.upload(&[7.0f32]).unwrap();
        let mut scratch = dev.zeros::<f32>(2).unwrap();
        let err = reduce::reduce_into_with_scratch::<NearestZero>(&dev, &x, &mut out, &mut scratch)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in reduce::reduce_into_with_scratch: the scratch \
             (partials_for(x.len())): expected 5 elements, got 2"
        );
        assert_eq!(out.download().unwrap(), vec![7.0]);
    }
}

#[test]
fn the_operators_kernels_compile_with_nvrtc() {
    let mut all = Vec::new();
    for k in NearestZero::kernels().into_iter().chain(Merge::kernels()) {
        all.push((k.rust_name, k));
    }
    assert_eq!(
        all.len(),
        8,
        "block_reduce, chunk_scan, segment_reduce and segment_scan for each operator"
    );
    nvrtc_compiles(&all);
}
