//! Many host threads on one device, on the simulator and on the GPU where there is one
//! (docs/host-api.md, "Host threads"): `Device`, buffers and views are `Send + Sync`
//! (checked at compile time below), and 8 threads × 1,000 launches on one device, sharing a
//! read-only input buffer, each get their own results: every launch writes values that
//! depend on its thread and iteration into the thread's buffer, which is downloaded and
//! checked after each launch. A further run launches from all threads without downloading
//! in between, then checks each thread's last result after one synchronisation.

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::AsDeviceViewMut;

const THREADS: u32 = 8;
const LAUNCHES: u32 = 1000;
const N: usize = 96;

/// What a launch writes: the shared input mixed with the thread and the iteration.
#[gpu_kernel]
fn stamp(out: &mut [u32], input: &[u32], thread: u32, iter: u32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = input[i] ^ (thread << 28 | iter << 12 | i as u32);
    }
}

fn expected(input: &[u32], thread: u32, iter: u32) -> Vec<u32> {
    (0..N)
        .map(|i| input[i] ^ (thread << 28 | iter << 12 | i as u32))
        .collect()
}

/// What may cross threads, as rustc sees it (a failure here does not compile).
#[allow(dead_code)]
fn send_sync_at_compile_time() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<DeviceView<'static, u64>>();
    send_sync::<DeviceViewMut<'static, u8>>();
    send_sync::<Error>();
    send_sync::<LaunchConfig>();
}

#[test]
fn eight_threads_a_thousand_launches_each() {
    for dev in devices("eight_threads_a_thousand_launches_each") {
        let mut rng = Rng::new(2024);
        let input: Vec<u32> = (0..N).map(|_| rng.next_u32()).collect();
        let shared = dev.upload(&input).unwrap();
        let started = std::time::Instant::now();
        std::thread::scope(|s| {
            for thread in 0..THREADS {
                // Half the threads borrow the device, half own a clone of it.
                let owned = dev.clone();
                let (dev, shared, input) = (&dev, &shared, &input);
                s.spawn(move || {
                    let dev = if thread % 2 == 0 { dev } else { &owned };
                    let mut out = dev.zeros::<u32>(N).unwrap();
                    let cfg = LaunchConfig::new(3, 32);
                    for iter in 0..LAUNCHES {
                        stamp::launch(dev, cfg, &mut out, shared, thread, iter).unwrap();
                        let got = out.download().unwrap();
                        assert_eq!(
                            got,
                            expected(input, thread, iter),
                            "{:?}: thread {thread}, launch {iter}",
                            dev.backend()
                        );
                    }
                });
            }
        });
        println!(
            "{:?}: {} launches from {THREADS} threads in {:.2?}",
            dev.backend(),
            THREADS * LAUNCHES,
            started.elapsed()
        );
    }
}

#[test]
fn launches_from_threads_then_one_synchronisation() {
    for dev in devices("launches_from_threads_then_one_synchronisation") {
        let mut rng = Rng::new(7);
        let input: Vec<u32> = (0..N).map(|_| rng.next_u32()).collect();
        let shared = dev.upload(&input).unwrap();
        let mut outs: Vec<DeviceBuffer<u32>> = (0..THREADS)
            .map(|_| dev.upload(&[u32::MAX; N]).unwrap())
            .collect();
        std::thread::scope(|s| {
            for (thread, out) in outs.iter_mut().enumerate() {
                let (dev, shared) = (&dev, &shared);
                // Buffers and views move to other threads; views of the shared input too.
                s.spawn(move || {
                    let input = shared.slice(..);
                    for iter in 0..LAUNCHES / 10 {
                        let cfg = LaunchConfig::new(3, 32);
                        stamp::launch(dev, cfg, out, &input, thread as u32, iter).unwrap();
                    }
                });
            }
        });
        dev.synchronize().unwrap();
        for (thread, out) in outs.iter().enumerate() {
            assert_eq!(
                out.download().unwrap(),
                expected(&input, thread as u32, LAUNCHES / 10 - 1),
                "{:?}: thread {thread}",
                dev.backend()
            );
        }
        // A mutable view moved into a thread, and the traits kernels take, used generically.
        let mut whole = dev.zeros::<u32>(2 * N).unwrap();
        let view = whole.slice_mut(N..);
        let handle = std::thread::scope(|s| {
            s.spawn(move || {
                let mut view = view;
                let dev = dev_of(&view).clone();
                stamp::launch(&dev, LaunchConfig::new(3, 32), &mut view, &shared, 1, 2)
                    .map(|()| view.len())
            })
            .join()
            .unwrap()
        });
        assert_eq!(handle.unwrap(), N);
        let got = whole.download().unwrap();
        assert_eq!(got[..N], vec![0; N]);
        assert_eq!(got[N..], expected(&input, 1, 2));
    }
}

/// The device of anything a kernel's `&mut [T]` parameter takes.
fn dev_of<V: AsDeviceViewMut>(v: &V) -> &Device {
    v.as_device_view().device()
}
