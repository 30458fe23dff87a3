//! Collectives across simulated devices (issue 23): `Devices::run` and every
//! `Communicator` collective on random data against a CPU reference (rank-order
//! reduction), on buffers, on views between poisoned neighbours and on streams; and the
//! errors: bad lengths and roots before anything is queued, ranks that disagree, a rank
//! that fails or never comes (an `Err`, not a hang), a buffer of another rank's device,
//! a panicking rank.

mod common;

use std::time::{Duration, Instant};

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

/// Every collective of `T` over `ranks` ranks, each checked on every rank.
fn every_collective<T: CollectiveScalar + std::fmt::Debug>(
    ranks: usize,
    draw: impl Fn(&mut Rng) -> T + Sync,
) {
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
    let got = Devices::simulated(ranks)
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
        let bits = |v: &[T]| format!("{v:?}");
        for op in ops {
            let want = reduce_ref(&all, op);
            let what = format!("{} {} rank {r} of {ranks}", T::NCCL_NAME, op.name());
            assert_eq!(bits(&next()), bits(&want), "all_reduce {what}");
            let mut into = vec![poison];
            into.extend_from_slice(&want);
            into.push(poison);
            assert_eq!(bits(&next()), bits(&into), "all_reduce_into {what}");
            let reduced = if r == 1 % ranks { &want } else { &all[r] };
            assert_eq!(bits(&next()), bits(reduced), "reduce {what}");
            let mut scattered = vec![poison];
            scattered.extend_from_slice(&want[r * part..(r + 1) * part]);
            scattered.push(poison);
            assert_eq!(bits(&next()), bits(&scattered), "reduce_scatter {what}");
        }
        assert_eq!(bits(&next()), bits(&all[ranks - 1]), "broadcast rank {r}");
        let gathered: Vec<T> = all.iter().flat_map(|v| v[2..5].to_vec()).collect();
        assert_eq!(bits(&next()), bits(&gathered), "all_gather rank {r}");
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
    let start = Instant::now();
    let e = Devices::simulated(3)
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
            Ok(())
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
    let start = Instant::now();
    let e = Devices::simulated(2)
        .with_timeout(Duration::from_millis(300))
        .run(|comm| {
            let dev = comm.device();
            let mut buf = dev.zeros::<f64>(2)?;
            if comm.rank() == 0 {
                comm.broadcast(dev, &mut buf, 0)?;
            } else {
                // Busy for longer than the timeout, then done without the collective.
                std::thread::sleep(Duration::from_millis(1500));
            }
            Ok(())
        })
        .unwrap_err()
        .to_string();
    assert!(start.elapsed() < Duration::from_secs(30));
    assert!(e.contains("rank 1"), "{e}");
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
