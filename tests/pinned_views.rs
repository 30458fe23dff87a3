//! Views of pinned memory (docs/host-api.md, "Streams"): a chunked pipeline with one
//! pinned allocation for its inputs and one for its outputs, each chunk uploaded from and
//! downloaded into a view on its own stream, equals the CPU on random data with poisoned
//! outputs, on the simulator and on the GPU where there is one; stream copies with
//! lengths that differ are `Error::LengthMismatch` naming both; the simulator's
//! stream-order checks see a view's range (overlapping ranges on two streams with no
//! event are reported, disjoint ones are not).

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;

/// `out[i] = x[i] * x[i] - 3`.
#[gpu_kernel]
fn square_less_three(out: &mut [f32], x: &[f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = x[i] * x[i] - 3.0;
    }
}

#[test]
fn chunked_pipeline_with_one_pinned_allocation_equals_the_cpu() {
    for dev in devices("chunked_pipeline_with_one_pinned_allocation_equals_the_cpu") {
        let (n, chunks) = (100_003, 4);
        let mut rng = Rng::new(21);
        let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e2, 1e2)).collect();
        let want: Vec<u32> = x.iter().map(|&v| (v * v - 3.0).to_bits()).collect();
        let streams: Vec<Stream> = (0..chunks).map(|_| dev.create_stream().unwrap()).collect();
        let input = dev.pinned_from(&x).unwrap();
        let mut output = dev.pinned_from(&vec![f32::NAN; n]).unwrap();
        let mut dx = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut dout = dev.upload(&vec![f32::NAN; n]).unwrap();
        let size = n.div_ceil(chunks);
        for (k, s) in streams.iter().enumerate() {
            let r = k * size..((k + 1) * size).min(n);
            s.upload(&input.slice(r.clone()), &mut dx.slice_mut(r.clone()))
                .unwrap();
            let cfg = LaunchConfig::new(r.len().div_ceil(256), 256);
            square_less_three::launch(s, cfg, &mut dout.slice_mut(r.clone()), &dx.slice(r.clone()))
                .unwrap();
            s.download(&dout.slice(r.clone()), &mut output.slice_mut(r))
                .unwrap();
        }
        // The host reads the output without synchronising: `as_slice` waits for the
        // downloads into it (the in-flight rule).
        let got: Vec<u32> = output
            .as_slice()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        for i in 0..n {
            assert_eq!(got[i], want[i], "{:?} element {i}", dev.backend());
        }
        // A view reads its own range.
        let tail = output.slice(n - 3..);
        assert_eq!(tail.as_slice().unwrap(), &f32s(&want[n - 3..])[..]);
        assert_eq!((tail.offset(), tail.len()), (n - 3, 3));
        // And the input is still what the host wrote.
        assert_eq!(input.as_slice().unwrap(), &x[..]);
    }
}

fn f32s(bits: &[u32]) -> Vec<f32> {
    bits.iter().map(|&b| f32::from_bits(b)).collect()
}

#[test]
fn views_of_views_and_partial_copies() {
    for dev in devices("views_of_views_and_partial_copies") {
        let s = dev.create_stream().unwrap();
        let mut rng = Rng::new(22);
        let data: Vec<u32> = (0..64).map(|_| rng.next_u32()).collect();
        let pinned = dev.pinned_from(&data).unwrap();
        let mut buf = dev.upload(&vec![u32::MAX; 64]).unwrap();
        // Elements 10..20 of the pinned memory (a view of a view) to 40..50 of the buffer.
        let view = pinned.slice(8..32).slice(2..12);
        assert_eq!(view.offset(), 10);
        s.upload(&view, &mut buf.slice_mut(40..50)).unwrap();
        let mut back = dev.pinned_from(&vec![u32::MAX; 64]).unwrap();
        {
            let mut outer = back.slice_mut(30..);
            s.download(&buf.slice(40..50), &mut outer.slice_mut(1..11))
                .unwrap();
        }
        let mut want_buf = vec![u32::MAX; 64];
        want_buf[40..50].copy_from_slice(&data[10..20]);
        assert_eq!(buf.download().unwrap(), want_buf, "{:?}", dev.backend());
        let mut want_back = vec![u32::MAX; 64];
        want_back[31..41].copy_from_slice(&data[10..20]);
        assert_eq!(
            back.as_slice().unwrap(),
            &want_back[..],
            "{:?}",
            dev.backend()
        );
        // Writing through a view reaches the buffer.
        back.slice_mut(..2)
            .as_mut_slice()
            .unwrap()
            .copy_from_slice(&[5, 6]);
        assert_eq!(&back.as_slice().unwrap()[..3], &[5, 6, u32::MAX]);
        // An empty view copies nothing.
        s.upload(&pinned.slice(3..3), &mut buf.slice_mut(0..0))
            .unwrap();
        assert!(pinned.try_slice(60..65).is_none());
        assert!(back.try_slice_mut(65..).is_none());
        assert_eq!(pinned.try_slice(60..64).map(|v| v.len()), Some(4));
    }
}

#[test]
#[should_panic(expected = "range 2..9 out of bounds for pinned memory of 8 elements")]
fn an_out_of_bounds_pinned_view_panics_as_a_slice_does() {
    let dev = Device::simulator();
    let pinned = dev.alloc_pinned::<u8>(8).unwrap();
    let _ = pinned.slice(2..9);
}

#[test]
fn copies_of_different_lengths_name_both() {
    for dev in devices("copies_of_different_lengths_name_both") {
        let s = dev.create_stream().unwrap();
        let pinned = dev.pinned_from(&[1.0f64; 8]).unwrap();
        let mut buf = dev.zeros::<f64>(8).unwrap();
        match s.upload(&pinned.slice(..3), &mut buf.slice_mut(..5)) {
            Err(Error::LengthMismatch {
                what,
                expected,
                found,
            }) => {
                assert!(what.starts_with("Stream::upload"), "{what}");
                assert_eq!((expected, found), (5, 3));
            }
            other => panic!("expected LengthMismatch, got {other:?}"),
        }
        let mut back = dev.alloc_pinned::<f64>(8).unwrap();
        let err = s
            .download(&buf.slice(..6), &mut back.slice_mut(..4))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Stream::download") && err.contains("expected 4") && err.contains("got 6"),
            "{err}"
        );
        // Nothing was copied.
        s.synchronize().unwrap();
        assert_eq!(buf.download().unwrap(), vec![0.0; 8]);
        assert_eq!(back.as_slice().unwrap(), &[0.0; 8]);
    }
}

#[test]
fn the_simulator_orders_pinned_views_by_their_ranges() {
    let dev = Device::simulator();
    let (s, t) = (dev.create_stream().unwrap(), dev.create_stream().unwrap());
    let src = dev.upload(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut pinned = dev.alloc_pinned::<u32>(64).unwrap();

    // Downloads into disjoint halves of one allocation on two streams: no order needed.
    s.download(&src.slice(..32), &mut pinned.slice_mut(..32))
        .unwrap();
    t.download(&src.slice(32..), &mut pinned.slice_mut(32..))
        .unwrap();
    // Overlapping ranges (element 31) written on two streams with no event: reported.
    s.download(&src.slice(..8), &mut pinned.slice_mut(24..32))
        .unwrap();
    let err = t
        .download(&src.slice(..8), &mut pinned.slice_mut(31..39))
        .unwrap_err();
    match &err {
        Error::UnorderedStreams {
            earlier,
            earlier_stream,
            later,
            later_stream,
            earlier_writes,
            later_writes,
        } => {
            assert!(
                earlier.contains("Stream::download into pinned memory [")
                    && earlier.contains("32] of 64 elements"),
                "{earlier}"
            );
            assert!(
                later.contains("Stream::download into pinned memory [31..39] of 64 elements"),
                "{later}"
            );
            assert_eq!((*earlier_stream, *later_stream), (1, 2));
            assert!(*earlier_writes && *later_writes);
        }
        other => panic!("expected UnorderedStreams, got {other:?}"),
    }
    // An upload on t reading a range s wrote, unordered: reported; after t waits for an
    // event s recorded, legal.
    let mut dst = dev.zeros::<u32>(8).unwrap();
    let err = t.upload(&pinned.slice(28..36), &mut dst).unwrap_err();
    assert!(matches!(err, Error::UnorderedStreams { .. }), "{err}");
    t.wait(&s.record().unwrap()).unwrap();
    t.upload(&pinned.slice(28..36), &mut dst).unwrap();
    // Reads of overlapping ranges on two streams need no order (28..32 was read on t).
    let mut other = dev.zeros::<u32>(8).unwrap();
    s.upload(&pinned.slice(24..32), &mut other).unwrap();
    dev.synchronize().unwrap();
    let mut want: Vec<u32> = (0..64).collect();
    want[24..32].copy_from_slice(&(0..8).collect::<Vec<_>>());
    assert_eq!(pinned.as_slice().unwrap(), &want[..]);
    assert_eq!(dst.download().unwrap(), want[28..36].to_vec());
    assert_eq!(other.download().unwrap(), want[24..32].to_vec());
}

#[test]
fn pinned_view_kernels_compile_with_nvrtc() {
    common::nvrtc_compiles(&[("square_less_three", &square_less_three::KERNEL)]);
}
