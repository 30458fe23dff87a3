//! Collectives across simulated devices (issue 23): `Devices::run` and every
//! `Communicator` collective on random data against a CPU reference (rank-order
//! reduction), on buffers, on views between poisoned neighbours and on streams; and the
//! errors: bad lengths and roots before anything is queued, ranks that disagree, a rank
//! that fails or never comes (an `Err`, not a hang), a buffer of another rank's device,
//! a panicking rank.

#[path = "common/busy.rs"]
mod busy_kernel;
mod common;

use std::time::{Duration, Instant};

use busy_kernel::{busy, busy_expected, busy_iters, cfg};
use common::Rng;
use warpspeed::{bf16, f16, CollectiveScalar, Devices, Error, ReduceOp};

/// Rank `r`'s data: `n` values from `draw`, seeded by the rank.
fn data<T>(rank: usize, n: usize, draw: impl Fn(&mut Rng) -> T) -> Vec<T> {
    let mut rng = Rng::new(0x5eed + rank as u64 * 7919);
    (0..n).map(|_| draw(&mut rng)).collect()
}

/// The CPU's reduction in rank order, as the simulator documents it.
fn reduce_ref<T: CollectiveScalar>(all: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    (0..all[0].len())
        .map(|i| {
            let mut acc = all[0][i];
            for v in &all[1..] {
                acc = T::combine(acc, v[i], op);
            }
            if op == ReduceOp::Avg {
                acc.divide(all.len())
            } else {
                acc
            }
        })
        .collect()
}

/// The worlds of `ranks` ranks to test on: simulated devices, then GPUs where the host
/// has that many (a printed notice otherwise; with `WARPSPEED_REQUIRE_GPU=1` a world of
/// one GPU at least must run).
fn worlds(test: &str, ranks: usize) -> Vec<Devices> {
    let mut v = vec![Devices::simulated(ranks)];
    let gpus = common::devices(test).len() > 1;
    match Devices::cuda(ranks) {
        Ok(d) if gpus => v.push(d),
        Ok(_) => {}
        Err(e) => println!("SKIPPED {test} on {ranks} GPUs: {e}"),
    }
    v
}

/// Whether `got` is `want`: bit for bit on simulated devices and for integers; within a
/// rounding of NCCL's own order (ring or tree) for floats on GPUs.
fn same<T: CollectiveScalar + std::fmt::Debug>(got: &[T], want: &[T], exact: bool) -> bool {
    if exact || !matches!(T::NAME, "f32" | "f64" | "f16" | "bf16") {
        return format!("{got:?}") == format!("{want:?}");
    }
    let num = |x: &T| {
        format!("{x:?}")
            .parse::<f64>()
            .expect("a float prints as a number")
    };
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            let (g, w) = (num(g), num(w));
            (g - w).abs() <= 1e-2 * w.abs().max(1.0) || (g.is_nan() && w.is_nan())
        })
}

/// Every collective of `T` over `ranks` ranks, each checked on every rank.
fn every_collective<T: CollectiveScalar + std::fmt::Debug>(
    ranks: usize,
    draw: impl Fn(&mut Rng) -> T + Sync,
) {
    every_collective_on(&Devices::simulated(ranks), draw);
}

/// [`every_collective`] on `devices`.
fn every_collective_on<T: CollectiveScalar + std::fmt::Debug>(
    devices: &Devices,
    draw: impl Fn(&mut Rng) -> T + Sync,
) {
    let ranks = devices.len();
    let exact = devices.device(0).unwrap().backend() == warpspeed::Backend::Simulator;
    let n = 3 * ranks * 5 + ranks; // a multiple of the ranks, not of a warp
    let all: Vec<Vec<T>> = (0..ranks).map(|r| data(r, n, &draw)).collect();
    let poison = draw(&mut Rng::new(99));
    let ops = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Avg,
    ];
    let got = devices
        .run(|comm| {
            let dev = comm.device();
            let mine = &all[comm.rank()];
            let mut out = Vec::new();
            for op in ops {
                // In place, on the device's queue.
                let mut buf = dev.upload(mine)?;
                comm.all_reduce(dev, &mut buf, op)?;
                out.push(buf.download()?);
                // Out of place, into a view between poisoned neighbours, on a stream.
                let s = dev.create_stream()?;
                let src = dev.upload(mine)?;
                let mut dst = dev.upload(&vec![poison; n + 2])?;
                comm.all_reduce_into(&s, &src, &mut dst.slice_mut(1..n + 1), op)?;
                s.synchronize()?;
                out.push(dst.download()?);
                // Reduce to root 1 (0 with one rank).
                let mut buf = dev.upload(mine)?;
                comm.reduce(dev, &mut buf, op, 1 % ranks)?;
                out.push(buf.download()?);
                // Reduce-scatter into a view.
                let mut dst = dev.upload(&vec![poison; n / ranks + 2])?;
                comm.reduce_scatter(dev, &src, &mut dst.slice_mut(1..n / ranks + 1), op)?;
                out.push(dst.download()?);
            }
            let root = ranks - 1;
            let mut buf = dev.upload(mine)?;
            comm.broadcast(dev, &mut buf, root)?;
            out.push(buf.download()?);
            // All-gather of a view of the rank's data.
            let src = dev.upload(mine)?;
            let mut dst = dev.zeros::<T>(ranks * 3)?;
            comm.all_gather(dev, &src.slice(2..5), &mut dst)?;
            out.push(dst.download()?);
            Ok(out)
        })
        .expect("every collective");
    let part = n / ranks;
    for (r, out) in got.iter().enumerate() {
        let mut out = out.iter();
        let mut next = || out.next().expect("one result a collective").clone();
        let check = |got: Vec<T>, want: &[T], what: &str| {
            assert!(
                same(&got, want, exact),
                "{what}: got {got:?}, want {want:?}"
            );
        };
        for op in ops {
            let want = reduce_ref(&all, op);
            let what = format!("{} {} rank {r} of {ranks}", T::NAME, op.name());
            check(next(), &want, &format!("all_reduce {what}"));
            let mut into = vec![poison];
            into.extend_from_slice(&want);
            into.push(poison);
            check(next(), &into, &format!("all_reduce_into {what}"));
            let reduced = if r == 1 % ranks { &want } else { &all[r] };
            check(next(), reduced, &format!("reduce {what}"));
            let mut scattered = vec![poison];
            scattered.extend_from_slice(&want[r * part..(r + 1) * part]);
            scattered.push(poison);
            check(next(), &scattered, &format!("reduce_scatter {what}"));
        }
        check(next(), &all[ranks - 1], &format!("broadcast rank {r}"));
        let gathered: Vec<T> = all.iter().flat_map(|v| v[2..5].to_vec()).collect();
        check(next(), &gathered, &format!("all_gather rank {r}"));
    }
}

#[test]
fn every_collective_of_every_type_matches_the_rank_order_reference() {
    for ranks in [1, 2, 3, 4] {
        every_collective::<i32>(ranks, |g| g.next_u32() as i32 % 1000);
        every_collective::<u8>(ranks, |g| g.next_u32() as u8);
        every_collective::<i64>(ranks, |g| g.next_u64() as i64);
        every_collective::<u64>(ranks, |g| g.next_u64() >> 3);
        every_collective::<f32>(ranks, |g| g.range_f32(-4.0, 4.0));
        every_collective::<f64>(ranks, |g| g.range_f64(-1e3, 1e3));
        every_collective::<f16>(ranks, |g| f16::from_f32(g.range_f32(-2.0, 2.0)));
        every_collective::<bf16>(ranks, |g| bf16::from_f32(g.range_f32(-2.0, 2.0)));
    }
}

#[test]
fn every_collective_of_every_type_on_gpus() {
    for ranks in [1, 2, 3, 4] {
        for devices in worlds("every_collective_of_every_type_on_gpus", ranks)
            .into_iter()
            .skip(1)
        {
            // Small integers: the float sums, products, minima and maxima are exact in
            // any order; the average is within a rounding.
            every_collective_on::<i32>(&devices, |g| g.next_u32() as i32 % 1000);
            every_collective_on::<u8>(&devices, |g| g.next_u32() as u8);
            every_collective_on::<i64>(&devices, |g| g.next_u64() as i64);
            every_collective_on::<u64>(&devices, |g| g.next_u64() >> 3);
            let small = |g: &mut Rng| (g.next_u32() % 9) as f32 - 4.0;
            every_collective_on::<f32>(&devices, small);
            every_collective_on::<f64>(&devices, |g| f64::from(small(g)));
            every_collective_on::<f16>(&devices, |g| f16::from_f32(small(g)));
            every_collective_on::<bf16>(&devices, |g| bf16::from_f32(small(g)));
        }
    }
}

#[test]
fn sends_and_receives_in_groups_pass_a_ring_both_ways() {
    for ranks in [1, 2, 3, 4] {
        for devices in worlds("sends_and_receives_in_groups_pass_a_ring_both_ways", ranks) {
            let n = 1000 + ranks;
            let got = devices
                .run(|comm| {
                    let (dev, r) = (comm.device(), comm.rank());
                    let (left, right) = ((r + ranks - 1) % ranks, (r + 1) % ranks);
                    let mine = dev.upload(&data(r, n, |g| g.next_u64()))?;
                    let s = dev.create_stream()?;
                    // A halo exchange: each rank sends to both neighbours and receives
                    // from both, into views between poisoned elements, on a stream.
                    let mut from_left = dev.upload(&vec![7u64; n + 2])?;
                    let mut from_right = dev.upload(&vec![7u64; n + 1])?;
                    let (mut l, mut r_view) =
                        (from_left.slice_mut(1..n + 1), from_right.slice_mut(..n));
                    let mut group = comm.group(&s);
                    group.send(&mine, right)?;
                    group.send(&mine, left)?;
                    group.recv(&mut l, left)?;
                    group.recv(&mut r_view, right)?;
                    group.end()?;
                    s.synchronize()?;
                    // One at a time, outside a group: rank 0 sends, the last receives.
                    let mut single = dev.upload(&[0u64; 3])?;
                    if ranks > 1 && r == 0 {
                        comm.send(dev, &mine.slice(..3), ranks - 1)?;
                    } else if ranks > 1 && r == ranks - 1 {
                        comm.recv(dev, &mut single, 0)?;
                    }
                    comm.synchronize()?;
                    let mut halo = from_left.download()?;
                    halo.extend(from_right.download()?);
                    Ok((halo, single.download()?))
                })
                .expect("the ring");
            for (r, (halo, single)) in got.iter().enumerate() {
                let (left, right) = ((r + ranks - 1) % ranks, (r + 1) % ranks);
                let mut want = vec![7u64];
                want.extend(data(left, n, |g| g.next_u64()));
                want.push(7);
                want.extend(data(right, n, |g| g.next_u64()));
                want.push(7);
                assert_eq!(halo, &want, "rank {r} of {ranks}");
                let first = if ranks > 1 && r == ranks - 1 {
                    data(0, 3, |g| g.next_u64())
                } else {
                    vec![0; 3]
                };
                assert_eq!(single, &first, "rank {r} of {ranks}");
            }
        }
    }
}

#[test]
fn a_receive_of_another_length_or_without_a_send_is_an_error_naming_the_lines() {
    let errors = Devices::simulated(2)
        .with_timeout(Duration::from_secs(30))
        .run(|comm| {
            let dev = comm.device();
            if comm.rank() == 0 {
                let a = dev.zeros::<f32>(5)?;
                comm.send(dev, &a, 1)?; // @send5
                Ok(String::new())
            } else {
                let mut b = dev.zeros::<f32>(6)?;
                let e = comm.recv(dev, &mut b, 0).unwrap_err().to_string(); // @recv6
                let late = comm.recv(dev, &mut b, 0).unwrap_err().to_string();
                Ok(format!("{e}\n{late}"))
            }
        })
        .unwrap();
    let src = include_str!("multi_collectives.rs");
    let e = &errors[1];
    assert!(
        e.contains(&format!(
            "multi_collectives.rs:{}",
            common::line_of(src, "send5")
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "multi_collectives.rs:{}",
            common::line_of(src, "recv6")
        )),
        "{e}"
    );
    assert!(e.contains("6 f32") && e.contains("5 f32"), "{e}");
    // Rank 0 left with nothing more posted: the second receive fails at once.
    assert!(e.contains("left the world"), "{e}");
}

#[test]
fn integer_sums_are_exact_and_wrap() {
    let out = Devices::simulated(3)
        .run(|comm| {
            let dev = comm.device();
            let mut buf = dev.upload(&[i32::MAX, 7, -(comm.rank() as i32)])?;
            comm.all_reduce(dev, &mut buf, ReduceOp::Sum)?;
            let mut avg = dev.upload(&[10 + comm.rank() as i64, -7])?;
            comm.all_reduce(dev, &mut avg, ReduceOp::Avg)?;
            Ok((buf.download()?, avg.download()?))
        })
        .unwrap();
    for (sum, avg) in out {
        assert_eq!(sum, vec![i32::MAX.wrapping_mul(3), 21, -3]);
        assert_eq!(avg, vec![11, -7]); // (10 + 11 + 12) / 3, -21 / 3
    }
}

#[test]
fn bad_lengths_and_roots_are_errors_before_anything_is_queued() {
    let errors = Devices::simulated(2)
        .with_timeout(Duration::from_secs(30))
        .run(|comm| {
            let dev = comm.device();
            let src = dev.upload(&[1.0f32; 6])?;
            let mut short = dev.zeros::<f32>(5)?;
            let e1 = comm.all_reduce_into(dev, &src, &mut short, ReduceOp::Sum);
            let mut gathered = dev.zeros::<f32>(6)?; // needs 12
            let e2 = comm.all_gather(dev, &src, &mut gathered);
            let odd = dev.upload(&[1.0f32; 5])?; // 5 does not split in 2
            let mut part = dev.zeros::<f32>(2)?;
            let e3 = comm.reduce_scatter(dev, &odd, &mut part, ReduceOp::Max);
            let mut buf = dev.upload(&[1u32; 4])?;
            let e4 = comm.broadcast(dev, &mut buf, 2);
            // Nothing was queued: a matching collective still meets the other rank's.
            comm.all_reduce(dev, &mut buf, ReduceOp::Sum)?;
            assert_eq!(buf.download()?, vec![2u32; 4]);
            Ok([e1, e2, e3, e4].map(|e| e.unwrap_err().to_string()))
        })
        .unwrap();
    for e in errors {
        assert!(
            e[0].contains("length mismatch")
                && e[0].contains("expected 6")
                && e[0].contains("got 5"),
            "{}",
            e[0]
        );
        assert!(
            e[1].contains("expected 12") && e[1].contains("got 6"),
            "{}",
            e[1]
        );
        assert!(e[2].contains("do not split into 2"), "{}", e[2]);
        assert!(e[3].contains("root 2 in a world of 2 ranks"), "{}", e[3]);
    }
}

#[test]
fn ranks_that_disagree_all_get_an_error_naming_each_call() {
    let errors = Devices::simulated(2)
        .run(|comm| {
            let dev = comm.device();
            let r = if comm.rank() == 0 {
                let mut buf = dev.zeros::<f32>(8)?;
                comm.all_reduce(dev, &mut buf, ReduceOp::Sum) // @rank0
            } else {
                let mut buf = dev.zeros::<f32>(9)?;
                comm.all_reduce(dev, &mut buf, ReduceOp::Sum) // @rank1
            };
            Ok(r.unwrap_err().to_string())
        })
        .unwrap();
    let src = include_str!("multi_collectives.rs");
    let line0 = common::line_of(src, "rank0");
    let line1 = common::line_of(src, "rank1");
    for e in &errors {
        assert!(e.starts_with("collective failed"), "{e}");
        assert!(e.contains(&format!("multi_collectives.rs:{line0}")), "{e}");
        assert!(e.contains(&format!("multi_collectives.rs:{line1}")), "{e}");
        assert!(e.contains("8") && e.contains("9"), "{e}");
    }
}

#[test]
fn a_rank_that_fails_fails_the_others_at_once_and_its_error_comes_back() {
    for devices in worlds("a_rank_that_fails_fails_the_others_at_once", 3) {
        a_rank_that_fails(devices);
    }
}

fn a_rank_that_fails(devices: Devices) {
    let start = Instant::now();
    let e = devices
        .with_timeout(Duration::from_secs(120))
        .run(|comm| {
            let dev = comm.device();
            let mut buf = dev.zeros::<u32>(4)?;
            if comm.rank() == 2 {
                // Rank 2's own error: it never reaches the collective.
                let short = dev.zeros::<u32>(3)?;
                comm.all_reduce_into(dev, &short, &mut buf, ReduceOp::Sum)?;
            }
            comm.all_reduce(dev, &mut buf, ReduceOp::Sum)?;
            comm.synchronize()
        })
        .unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "waited for the timeout"
    );
    // The cause, not the others' collective errors.
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
}

#[test]
fn a_rank_that_never_comes_is_an_error_within_the_timeout() {
    for devices in worlds("a_rank_that_never_comes_is_an_error_within_the_timeout", 2) {
        a_rank_that_never_comes(devices);
    }
}

fn a_rank_that_never_comes(devices: Devices) {
    let simulated = devices.device(0).unwrap().backend() == warpspeed::Backend::Simulator;
    let start = Instant::now();
    let e = devices
        .with_timeout(Duration::from_millis(1000))
        .run(|comm| {
            let dev = comm.device();
            let mut buf = dev.zeros::<f64>(2)?;
            if comm.rank() == 0 {
                comm.broadcast(dev, &mut buf, 0)?;
                // On GPUs the broadcast is queued; its failure shows here.
                comm.synchronize()?;
            } else {
                // Busy for longer than the timeout, then done without the collective.
                std::thread::sleep(Duration::from_millis(2500));
            }
            Ok(())
        })
        .unwrap_err()
        .to_string();
    assert!(start.elapsed() < Duration::from_secs(30));
    // The simulator names the rank that never came; NCCL cannot tell which one it is, and
    // names the collective that did not complete and its line.
    if simulated {
        assert!(e.contains("rank 1"), "{e}");
    } else {
        assert!(e.contains("rank 0") && e.contains("did not"), "{e}");
    }
    assert!(e.contains("broadcast"), "{e}");
}

#[test]
fn a_buffer_of_another_ranks_device_is_refused() {
    let devices = Devices::simulated(2);
    let other = devices.device(1).unwrap().clone();
    let e = devices
        .run(|comm| {
            let mut foreign = other.zeros::<i32>(4)?;
            if comm.rank() == 0 {
                let r = comm.all_reduce(comm.device(), &mut foreign, ReduceOp::Sum);
                let e = r.unwrap_err();
                assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
                return Err(e);
            }
            Ok(())
        })
        .unwrap_err();
    assert!(e.to_string().contains("rank 0"), "{e}");
}

#[test]
fn a_rank_that_panics_panics_the_caller_and_the_others_do_not_hang() {
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(|| {
        Devices::simulated(2)
            .with_timeout(Duration::from_secs(120))
            .run(|comm| {
                let dev = comm.device();
                let mut buf = dev.zeros::<u8>(1)?;
                if comm.rank() == 1 {
                    panic!("rank 1 gives up");
                }
                comm.all_reduce(dev, &mut buf, ReduceOp::Max)
            })
    });
    let payload = outcome.expect_err("the panic is resumed");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"rank 1 gives up"));
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn peer_copies_move_views_between_devices() {
    for devices in worlds("peer_copies_move_views_between_devices", 2) {
        let (a, b) = (devices.device(0).unwrap(), devices.device(1).unwrap());
        let n = 10_007;
        let src = data(3, n, |g| g.next_u32());
        let on_a = a.upload(&src).unwrap();
        let mut on_b = b.upload(&vec![0xdead_beef_u32; n]).unwrap();
        let s = b.create_stream().unwrap();
        s.copy_peer(&on_a.slice(3..), &mut on_b.slice_mut(1..n - 2))
            .unwrap();
        s.synchronize().unwrap();
        let mut want = vec![0xdead_beef_u32];
        want.extend_from_slice(&src[3..]);
        want.extend([0xdead_beef, 0xdead_beef]);
        assert_eq!(on_b.download().unwrap(), want);
        // A destination that is not the stream's device, and a length that differs.
        let mut wrong = a.zeros::<u32>(n).unwrap();
        let e = s.copy_peer(&on_b, &mut wrong).unwrap_err();
        assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
        let e = s.copy_peer(&on_a, &mut on_b.slice_mut(1..)).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    }
}

/// The copy waits for the source's writer on its own device, and the source's next writer
/// there waits for the copy: `busy` keeps device 0 working for milliseconds both times, so
/// a copy that did not wait would read the source before it was written, and one that was
/// not waited for would read the next writer's values.
#[test]
fn a_peer_copy_waits_for_the_sources_writers_on_its_device() {
    for devices in worlds("a_peer_copy_waits_for_the_sources_writers_on_its_device", 2) {
        let (a, b) = (devices.device(0).unwrap(), devices.device(1).unwrap());
        let (n, iters) = (1 << 16, busy_iters(a));
        let sa = a.create_stream().unwrap();
        let mut on_a = a.upload(&vec![0u32; n]).unwrap();
        busy::launch(&sa, cfg(n), &mut on_a, 11, iters).unwrap();
        let mut on_b = b.upload(&vec![0xdead_beef_u32; n]).unwrap();
        let sb = b.create_stream().unwrap();
        sb.copy_peer(&on_a, &mut on_b).unwrap();
        busy::launch(&sa, cfg(n), &mut on_a, 12, iters).unwrap();
        sb.synchronize().unwrap();
        assert_eq!(on_b.download().unwrap(), busy_expected(n, 11, iters));
        assert_eq!(on_a.download().unwrap(), busy_expected(n, 12, iters));
    }
}
