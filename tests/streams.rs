//! Streams, events and pinned memory (docs/host-api.md, "Streams"), on the simulator and on
//! the GPU where there is one: chunks of random data uploaded, processed and downloaded on
//! several streams against the CPU; a stream that waits for another's event reads what
//! that one produced; pinned round trips; event timing; the in-flight rule (the host
//! waits before it reads or overwrites pinned memory a queued copy uses, and a buffer
//! dropped while a kernel still writes it is not reused under it). On the simulator, the
//! same programs without their event waits are `Error::UnorderedStreams`, naming both
//! operations; correctly ordered ones are not.
//!
//! The slow kernel `busy` keeps a stream occupied on a GPU, so that a host access that did
//! not wait would see the memory before the queued copy or kernel reached it.

#[path = "common/busy.rs"]
mod busy_kernel;
mod common;

use busy_kernel::{busy, busy_expected, busy_iters, cfg};
use common::{devices, Rng};
use std::time::Duration;
use warpspeed::prelude::*;
use warpspeed::Backend;

#[gpu_kernel]
fn add(out: &mut [f32], a: &[f32], b: &[f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a[i] + b[i];
    }
}

/// `out[i] = 2 * x[i] + 1` (wrapping).
#[gpu_kernel]
fn twice_plus_one(out: &mut [u32], x: &[u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = x[i].wrapping_mul(2).wrapping_add(1);
    }
}

#[test]
fn chunks_on_several_streams_equal_the_cpu() {
    for dev in devices("chunks_on_several_streams_equal_the_cpu") {
        let (n, chunks) = (10_007, 4);
        let mut rng = Rng::new(5);
        let a: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
        let streams: Vec<Stream> = (0..chunks).map(|_| dev.create_stream().unwrap()).collect();
        let mut da = dev.zeros::<f32>(n).unwrap();
        let mut db = dev.zeros::<f32>(n).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let size = n.div_ceil(chunks);
        let mut results = Vec::new();
        for (k, s) in streams.iter().enumerate() {
            let r = k * size..((k + 1) * size).min(n);
            let pa = dev.pinned_from(&a[r.clone()]).unwrap();
            let pb = dev.pinned_from(&b[r.clone()]).unwrap();
            s.upload(&pa, &mut da.slice_mut(r.clone())).unwrap();
            s.upload(&pb, &mut db.slice_mut(r.clone())).unwrap();
            add::launch(
                s,
                cfg(r.len()),
                &mut out.slice_mut(r.clone()),
                &da.slice(r.clone()),
                &db.slice(r.clone()),
            )
            .unwrap();
            let mut back = dev.alloc_pinned::<f32>(r.len()).unwrap();
            s.download(&out.slice(r.clone()), &mut back).unwrap();
            // The pinned inputs are dropped here, while their uploads may still be queued:
            // dropping waits for them.
            results.push((r, back));
        }
        for s in &streams {
            s.synchronize().unwrap();
        }
        let mut got = vec![f32::NAN; n];
        for (r, back) in &results {
            got[r.clone()].copy_from_slice(back.as_slice().unwrap());
        }
        for i in 0..n {
            assert_eq!(
                got[i].to_bits(),
                (a[i] + b[i]).to_bits(),
                "{:?} element {i}",
                dev.backend()
            );
        }
        // The device's own download agrees.
        assert_eq!(out.download().unwrap(), got);
    }
}

/// Stream `a` produces (a slow kernel), `b` consumes; `wait` says whether `b` waits for an
/// event `a` recorded.
fn produce_consume(dev: &Device, wait: bool) -> Result<Vec<u32>, Error> {
    let n = 4096;
    let (a, b) = (dev.create_stream()?, dev.create_stream()?);
    let mut mid = dev.zeros::<u32>(n)?;
    let mut out = dev.upload(&vec![u32::MAX; n])?;
    busy::launch(&a, cfg(n), &mut mid, 7, busy_iters(dev))?;
    if wait {
        let produced = a.record()?;
        b.wait(&produced)?;
    }
    let consumed = twice_plus_one::launch(&b, cfg(n), &mut out, &mid);
    // Whatever happened, `out` holds only what ran.
    b.synchronize()?;
    consumed?;
    out.download()
}

#[test]
fn a_stream_that_waits_for_an_event_reads_what_the_other_produced() {
    for dev in devices("a_stream_that_waits_for_an_event_reads_what_the_other_produced") {
        let got = produce_consume(&dev, true).unwrap();
        let want: Vec<u32> = busy_expected(4096, 7, busy_iters(&dev))
            .iter()
            .map(|x| x.wrapping_mul(2).wrapping_add(1))
            .collect();
        assert_eq!(got, want, "{:?}", dev.backend());
    }
}

#[test]
fn without_the_wait_the_simulator_names_both_operations() {
    let dev = Device::simulator();
    match produce_consume(&dev, false) {
        Err(Error::UnorderedStreams {
            earlier,
            earlier_stream,
            earlier_writes,
            later,
            later_stream,
            later_writes,
        }) => {
            assert!(earlier.starts_with("kernel `busy`"), "{earlier}");
            assert!(later.starts_with("kernel `twice_plus_one`"), "{later}");
            assert_eq!((earlier_stream, later_stream), (1, 2));
            assert!(earlier_writes && !later_writes);
        }
        other => panic!("expected UnorderedStreams, got {other:?}"),
    }
    let text = produce_consume(&dev, false).unwrap_err().to_string();
    assert!(
        text.contains("kernel `twice_plus_one`") && text.contains("kernel `busy`"),
        "{text}"
    );
    println!("{text}");
}

#[test]
fn the_simulator_reports_unordered_copies_and_accepts_every_ordering_edge() {
    let dev = Device::simulator();
    let n = 256;
    let (s, t) = (dev.create_stream().unwrap(), dev.create_stream().unwrap());
    let mut buf = dev.zeros::<u32>(n).unwrap();
    let mut out = dev.zeros::<u32>(n).unwrap();
    let pinned = dev.pinned_from(&busy_expected(n, 1, 0)).unwrap();

    // An upload on s, then a kernel on t that reads it: unordered.
    s.upload(&pinned, &mut buf).unwrap();
    let err = twice_plus_one::launch(&t, cfg(n), &mut out, &buf).unwrap_err();
    assert!(
        matches!(&err, Error::UnorderedStreams { earlier, later, .. }
            if earlier.contains("Stream::upload") && later.contains("twice_plus_one")),
        "{err}"
    );
    // Each ordering edge makes the same pair legal.
    type Edge = fn(&Device, &Stream, &Stream) -> Result<(), Error>;
    let edges: [(&str, Edge); 4] = [
        ("event wait", |_, s, t| t.wait(&s.record()?)),
        ("stream synchronize", |_, s, _| s.synchronize()),
        ("event synchronize", |_, s, _| s.record()?.synchronize()),
        ("device synchronize", |dev, _, _| dev.synchronize()),
    ];
    for (what, edge) in edges {
        s.upload(&pinned, &mut buf).unwrap();
        edge(&dev, &s, &t).unwrap();
        twice_plus_one::launch(&t, cfg(n), &mut out, &buf)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        dev.synchronize().unwrap();
        // Two streams writing disjoint halves, and reading the same memory, need no order.
        busy::launch(&s, cfg(n / 2), &mut buf.slice_mut(..n / 2), 0, 1).unwrap();
        busy::launch(&t, cfg(n / 2), &mut buf.slice_mut(n / 2..), 0, 1).unwrap();
        dev.synchronize().unwrap();
    }
    // A download on t of what s wrote, then the host reads the pinned memory: unordered
    // on the GPU's terms, until t waits.
    busy::launch(&s, cfg(n), &mut buf, 9, 1).unwrap();
    let mut back = dev.alloc_pinned::<u32>(n).unwrap();
    let err = t.download(&buf, &mut back).unwrap_err();
    assert!(matches!(err, Error::UnorderedStreams { .. }), "{err}");
    t.wait(&s.record().unwrap()).unwrap();
    t.download(&buf, &mut back).unwrap();
    assert_eq!(back.as_slice().unwrap(), &busy_expected(n, 9, 1)[..]);
    // The host waited for `back`'s download, which came after `busy` on s: a kernel on t
    // may now overwrite `buf` without another edge, but s may not read it yet.
    busy::launch(&t, cfg(n), &mut buf, 3, 1).unwrap();
    let err = twice_plus_one::launch(&s, cfg(n), &mut out, &buf).unwrap_err();
    assert!(matches!(err, Error::UnorderedStreams { .. }), "{err}");
    // An operation on the device's own queue orders everything before it before everything
    // after it, as CUDA's legacy default stream does.
    buf.fill(1).unwrap();
    twice_plus_one::launch(&s, cfg(n), &mut out, &buf).unwrap();
    assert_eq!(out.download().unwrap(), vec![3; n]);
}

#[test]
fn pinned_round_trip_on_a_stream() {
    for dev in devices("pinned_round_trip_on_a_stream") {
        let s = dev.create_stream().unwrap();
        let mut rng = Rng::new(9);
        for n in [0usize, 1, 1000, 65_537] {
            let data: Vec<f64> = (0..n).map(|_| rng.range_f64(-1e9, 1e9)).collect();
            let pinned = dev.pinned_from(&data).unwrap();
            assert_eq!(pinned.len(), n);
            let mut buf = dev.upload(&vec![f64::NAN; n]).unwrap();
            s.upload(&pinned, &mut buf).unwrap();
            let mut copy = dev.upload(&vec![f64::NAN; n]).unwrap();
            s.copy(&buf, &mut copy).unwrap();
            let mut back = dev.alloc_pinned::<f64>(n).unwrap();
            s.download(&copy, &mut back).unwrap();
            let got: Vec<u64> = back
                .as_slice()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            let want: Vec<u64> = data.iter().map(|x| x.to_bits()).collect();
            assert_eq!(got, want, "{:?} n = {n}", dev.backend());
        }
        // Lengths must match.
        let pinned = dev.alloc_pinned::<u32>(3).unwrap();
        let mut buf = dev.zeros::<u32>(4).unwrap();
        assert!(matches!(
            s.upload(&pinned, &mut buf),
            Err(Error::LengthMismatch { .. })
        ));
        s.upload(&pinned, &mut buf.slice_mut(1..)).unwrap();
        // Booleans and vectors too.
        let flags = dev.pinned_from(&[true, false, true]).unwrap();
        let mut dflags = dev.zeros::<bool>(3).unwrap();
        s.upload(&flags, &mut dflags).unwrap();
        s.synchronize().unwrap();
        assert_eq!(dflags.download().unwrap(), vec![true, false, true]);
    }
}

#[test]
fn events_measure_time() {
    for dev in devices("events_measure_time") {
        let s = dev.create_stream().unwrap();
        let n = 1 << 16;
        let mut out = dev.zeros::<u32>(n).unwrap();
        let start = s.record().unwrap();
        busy::launch(&s, cfg(n), &mut out, 1, busy_iters(&dev)).unwrap();
        let end = s.record().unwrap();
        let took = end.elapsed_since(&start).unwrap();
        println!("{:?}: busy took {took:?}", dev.backend());
        if dev.backend() == Backend::Cuda {
            assert!(
                took > Duration::ZERO && took < Duration::from_secs(60),
                "{took:?}"
            );
        }
        // The end event is done: the kernel's results are there.
        end.synchronize().unwrap();
        assert_eq!(
            out.download().unwrap(),
            busy_expected(n, 1, busy_iters(&dev))
        );
        // An event of another device is refused.
        let other = Device::simulator().create_stream().unwrap();
        assert!(matches!(
            other.wait(&start),
            Err(Error::DeviceMismatch { .. })
        ));
        let again = Device::simulator()
            .create_stream()
            .unwrap()
            .record()
            .unwrap();
        assert!(matches!(
            again.elapsed_since(&start),
            Err(Error::DeviceMismatch { .. })
        ));
    }
}

#[test]
fn the_host_waits_for_the_copies_that_use_pinned_memory() {
    for dev in devices("the_host_waits_for_the_copies_that_use_pinned_memory") {
        let n = 1 << 16;
        let s = dev.create_stream().unwrap();
        let mut buf = dev.zeros::<u32>(n).unwrap();
        // Reading: the download is queued behind a slow kernel; `as_slice` waits for it.
        let mut back = dev.alloc_pinned::<u32>(n).unwrap();
        busy::launch(&s, cfg(n), &mut buf, 5, busy_iters(&dev)).unwrap();
        s.download(&buf, &mut back).unwrap();
        assert_eq!(
            back.as_slice().unwrap(),
            &busy_expected(n, 5, busy_iters(&dev))[..]
        );

        // Writing: an upload queued behind a slow kernel reads the pinned memory later;
        // `as_mut_slice` waits until it has, so the buffer gets the old contents.
        let mut src = dev.pinned_from(&busy_expected(n, 11, 0)).unwrap();
        let mut other = dev.zeros::<u32>(n).unwrap();
        busy::launch(&s, cfg(n), &mut other, 0, busy_iters(&dev)).unwrap();
        s.upload(&src, &mut buf).unwrap();
        src.as_mut_slice().unwrap().fill(0xBAD);
        s.synchronize().unwrap();
        assert_eq!(buf.download().unwrap(), busy_expected(n, 11, 0));

        // Dropping pinned memory a queued download writes waits for it (no write into
        // freed memory: the process would be corrupted, and sanitizers would say so).
        busy::launch(&s, cfg(n), &mut other, 2, busy_iters(&dev)).unwrap();
        let mut doomed = dev.alloc_pinned::<u32>(n).unwrap();
        s.download(&other, &mut doomed).unwrap();
        drop(doomed);
        s.synchronize().unwrap();
        dev.synchronize().unwrap();
    }
}

#[test]
fn buffers_in_use_are_neither_reused_nor_read_early() {
    for dev in devices("buffers_in_use_are_neither_reused_nor_read_early") {
        let n = 1 << 16;
        let s = dev.create_stream().unwrap();
        // A buffer dropped while a kernel on `s` still writes it: its memory is freed after
        // the kernel, so a buffer allocated now (which may get the same memory) keeps what
        // was put in it.
        for round in 0..4u32 {
            let mut doomed = dev.zeros::<u32>(n).unwrap();
            busy::launch(&s, cfg(n), &mut doomed, round, busy_iters(&dev)).unwrap();
            drop(doomed);
            let fresh = dev.upload(&vec![0x5EED_0000 + round; n]).unwrap();
            s.synchronize().unwrap();
            dev.synchronize().unwrap();
            assert_eq!(fresh.download().unwrap(), vec![0x5EED_0000 + round; n]);
        }
        // The device's download of a buffer a stream's kernel writes waits for that kernel.
        let mut buf = dev.zeros::<u32>(n).unwrap();
        busy::launch(&s, cfg(n), &mut buf, 8, busy_iters(&dev)).unwrap();
        assert_eq!(
            buf.download().unwrap(),
            busy_expected(n, 8, busy_iters(&dev))
        );
        // And the device's writes are ordered after it: fill then read on the stream.
        busy::launch(&s, cfg(n), &mut buf, 9, busy_iters(&dev)).unwrap();
        buf.fill(4).unwrap();
        let mut back = dev.alloc_pinned::<u32>(n).unwrap();
        s.download(&buf, &mut back).unwrap();
        assert_eq!(back.as_slice().unwrap(), &vec![4; n][..]);
    }
}

#[test]
fn stream_kernels_compile_with_nvrtc() {
    common::nvrtc_compiles(&[
        ("add", &add::KERNEL),
        ("busy", &busy::KERNEL),
        ("twice_plus_one", &twice_plus_one::KERNEL),
    ]);
}
