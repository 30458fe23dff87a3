//! Odd but legal kernels: names that are C/CUDA words or the macro's own helper names,
//! raw identifiers, empty and deeply nested bodies, extreme literals. Each must compile
//! (the macro never panics) and compute what the Rust says on the simulator.

use warpspeed::prelude::*;
use warpspeed::{Device, LaunchConfig};

/// C, C++ and CUDA words as Rust names: the namer must rename them in the C.
#[gpu_kernel]
fn c_words(out: &mut [i32], int: i32, float: f32, double: f64) {
    let threadIdx = grid_1d();
    if threadIdx >= out.len() {
        return;
    }
    let blockDim = int + 1;
    let unsigned = float as i32;
    let auto = double as i32;
    let template = 2;
    let printf = blockDim * template;
    let __syncthreads = 1;
    let main = printf + unsigned + auto + __syncthreads;
    let ws_t0 = main;
    let ws_t1 = ws_t0 + 1;
    out[threadIdx] = ws_t1 + threadIdx as i32;
}

/// Names the macro uses in its own emitted Rust (`__ctx`, `__result`, `dev`, `cfg`).
#[gpu_device]
fn twice(__ctx: i32) -> i32 {
    __ctx * 2
}

#[gpu_kernel]
fn own_names(dev: &mut [i32], cfg: i32, __result: i32) {
    let __ctx = grid_1d();
    if __ctx < dev.len() {
        let r: i32 = twice(cfg + __result);
        dev[__ctx] = r;
    }
}

/// Raw identifiers.
#[gpu_kernel]
fn raw_idents(r#out: &mut [i32], r#int: i32) {
    let r#loop = r#int + 1;
    let r#type = r#loop * 2;
    r#out[0] = r#type;
}

/// Names the C side derives for itself: a slice `out` carries `out_len`.
#[gpu_kernel]
fn len_names(out: &mut [usize], out_len: usize) {
    let out_len_1 = out.len();
    out[0] = out_len + out_len_1;
}

/// An empty kernel and one with no parameters at all.
#[gpu_kernel]
fn empty() {}

/// A kernel that only spins: compiled, never launched.
#[allow(unreachable_code)]
#[gpu_kernel]
fn spin() {
    loop {}
}

/// Deeply nested blocks and ifs.
#[gpu_kernel]
fn nested(out: &mut [i32]) {
    let a = {
        {
            {
                {
                    {
                        {
                            {
                                {
                                    {
                                        {
                                            1
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    if a == 1 {
        if a > 0 {
            if a < 2 {
                if a != 3 {
                    if a >= 1 {
                        if a <= 1 {
                            out[0] = a + {
                                {
                                    {
                                        41
                                    }
                                }
                            };
                        }
                    }
                }
            }
        }
    }
}

/// Literals at the edges of their types.
#[gpu_kernel]
fn extremes(out64: &mut [u64], outi: &mut [i64], out8: &mut [i8], outf: &mut [f64]) {
    out64[0] = 18446744073709551615u64;
    out64[1] = 0xffff_ffff_ffff_ffff;
    outi[0] = -9223372036854775808i64;
    outi[1] = 9223372036854775807;
    out8[0] = -128i8;
    out8[1] = 127;
    outf[0] = 1e308;
    outf[1] = 5e-324;
    outf[2] = f64::MAX;
}

#[test]
fn odd_names_compute_what_the_rust_says() {
    let dev = Device::simulator();

    let mut out = dev.zeros::<i32>(4).unwrap();
    c_words::launch(&dev, LaunchConfig::new(1u32, 4u32), &mut out, 3, 2.5, 7.9).unwrap();
    // blockDim = 4, printf = 8, main = 8 + 2 + 7 + 1 = 18, ws_t1 = 19, + i
    assert_eq!(out.download().unwrap(), vec![19, 20, 21, 22]);

    let mut out = dev.zeros::<i32>(3).unwrap();
    own_names::launch(&dev, LaunchConfig::new(1u32, 4u32), &mut out, 5, 6).unwrap();
    assert_eq!(out.download().unwrap(), vec![22, 22, 22]);

    let mut out = dev.zeros::<i32>(1).unwrap();
    raw_idents::launch(&dev, LaunchConfig::new(1u32, 1u32), &mut out, 20).unwrap();
    assert_eq!(out.download().unwrap(), vec![42]);

    let mut out = dev.zeros::<usize>(3).unwrap();
    len_names::launch(&dev, LaunchConfig::new(1u32, 1u32), &mut out, 10).unwrap();
    assert_eq!(out.download().unwrap(), vec![13, 0, 0]);

    empty::launch(&dev, LaunchConfig::new(2u32, 32u32)).unwrap();

    let mut out = dev.zeros::<i32>(1).unwrap();
    nested::launch(&dev, LaunchConfig::new(1u32, 1u32), &mut out).unwrap();
    assert_eq!(out.download().unwrap(), vec![42]);

    let mut o64 = dev.zeros::<u64>(2).unwrap();
    let mut oi = dev.zeros::<i64>(2).unwrap();
    let mut o8 = dev.zeros::<i8>(2).unwrap();
    let mut of = dev.zeros::<f64>(3).unwrap();
    extremes::launch(
        &dev,
        LaunchConfig::new(1u32, 1u32),
        &mut o64,
        &mut oi,
        &mut o8,
        &mut of,
    )
    .unwrap();
    assert_eq!(o64.download().unwrap(), vec![u64::MAX, u64::MAX]);
    assert_eq!(oi.download().unwrap(), vec![i64::MIN, i64::MAX]);
    assert_eq!(o8.download().unwrap(), vec![i8::MIN, i8::MAX]);
    assert_eq!(of.download().unwrap(), vec![1e308, 5e-324, f64::MAX]);
}

/// The emitted C of the odd names: every C word renamed, the raw identifiers unprefixed.
#[test]
fn odd_names_emit_valid_c_names() {
    let c = c_words::ITEM.definition;
    for word in [
        " threadIdx ",
        " int = ",
        " float = ",
        " double = ",
        " blockDim ",
        " unsigned = ",
        " auto ",
        " template ",
        " printf ",
        " __syncthreads ",
        " main ",
    ] {
        assert!(!c.contains(word), "`{word}` left as a name in the C:\n{c}");
    }
    let raw = raw_idents::ITEM.definition;
    assert!(
        !raw.contains("r#"),
        "raw identifier prefix in the C:\n{raw}"
    );
    assert!(!spin::ITEM.definition.is_empty());
    assert!(!empty::ITEM.definition.is_empty());
}

/// User variables named like the temporaries of the emitted Rust: `out[i] += v` stores
/// through a `__value`/`__index` pair, which must not capture the user's.
#[gpu_kernel]
fn temp_names(out: &mut [usize], __args: usize) {
    let __value: usize = 1;
    let __index: usize = 2;
    out[__value] = 10;
    out[__index] += __value;
    out[__value] += __index + __args;
    let mut __result = 3usize;
    __result += __value;
    out[0] = __result;
}

#[test]
fn temporaries_do_not_capture_user_names() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<usize>(3).unwrap();
    temp_names::launch(&dev, LaunchConfig::new(1u32, 1u32), &mut out, 100).unwrap();
    assert_eq!(out.download().unwrap(), vec![4, 112, 1]);
}
