//! Results against their CPU references: where two arrays first differ, the OK/MISMATCH
//! lines of a result (an array, a row-major matrix), and the closing verdict line.

use std::fmt::Display;

/// The first index where two arrays differ bit for bit (floats compared by their bits, so
/// -0.0 vs 0.0 and NaN payloads count as differences), and how many differ.
pub fn first_difference<T: Copy + PartialEq, B: Eq>(
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
) -> Option<(usize, usize)> {
    assert_eq!(got.len(), want.len());
    let mut first = None;
    let mut count = 0;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if bits(g) != bits(w) {
            count += 1;
            first.get_or_insert(i);
        }
    }
    first.map(|i| (i, count))
}

/// Compares a result with its CPU reference bit for bit and says so: `ok_line`, or on
/// stderr how many elements differ and the first. Returns whether they are equal.
pub fn check_elements<T: Copy + PartialEq + Display, B: Eq>(
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
    ok_line: &str,
) -> bool {
    check(got, want, bits, ok_line, "MISMATCH", "elements", |i| {
        i.to_string()
    })
}

/// Compares a row-major result of `cols` columns with its CPU reference bit for bit and
/// says so: `  OK (name): ...`, or on stderr how many `things` (elements, pixels) differ
/// and the row and column of the first. Returns whether they are equal.
pub fn check_matrix<T: Copy + PartialEq + Display, B: Eq>(
    name: &str,
    things: &str,
    got: &[T],
    want: &[T],
    cols: usize,
    bits: impl Fn(T) -> B,
) -> bool {
    check(
        got,
        want,
        bits,
        &format!("  OK ({name}): equals the CPU reference bit for bit"),
        &format!("MISMATCH ({name})"),
        things,
        |i| format!("row {}, column {}", i / cols, i % cols),
    )
}

/// `ok_line` when `got` equals `want` bit for bit; else, on stderr, `{mismatch}: {count} of
/// {len} {things} differ; first at {place(i)}: got {}, expected {}`.
fn check<T: Copy + PartialEq + Display, B: Eq>(
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
    ok_line: &str,
    mismatch: &str,
    things: &str,
    place: impl Fn(usize) -> String,
) -> bool {
    match first_difference(got, want, bits) {
        None => {
            println!("{ok_line}");
            true
        }
        Some((i, count)) => {
            eprintln!(
                "{mismatch}: {count} of {} {things} differ; first at {}: got {}, expected {}",
                got.len(),
                place(i),
                got[i],
                want[i]
            );
            false
        }
    }
}

/// The last line of an example that checks many results: `ok_line` or `failed_line`.
pub fn print_verdict(ok: bool, ok_line: &str, failed_line: &str) {
    println!("{}", if ok { ok_line } else { failed_line });
}
