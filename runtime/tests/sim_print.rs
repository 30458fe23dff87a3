//! Printing from kernels on the simulator: the order of a warp's lines (lane order, one
//! piece per print site), and `format_g`, C's `%g`, against a table made with Python's `%`
//! (which formats as C does) and against the C library through a small C program.

#[macro_use]
mod sim_common;

use sim_common::{run, sim};
use warpspeed_runtime::__private::{
    capture_sim_prints, format_g, AtomicSlice, SimFuture, ThreadCtx,
};
use warpspeed_runtime::{Device, LaunchConfig, SimOptions};

// ---- print order

fn lines_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(lines_sim(ctx, ctx.arg_scalar::<u32>(0)))
}

/// mode 0: every thread prints one line; 1: even lanes print at one site, odd lanes at
/// another; 2: lanes 5 and up return first, the others print; 4: two prints per thread.
async fn lines_sim(ctx: &ThreadCtx<'_>, mode: u32) {
    let t = ctx.thread_idx().x;
    let (w, l) = (t / 32, ctx.lane_id());
    match mode {
        0 => ctx.print(format!("warp {w} lane {l}\n"), at!()).await,
        1 => {
            if l % 2 == 0 {
                ctx.print(format!("even {w}.{l}\n"), at!()).await;
            } else {
                ctx.print(format!("odd {w}.{l}\n"), at!()).await;
            }
        }
        2 => {
            if l >= 5 {
                return;
            }
            ctx.print(format!("{w}.{l}\n"), at!()).await;
        }
        4 => {
            ctx.print(format!("a{l} "), at!()).await;
            ctx.print(format!("b{l} "), at!()).await;
        }
        _ => {}
    }
}

kernel!(LINES, "lines", ["mode"], lines_entry);

fn spin_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(spin_sim(ctx, ctx.arg_atomic::<u32>(0)))
}

/// Lane 0 does a few atomic loads (each a yield) before the print; the others get there
/// first and wait for it, so the warp still prints as one piece in lane order.
async fn spin_sim(ctx: &ThreadCtx<'_>, flag: AtomicSlice<u32>) {
    let l = ctx.lane_id();
    if l == 0 {
        for _ in 0..5 {
            flag.load(ctx, 0, at!()).await;
        }
    }
    ctx.print(format!("{l},"), at!()).await;
}

kernel!(SPIN, "spin", ["flag"], spin_entry);

fn printed(dev: &Device, cfg: LaunchConfig, mode: u32) -> String {
    let (result, text) = capture_sim_prints(|| {
        run(dev, &LINES, cfg, |a| {
            a.scalar(mode);
        })
    });
    result.unwrap();
    text
}

/// The lines of each warp, in the order they came, for checks that do not depend on the
/// order of warps and blocks.
fn of_warp(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_warp_prints_in_lane_order() {
    for seed in [None, Some(1), Some(99)] {
        let dev = Device::simulator_with(SimOptions {
            race_checks: true,
            seed,
        });
        let text = printed(&dev, LaunchConfig::new(1, 96), 0);
        assert_eq!(text.lines().count(), 96, "{text}");
        for w in 0..3 {
            let want: Vec<String> = (0..32).map(|l| format!("warp {w} lane {l}")).collect();
            assert_eq!(of_warp(&text, &format!("warp {w} ")), want, "seed {seed:?}");
            // One piece: the 32 lines of a warp are consecutive.
            let first = text.lines().position(|x| x == want[0]).unwrap();
            let lines: Vec<&str> = text.lines().skip(first).take(32).collect();
            assert_eq!(lines, want, "seed {seed:?}:\n{text}");
        }
    }
}

#[test]
fn diverged_lanes_print_per_site_in_lane_order() {
    let text = printed(&sim(), LaunchConfig::new(1, 32), 1);
    let even: Vec<String> = (0..32).step_by(2).map(|l| format!("even 0.{l}")).collect();
    let odd: Vec<String> = (1..32).step_by(2).map(|l| format!("odd 0.{l}")).collect();
    // The group of the lowest lane first, each group in one piece.
    let want: Vec<String> = even.into_iter().chain(odd).collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), want);
}

#[test]
fn returned_lanes_are_not_waited_for() {
    let text = printed(&sim(), LaunchConfig::new(2, 40), 2);
    // Block of 40: warp 0 has lanes 0..5 printing, warp 1 (8 lanes) too.
    for w in 0..2 {
        let warp: Vec<String> = text
            .lines()
            .filter(|x| x.starts_with(&format!("{w}.")))
            .map(str::to_string)
            .collect();
        let want: Vec<String> = (0..5).map(|l| format!("{w}.{l}")).collect();
        assert_eq!(warp, [want.clone(), want].concat(), "{text}");
    }
}

#[test]
fn two_prints_per_thread() {
    let text = printed(&sim(), LaunchConfig::new(1, 4), 4);
    assert_eq!(text, "a0 a1 a2 a3 b0 b1 b2 b3 ");
}

#[test]
fn a_lane_still_running_is_waited_for() {
    let dev = sim();
    let mut flag = dev.zeros::<u32>(1).unwrap();
    let (result, text) = capture_sim_prints(|| {
        run(&dev, &SPIN, LaunchConfig::new(1, 8), |a| {
            a.slice_mut(&mut flag);
        })
    });
    result.unwrap();
    assert_eq!(text, "0,1,2,3,4,5,6,7,");
}

#[test]
fn prints_go_to_stdout_without_a_capture() {
    // Nothing to check but that it runs: the lines go to the test's stdout.
    run(&sim(), &LINES, LaunchConfig::new(1, 2), |a| {
        a.scalar(0u32);
    })
    .unwrap();
}

// ---- format_g

/// `'%g' % v` in Python 3.11, which formats as C's printf does.
#[allow(clippy::approx_constant)]
const TABLE: &[(f64, &str)] = &[
    (0.0, "0"),
    (-0.0, "-0"),
    (1.0, "1"),
    (-1.0, "-1"),
    (0.5, "0.5"),
    (0.1, "0.1"),
    (0.2, "0.2"),
    (0.3, "0.3"),
    (0.3333333333333333, "0.333333"),
    (0.6666666666666666, "0.666667"),
    (-0.6666666666666666, "-0.666667"),
    (10.0, "10"),
    (100.0, "100"),
    (100000.0, "100000"),
    (123456.0, "123456"),
    (999999.0, "999999"),
    (999999.4, "999999"),
    (999999.5, "1e+06"),
    (1000000.0, "1e+06"),
    (1234567.0, "1.23457e+06"),
    (1234565.0, "1.23456e+06"),
    (1234575.0, "1.23458e+06"),
    (9999995.0, "1e+07"),
    (10000000.0, "1e+07"),
    (1000000000000000.0, "1e+15"),
    (1e+16, "1e+16"),
    (1e+20, "1e+20"),
    (1e+21, "1e+21"),
    (1.5e+300, "1.5e+300"),
    (1.7976931348623157e+308, "1.79769e+308"),
    (2.2250738585072014e-308, "2.22507e-308"),
    (5e-324, "4.94066e-324"),
    (0.0001, "0.0001"),
    (0.00012345678, "0.000123457"),
    (9.99999e-05, "9.99999e-05"),
    (9.999995e-05, "0.0001"),
    (9.9999949e-05, "9.99999e-05"),
    (1e-05, "1e-05"),
    (1.5e-05, "1.5e-05"),
    (1.23456789e-10, "1.23457e-10"),
    (3.14159265358979, "3.14159"),
    (2.718281828459045, "2.71828"),
    (-3.14159265358979, "-3.14159"),
    (100000.5, "100000"),
    (12345.6789, "12345.7"),
    (0.000999999, "0.000999999"),
    (0.00099999951, "0.001"),
    (65504.0, "65504"),
    (3.4028234663852886e+38, "3.40282e+38"),
    (1.1754943508222875e-38, "1.17549e-38"),
    (16777216.0, "1.67772e+07"),
    (16777217.0, "1.67772e+07"),
    (4294967296.0, "4.29497e+09"),
    (9007199254740992.0, "9.0072e+15"),
    (0.30000000000000004, "0.3"),
    (1e-07, "1e-07"),
    (123.456, "123.456"),
    (0.0625, "0.0625"),
    (0.125, "0.125"),
    (2.5, "2.5"),
    (1.5, "1.5"),
    (0.000123456785, "0.000123457"),
    (42.0, "42"),
    (-42.5, "-42.5"),
    (7e+22, "7e+22"),
    (1e+100, "1e+100"),
    (1e-100, "1e-100"),
    (6.02214076e+23, "6.02214e+23"),
    (1.602176634e-19, "1.60218e-19"),
    (-1e-300, "-1e-300"),
    (0.0001000005, "0.0001"),
    (99999.95, "99999.9"),
    (99999.949999, "99999.9"),
    (5e-05, "5e-05"),
    (0.10000000149011612, "0.1"),
    (0.3333333432674408, "0.333333"),
    (3.1415927410125732, "3.14159"),
    (1.0000000116860974e-07, "1e-07"),
    (65504.0, "65504"),
    (9.999999680285692e+37, "1e+38"),
    (1.401298464324817e-45, "1.4013e-45"),
    (0.30000001192092896, "0.3"),
];

#[test]
fn format_g_matches_the_table() {
    for &(v, want) in TABLE {
        assert_eq!(format_g(v), want, "{v:e}");
    }
    assert_eq!(format_g(f64::NAN), "nan");
    assert_eq!(format_g(f64::INFINITY), "inf");
    assert_eq!(format_g(f64::NEG_INFINITY), "-inf");
}

/// Values whose `%g` is worth checking: random bits, random decimal magnitudes, values
/// next to the rounding and notation boundaries.
fn values() -> Vec<f64> {
    let mut rng = sim_common::Rng::new(0x5eed);
    let mut v = Vec::new();
    for _ in 0..3000 {
        let x = f64::from_bits(rng.next_u64());
        if x.is_finite() {
            v.push(x);
        }
    }
    for _ in 0..3000 {
        let mantissa = (rng.next_u64() % 20_000_000) as f64 / 1e6;
        let exp = (rng.below(40) as i32) - 20;
        v.push(mantissa * 10f64.powi(exp));
        v.push(-(rng.next_u32() as f64) / 1e3);
        v.push(f32::from_bits(rng.next_u32()) as f64);
    }
    for exp in -8..=8 {
        let p = 10f64.powi(exp);
        for x in [
            p,
            0.9999995 * p,
            0.99999949 * p,
            0.99999951 * p,
            9.999995 * p,
            1.0000005 * p,
        ] {
            v.push(x);
            v.push(f64::from_bits(x.to_bits() + 1));
            v.push(f64::from_bits(x.to_bits() - 1));
        }
    }
    v.retain(|x| x.is_finite());
    v
}

#[test]
fn format_g_matches_the_c_library() {
    let Some(printf) = c_printf() else {
        eprintln!(
            "SKIPPED format_g_matches_the_c_library: no C compiler (cc) to build the reference"
        );
        return;
    };
    let values = values();
    let input: String = values
        .iter()
        .map(|v| format!("{:016x}\n", v.to_bits()))
        .collect();
    let output = run_with_input(&printf, &input);
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), values.len());
    for (v, want) in values.iter().zip(lines) {
        assert_eq!(format_g(*v), want, "{v:e} ({:#018x})", v.to_bits());
    }
}

/// Builds a C program that prints `%g` of each f64 whose bits it reads (hex, one a line).
fn c_printf() -> Option<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("warpspeed-format-g-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let src = dir.join("g.c");
    let exe = dir.join("g");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include <string.h>\nint main(void) {\n    unsigned long long bits;\n    while (scanf(\"%llx\", &bits) == 1) { double d; memcpy(&d, &bits, 8); printf(\"%g\\n\", d); }\n    return 0;\n}\n",
    )
    .ok()?;
    let status = std::process::Command::new("cc")
        .arg("-O1")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .status()
        .ok()?;
    status.success().then_some(exe)
}

fn run_with_input(exe: &std::path::Path, input: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}
