//! The host API a cudarc or Numba user expects, on the simulator and on the GPU where there
//! is one (docs/host-api.md): views of buffers passed to kernels (offset, length and bounds
//! checks are the view's), out-of-range views refused, `fill` for every element size,
//! device-to-device copies between buffers and views, host copies of views, and launch
//! configurations from the occupancy calculator. Outputs are poisoned before each run and
//! inputs are random, so an element written where it should not be, or not written, shows.

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{f16, Backend, Device, DeviceBuffer, LaunchConfig, Stream};

#[gpu_kernel]
fn scale(out: &mut [f32], x: &[f32], a: f32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a * x[i];
    }
}

/// Each element gets the slice lengths the kernel sees and its index.
#[gpu_kernel]
fn lengths(out: &mut [u64], other: &[u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = (out.len() as u64) << 40 | (other.len() as u64) << 20 | i as u64;
    }
}

/// Writes one element, wherever it is asked to.
#[gpu_kernel]
fn poke(out: &mut [i32], k: usize) {
    if grid_1d() == 0 {
        out[k] = 1;
    }
}

#[gpu_kernel(block = (128, 1, 1))]
fn declared_1d(out: &mut [u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = i as u32;
    }
}

#[gpu_kernel(block = (16, 16, 1))]
fn declared_2d(out: &mut [u32]) {
    let (x, y) = grid_2d();
    if x < out.len() {
        out[x] = y as u32;
    }
}

fn random_f32(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.range_f32(-100.0, 100.0)).collect()
}

#[test]
fn views_are_kernel_arguments() {
    for dev in devices("views_are_kernel_arguments") {
        let mut rng = Rng::new(11);
        let n = 1000;
        let x = random_f32(&mut rng, n);
        let xs = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![-7.5f32; n]).unwrap();
        {
            let mut view = out.slice_mut(100..600);
            let cfg = LaunchConfig::for_num_elems(500);
            scale::launch(&dev, cfg, &mut view, &xs.slice(300..800), 3.0).unwrap();
        }
        let got = out.download().unwrap();
        for (i, &v) in got.iter().enumerate() {
            let want = if (100..600).contains(&i) {
                3.0 * x[i + 200]
            } else {
                -7.5
            };
            assert_eq!(
                v.to_bits(),
                want.to_bits(),
                "{:?}: element {i}",
                dev.backend()
            );
        }

        // A view of a view, a mutable view read as `&[T]`, a whole buffer as `&mut [T]`.
        let mut twice = dev.upload(&[0.0f32; 50]).unwrap();
        let inner = xs.slice(10..).slice(5..55);
        assert_eq!((inner.offset(), inner.len()), (15, 50));
        let mut out2 = dev.zeros::<f32>(n).unwrap();
        let mut outer = out2.slice_mut(..);
        let mut tail = outer.slice_mut(950..);
        tail.copy_from(&inner).unwrap();
        scale::launch(
            &dev,
            LaunchConfig::for_num_elems(50),
            &mut twice,
            &tail,
            2.0,
        )
        .unwrap();
        let got = twice.download().unwrap();
        let want: Vec<f32> = x[15..65].iter().map(|v| 2.0 * v).collect();
        assert_eq!(got, want, "{:?}", dev.backend());
    }
}

#[test]
fn kernels_see_the_views_length() {
    for dev in devices("kernels_see_the_views_length") {
        let mut out = dev.upload(&vec![u64::MAX; 64]).unwrap();
        let other = dev.zeros::<u32>(100).unwrap();
        lengths::launch(
            &dev,
            LaunchConfig::new(2, 32),
            &mut out.slice_mut(8..40),
            &other.slice(90..),
        )
        .unwrap();
        let got = out.download().unwrap();
        for (i, &v) in got.iter().enumerate() {
            let want = if (8..40).contains(&i) {
                32u64 << 40 | 10 << 20 | (i as u64 - 8)
            } else {
                u64::MAX
            };
            assert_eq!(v, want, "{:?}: element {i}", dev.backend());
        }
    }
}

#[test]
fn bounds_checks_use_the_views_length() {
    for dev in devices("bounds_checks_use_the_views_length") {
        let mut buf = dev.upload(&[0i32; 8]).unwrap();
        // Index 5 of a 4-element view is element 7 of the buffer: inside the buffer, out of
        // the view.
        let launched = poke::launch(&dev, LaunchConfig::new(1, 32), &mut buf.slice_mut(2..6), 5);
        let err = launched
            .and_then(|()| dev.synchronize())
            .expect_err("index 5 of a view of 4 elements");
        match err {
            Error::OutOfBounds { index, len, .. } => {
                assert_eq!((index, len), (5, 4), "{:?}", dev.backend());
            }
            other => panic!("{:?}: expected OutOfBounds, got {other}", dev.backend()),
        }
        assert_eq!(buf.download().unwrap(), vec![0; 8], "{:?}", dev.backend());
        // In range it writes the view's element.
        poke::launch(&dev, LaunchConfig::new(1, 32), &mut buf.slice_mut(2..6), 3).unwrap();
        assert_eq!(buf.download().unwrap(), vec![0, 0, 0, 0, 0, 1, 0, 0]);
    }
}

#[test]
fn views_out_of_range_are_refused() {
    for dev in devices("views_out_of_range_are_refused") {
        let mut buf = dev.upload(&[1u16, 2, 3, 4, 5]).unwrap();
        assert!(buf.try_slice(2..6).is_none());
        #[allow(clippy::reversed_empty_ranges)] // a reversed range is what is tested
        let reversed = 4..3;
        assert!(buf.try_slice(reversed).is_none());
        assert!(buf.try_slice(..=5).is_none());
        assert!(buf.try_slice(..=usize::MAX).is_none());
        assert!(buf.try_slice_mut(6..).is_none());
        assert_eq!(buf.try_slice(5..).map(|v| v.len()), Some(0));
        assert_eq!(
            buf.try_slice(1..=3).unwrap().download().unwrap(),
            vec![2, 3, 4]
        );
        let view = buf.slice(1..4);
        assert!(view.try_slice(1..4).is_none());
        assert_eq!(view.slice(1..).download().unwrap(), vec![3, 4]);
        let panic = std::panic::catch_unwind(|| {
            buf.slice(3..9);
        })
        .expect_err("slice(3..9) of 5 elements panics");
        let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(
            text,
            "range 3..9 out of bounds for device memory of 5 elements"
        );
        let mut view = buf.slice_mut(1..4);
        assert!(view.try_slice_mut(2..4).is_none());
        let mut slice_past_end = || {
            view.slice_mut(..=3);
        };
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&mut slice_past_end));
        assert!(unwound.is_err());
    }
}

/// `fill` on a range of a random buffer, for each element size (1, 2, 4, 8, 16 bytes) and
/// for a view starting at an odd element, compared with the same on the host.
fn check_fill<T: KernelScalar + PartialEq + std::fmt::Debug>(dev: &Device, data: Vec<T>, value: T) {
    let mut buf = dev.upload(&data).unwrap();
    let n = data.len();
    buf.slice_mut(3..n - 5).fill(value).unwrap();
    let mut want = data.clone();
    want[3..n - 5].fill(value);
    assert_eq!(
        buf.download().unwrap(),
        want,
        "{:?} {}",
        dev.backend(),
        T::C_NAME
    );
    buf.fill(value).unwrap();
    assert_eq!(buf.download().unwrap(), vec![value; n]);
    buf.slice_mut(n..).fill(data[0]).unwrap();
}

#[test]
fn fill_every_element_size() {
    for dev in devices("fill_every_element_size") {
        let mut rng = Rng::new(5);
        let n = 1037;
        let mut bits = |_| rng.next_u64();
        let words: Vec<u64> = (0..4 * n).map(&mut bits).collect();
        check_fill(&dev, words.iter().map(|&w| w as u8).collect(), 0xA5u8);
        check_fill(&dev, words.iter().map(|&w| w & 1 == 1).collect(), true);
        check_fill(&dev, words.iter().map(|&w| w as i16).collect(), -12345i16);
        check_fill(
            &dev,
            words
                .iter()
                .map(|&w| f16::from_bits(w as u16 & 0x7bff))
                .collect(),
            f16::from_f32(-2.5),
        );
        check_fill(
            &dev,
            words.iter().map(|&w| w as u32).collect(),
            0xDEAD_BEEFu32,
        );
        check_fill(&dev, words.iter().map(|&w| w as f32).collect(), -0.0f32);
        check_fill(
            &dev,
            words.iter().map(|&w| w as f64).collect(),
            1.0e300f64 / 3.0,
        );
        check_fill(&dev, words.clone(), 0x0123_4567_89AB_CDEFu64);
        let vectors: Vec<u32x4> = words
            .chunks(4)
            .map(|c| u32x4::new(c[0] as u32, c[1] as u32, c[2] as u32, c[3] as u32))
            .collect();
        check_fill(&dev, vectors, u32x4::new(1, 0xFFFF_FFFF, 3, 0x8000_0000));
        check_fill(
            &dev,
            words
                .iter()
                .map(|&w| f64x2::new(w as f64, -(w as f64)))
                .collect(),
            f64x2::new(0.1, -7.0),
        );
    }
}

#[test]
fn device_to_device_copies() {
    for dev in devices("device_to_device_copies") {
        let mut rng = Rng::new(3);
        let a: Vec<u32> = (0..500).map(|_| rng.next_u64() as u32).collect();
        let src = dev.upload(&a).unwrap();
        let mut dst = dev.upload(&vec![u32::MAX; 300]).unwrap();
        dst.slice_mut(100..250)
            .copy_from(&src.slice(7..157))
            .unwrap();
        let got = dst.download().unwrap();
        for (i, &v) in got.iter().enumerate() {
            let want = if (100..250).contains(&i) {
                a[i - 93]
            } else {
                u32::MAX
            };
            assert_eq!(v, want, "{:?}: element {i}", dev.backend());
        }
        dst.copy_from(&src.slice(200..)).unwrap();
        assert_eq!(dst.download().unwrap(), a[200..].to_vec());
        // A new buffer from a view; lengths that differ are an error.
        assert_eq!(
            dev.copy(&src.slice(490..)).unwrap().download().unwrap(),
            a[490..]
        );
        assert_eq!(dev.copy(&src.slice(4..4)).unwrap().len(), 0);
        assert!(matches!(
            dst.copy_from(&src),
            Err(Error::LengthMismatch {
                expected: 300,
                found: 500,
                ..
            })
        ));
        // Host copies of views.
        let mut view = dst.slice_mut(10..13);
        view.copy_from_host(&[1, 2, 3]).unwrap();
        let mut three = [0u32; 3];
        view.copy_to_host(&mut three).unwrap();
        assert_eq!(three, [1, 2, 3]);
        assert!(matches!(
            view.copy_from_host(&[1, 2]),
            Err(Error::LengthMismatch {
                expected: 3,
                found: 2,
                ..
            })
        ));
        assert_eq!(dst.download().unwrap()[9..14], [a[209], 1, 2, 3, a[213]]);
    }
}

#[test]
fn copies_across_backends_are_refused() {
    let devs = devices("copies_across_backends_are_refused");
    let Some(gpu) = devs.iter().find(|d| d.backend() == Backend::Cuda) else {
        return;
    };
    let sim = &devs[0];
    let on_sim = sim.upload(&[1i64, 2, 3]).unwrap();
    let mut on_gpu = gpu.zeros::<i64>(3).unwrap();
    assert!(matches!(
        on_gpu.copy_from(&on_sim),
        Err(Error::DeviceMismatch { .. })
    ));
    assert!(matches!(
        gpu.copy(&on_sim),
        Err(Error::DeviceMismatch { .. })
    ));
}

#[test]
fn occupancy_configurations() {
    for dev in devices("occupancy_configurations") {
        let mut rng = Rng::new(9);
        for n in [1usize, 1000, 100_003] {
            let cfg = LaunchConfig::for_occupancy(&dev, &scale::KERNEL, n as u32).unwrap();
            let block = cfg.block.x;
            assert_eq!(
                (cfg.block.y, cfg.block.z, cfg.grid.y, cfg.grid.z),
                (1, 1, 1, 1)
            );
            assert!(
                (32..=1024).contains(&block) && block.is_multiple_of(32),
                "{cfg}"
            );
            assert_eq!(cfg.grid.x, (n as u32).div_ceil(block), "{cfg}");
            if dev.backend() == Backend::Simulator {
                assert_eq!(block, 1024, "the simulator's documented choice");
            }
            let x = random_f32(&mut rng, n);
            let xs = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            scale::launch(&dev, cfg, &mut out, &xs, -1.5).unwrap();
            let want: Vec<f32> = x.iter().map(|v| -1.5 * v).collect();
            assert_eq!(out.download().unwrap(), want, "{:?} n={n}", dev.backend());
        }
        let cfg = LaunchConfig::for_occupancy(&dev, &declared_1d::KERNEL, 300).unwrap();
        assert_eq!(cfg, LaunchConfig::new(3, 128));
        let mut out = dev.zeros::<u32>(300).unwrap();
        declared_1d::launch(&dev, cfg, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), (0..300).collect::<Vec<u32>>());
        assert!(matches!(
            LaunchConfig::for_occupancy(&dev, &declared_2d::KERNEL, 300),
            Err(Error::InvalidLaunch { .. })
        ));
    }
}

#[test]
fn buffers_go_to_cudarc_and_back() {
    for dev in devices("buffers_go_to_cudarc_and_back") {
        let buf = dev.upload(&[1.0f32, 2.0, 3.0]).unwrap();
        match dev.backend() {
            Backend::Simulator => {
                assert!(dev.cuda_context().is_none());
                assert!(matches!(buf.into_cudarc(), Err(Error::NotCuda { .. })));
            }
            Backend::Cuda => cudarc_round_trip(&dev, buf),
        }
    }
}

/// A buffer handed to cudarc and back, a cudarc allocation of another stream adopted, and
/// a `Device` made from a cudarc context, each used by a kernel.
fn cudarc_round_trip(dev: &Device, buf: DeviceBuffer<f32>) {
    let stream = dev.cuda_stream().unwrap().clone();
    let slice = buf.into_cudarc().unwrap();
    assert_eq!(stream.clone_dtoh(&slice).unwrap(), vec![1.0, 2.0, 3.0]);
    let mut back = DeviceBuffer::from_cudarc(dev, slice).unwrap();
    let x = dev.upload(&[10.0f32, 20.0, 30.0]).unwrap();
    scale::launch(dev, LaunchConfig::new(1, 32), &mut back, &x, 0.5).unwrap();
    assert_eq!(back.download().unwrap(), vec![5.0, 10.0, 15.0]);

    // A slice written on another stream of the context: the adopting stream waits for it.
    let ctx = dev.cuda_context().unwrap().clone();
    let other = ctx.new_stream().unwrap();
    let big: Vec<f32> = (0..1 << 20).map(|i| i as f32).collect();
    let theirs = other.clone_htod(&big).unwrap();
    let mut adopted = DeviceBuffer::from_cudarc(dev, theirs).unwrap();
    adopted.slice_mut(1..3).fill(-1.0).unwrap();
    let got = adopted.download().unwrap();
    assert_eq!(&got[..4], &[0.0, -1.0, -1.0, 3.0]);
    assert_eq!(&got[4..], &big[4..]);

    // A Device from the cudarc context: its own stream, the same memory rules.
    let from_ctx = Device::from_cudarc_context(&ctx).unwrap();
    assert_eq!(from_ctx.backend(), Backend::Cuda);
    let ys = from_ctx.upload(&[4.0f32, 8.0]).unwrap();
    let mut out = from_ctx.zeros::<f32>(2).unwrap();
    scale::launch(&from_ctx, LaunchConfig::new(1, 32), &mut out, &ys, 0.25).unwrap();
    assert_eq!(out.download().unwrap(), vec![1.0, 2.0]);
}

#[test]
fn empty_buffers_and_views() {
    for dev in devices("empty_buffers_and_views") {
        let empty = dev.upload::<f32>(&[]).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.download().unwrap(), Vec::<f32>::new());
        let mut zeros = dev.zeros::<bool>(0).unwrap();
        zeros.fill(true).unwrap();
        assert_eq!(zeros.download().unwrap(), Vec::<bool>::new());
        let mut buf = dev.upload(&[true, false, true]).unwrap();
        assert_eq!(buf.slice(3..).download().unwrap(), Vec::<bool>::new());
        buf.slice_mut(1..1).copy_from(&zeros).unwrap();
        assert_eq!(dev.copy(&buf.slice(2..2)).unwrap().len(), 0);
        // A kernel over an empty view writes nothing.
        let mut out = dev.upload(&[5.0f32; 4]).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        scale::launch(&dev, cfg, &mut out.slice_mut(2..2), &empty, 3.0).unwrap();
        scale::launch(&dev, cfg, &mut out.slice_mut(4..), &empty, 3.0).unwrap();
        assert_eq!(out.download().unwrap(), vec![5.0; 4], "{:?}", dev.backend());
        assert_eq!(buf.download().unwrap(), vec![true, false, true]);
    }
}

/// A helper that is handed the device (or a stream) by reference and launches with
/// `&dev`, as code written against `&Device` naturally does: `&&Device` and `&&Stream`
/// are launch targets too.
fn scale_from_helper(dev: &Device, s: &Stream, x: &DeviceBuffer<f32>, n: usize) -> Vec<f32> {
    let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
    let cfg = LaunchConfig::for_num_elems(n);
    scale::launch(
        &dev,
        cfg,
        &mut out.slice_mut(..n / 2),
        &x.slice(..n / 2),
        2.0,
    )
    .unwrap();
    scale::launch(&s, cfg, &mut out.slice_mut(n / 2..), &x.slice(n / 2..), 3.0).unwrap();
    dev.synchronize().unwrap();
    out.download().unwrap()
}

#[test]
fn references_to_devices_and_streams_launch() {
    for dev in devices("references_to_devices_and_streams_launch") {
        let mut rng = Rng::new(41);
        let n = 1001;
        let x = random_f32(&mut rng, n);
        let s = dev.create_stream().unwrap();
        let got = scale_from_helper(&dev, &s, &dev.upload(&x).unwrap(), n);
        for (i, (g, v)) in got.iter().zip(&x).enumerate() {
            let a = if i < n / 2 { 2.0 } else { 3.0 };
            assert_eq!(*g, a * v, "{:?} element {i}", dev.backend());
        }
    }
}
