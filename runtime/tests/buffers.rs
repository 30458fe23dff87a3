//! Buffers round-trip on whatever device is present (and always on the simulator).

mod common;

use common::Rng;
use warpspeed_runtime::{i32x4, u32x2, Device, Error, KernelScalar};

fn round_trip<T: KernelScalar + PartialEq + std::fmt::Debug>(
    dev: &Device,
    rng: &mut Rng,
    len: usize,
) {
    let host: Vec<T> = (0..len)
        .map(|_| T::from_bits128(u128::from(rng.next_u64()) | u128::from(rng.next_u64()) << 64))
        .collect();
    let buf = dev.upload(&host).unwrap();
    assert_eq!(buf.len(), len);
    assert_eq!(buf.download().unwrap(), host, "{} x {len}", T::C_NAME);

    let copy = dev.copy(&buf).unwrap();
    let mut out = vec![T::from_bits(0); len];
    copy.copy_to_host(&mut out).unwrap();
    assert_eq!(out, host);

    let mut zeros = dev.zeros::<T>(len).unwrap();
    assert!(zeros
        .download()
        .unwrap()
        .iter()
        .all(|v| *v == T::from_bits(0)));
    zeros.copy_from_host(&host).unwrap();
    assert_eq!(zeros.download().unwrap(), host);
}

fn all_types(dev: &Device) {
    let mut rng = Rng::new(0x5eed);
    for len in [0, 1, 7, 1000, 65_537] {
        round_trip::<bool>(dev, &mut rng, len);
        round_trip::<i8>(dev, &mut rng, len);
        round_trip::<i16>(dev, &mut rng, len);
        round_trip::<i32>(dev, &mut rng, len);
        round_trip::<i64>(dev, &mut rng, len);
        round_trip::<isize>(dev, &mut rng, len);
        round_trip::<u8>(dev, &mut rng, len);
        round_trip::<u16>(dev, &mut rng, len);
        round_trip::<u32>(dev, &mut rng, len);
        round_trip::<u64>(dev, &mut rng, len);
        round_trip::<usize>(dev, &mut rng, len);
        round_trip::<u32x2>(dev, &mut rng, len);
        round_trip::<i32x4>(dev, &mut rng, len);
        // Random bits include NaNs; compare floats by bits.
        let host: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
        let floats: Vec<f32> = host.iter().map(|b| f32::from_bits(*b)).collect();
        let back: Vec<u32> = dev
            .upload(&floats)
            .unwrap()
            .download()
            .unwrap()
            .iter()
            .map(|f| f.to_bits())
            .collect();
        assert_eq!(back, host);
        let host: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
        let doubles: Vec<f64> = host.iter().map(|b| f64::from_bits(*b)).collect();
        let back: Vec<u64> = dev
            .upload(&doubles)
            .unwrap()
            .download()
            .unwrap()
            .iter()
            .map(|f| f.to_bits())
            .collect();
        assert_eq!(back, host);
    }
}

#[test]
fn round_trip_on_simulator() {
    all_types(&Device::simulator());
}

#[test]
fn round_trip_on_default_device() {
    all_types(&common::any_device());
}

#[test]
fn length_mismatch_is_an_error() {
    let dev = common::any_device();
    let mut buf = dev.zeros::<u32>(4).unwrap();
    let err = buf.copy_from_host(&[1, 2, 3]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{err:?}"
    );
    let err = buf.copy_to_host(&mut [0; 5]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                expected: 4,
                found: 5,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(format!("{buf:?}").contains("unsigned int"));
}

#[test]
fn copy_across_backends_is_a_device_mismatch() {
    let Some(gpu) = common::gpu_or_skip("copy_across_backends_is_a_device_mismatch") else {
        return;
    };
    let sim = Device::simulator();
    let on_sim = sim.upload(&[1u8, 2, 3]).unwrap();
    assert!(matches!(
        gpu.copy(&on_sim),
        Err(Error::DeviceMismatch { .. })
    ));
    let on_gpu = gpu.upload(&[1u8, 2, 3]).unwrap();
    assert!(matches!(
        sim.copy(&on_gpu),
        Err(Error::DeviceMismatch { .. })
    ));
}
