//! Known values of the fp8 conversions (tests/fp8.rs checks every value against an
//! independent reference, and the GPU).

use super::*;

#[test]
fn known_values() {
    let cases: &[(f32, u8, u8)] = &[
        (0.0, 0x00, 0x00),
        (-0.0, 0x80, 0x80),
        (1.0, 0x38, 0x3c),
        (-2.0, 0xc0, 0xc0),
        (448.0, 0x7e, 0x5f),
        (57344.0, 0x7e, 0x7b),
        (1e9, 0x7e, 0x7b),
        (f32::INFINITY, 0x7e, 0x7b),
        (f32::NEG_INFINITY, 0xfe, 0xfb),
        // The smallest subnormals, and half of them (a tie to even: zero).
        (2f32.powi(-9), 0x01, 0x18),
        (2f32.powi(-16), 0x00, 0x01),
        (2f32.powi(-10), 0x00, 0x14),
        (-(2f32.powi(-17)), 0x80, 0x80),
        // 1 + 2^-4 is halfway between e4m3's 1 and 1.125: ties to 1 (even).
        (1.0625, 0x38, 0x3c),
        (1.1875, 0x3a, 0x3d),
    ];
    for &(x, a, b) in cases {
        assert_eq!(e4m3::from_f32(x).to_bits(), a, "e4m3 of {x:e}");
        assert_eq!(e5m2::from_f32(x).to_bits(), b, "e5m2 of {x:e}");
    }
    assert_eq!(e4m3::from_f32(f32::NAN).to_bits(), 0x7f);
    assert_eq!(e4m3::from_f32(-f32::NAN).to_bits(), 0xff);
    assert_eq!(e5m2::from_f32(f32::NAN).to_bits(), 0x7e);
    assert_eq!(e5m2::from_f32(f32::from_bits(0xffa0_0000)).to_bits(), 0xff);
}

#[test]
fn to_f32_and_f16_are_exact() {
    assert_eq!(e4m3::MAX.to_f32(), 448.0);
    assert_eq!(e4m3::MIN.to_f32(), -448.0);
    assert_eq!(e4m3::from_bits(0x01).to_f32(), 2f32.powi(-9));
    assert_eq!(e4m3::from_bits(0x07).to_f32(), 7.0 * 2f32.powi(-9));
    assert_eq!(e4m3::MIN_POSITIVE.to_f32(), 2f32.powi(-6));
    assert_eq!(e5m2::MAX.to_f32(), 57344.0);
    assert_eq!(e5m2::from_bits(0x01).to_f32(), 2f32.powi(-16));
    assert_eq!(e5m2::INFINITY.to_f32(), f32::INFINITY);
    assert_eq!(e5m2::NEG_INFINITY.to_f16().to_bits(), 0xfc00);
    assert_eq!(e4m3::NAN.to_f16().to_bits(), 0x7e00);
    assert_eq!(e4m3::from_bits(0xff).to_f32().to_bits(), 0xffc0_0000);
    assert_eq!(e5m2::from_bits(0x7d).to_f16().to_bits(), 0x7f00);
    for b in 0..=255u8 {
        for (f, h) in [
            (e4m3::from_bits(b).to_f32(), e4m3::from_bits(b).to_f16()),
            (e5m2::from_bits(b).to_f32(), e5m2::from_bits(b).to_f16()),
        ] {
            assert_eq!(f.to_bits(), h.to_f32().to_bits(), "{b:#x}");
        }
        // Every value converts back to itself.
        let x = e4m3::from_bits(b);
        if !x.is_nan() {
            assert_eq!(e4m3::from_f32(x.to_f32()).to_bits(), b);
            assert_eq!(e4m3::from_f16(x.to_f16()).to_bits(), b);
        }
        let y = e5m2::from_bits(b);
        if !y.is_nan() && b & 0x7f != 0x7c {
            assert_eq!(e5m2::from_f32(y.to_f32()).to_bits(), b);
        }
    }
}

#[test]
fn float_semantics() {
    assert_eq!(e4m3::from_bits(0x00), e4m3::from_bits(0x80));
    assert_ne!(e4m3::NAN, e4m3::NAN);
    assert!(e5m2::from_f32(1.0) < e5m2::from_f32(2.0));
    assert_eq!(format!("{}", e4m3::from_f32(1.5)), "1.5");
    assert_eq!(format!("{:?}", e5m2::from_f32(-0.25)), "-0.25");
}
