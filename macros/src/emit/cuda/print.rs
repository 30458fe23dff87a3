//! `gpu_print!` as C: one `printf` whose conversions print each Rust type as Rust's
//! formatting does (bools as `true`/`false`, hex of narrow signed types at their own width,
//! floats without a precision as `%g`, which the simulator imitates).

use super::FnWriter;
use crate::ir::ast::*;
use crate::ir::ty::Scalar;

impl FnWriter<'_> {
    pub(super) fn print_c(&mut self, p: &Print) -> String {
        let ops: Vec<&Expr> = p.args.iter().collect();
        let vals = self.operands(&ops);
        let mut fmt = String::new();
        let mut c_args = Vec::new();
        for piece in &p.pieces {
            match piece {
                FmtPiece::Lit(text) => fmt.push_str(&c_escape(text)),
                FmtPiece::Arg { index, spec } => {
                    let s = self.scalar(&p.args[*index]);
                    let (conv, arg) = conversion(s, spec, &vals[*index]);
                    fmt.push_str(&conv);
                    c_args.push(arg);
                }
            }
        }
        let mut call = format!("printf(\"{fmt}\"");
        for a in c_args {
            call.push_str(", ");
            call.push_str(&a);
        }
        call.push(')');
        call
    }
}

/// The `%` conversion and the argument, cast to what printf expects.
fn conversion(s: Scalar, spec: &FmtSpec, v: &str) -> (String, String) {
    let width = spec.width.map(|w| w.to_string()).unwrap_or_default();
    let zero = if spec.zero { "0" } else { "" };
    if s == Scalar::Bool {
        // Rust pads text on the right.
        let w = spec.width.map(|w| format!("-{w}")).unwrap_or_default();
        return (format!("%{w}s"), format!("({v} ? \"true\" : \"false\")"));
    }
    if s.is_float() || s.is_half_float() {
        let d = if s.is_half_float() {
            format!("{}_to_f64({v})", s.c_name())
        } else {
            format!("(double)({v})")
        };
        return match spec.precision {
            Some(p) => (format!("%{zero}{width}.{p}f"), d),
            None => (format!("%{width}g"), d),
        };
    }
    let wide = s.bits() == 64;
    let ll = if wide { "ll" } else { "" };
    match spec.hex {
        Some(upper) => {
            let x = if upper { "X" } else { "x" };
            // `{:x}` of -1i8 is `ff`: the bits at the type's own width.
            let cast = if wide {
                format!("(unsigned long long)({v})")
            } else {
                format!("(unsigned int)({})({v})", s.unsigned_c_name())
            };
            (format!("%{zero}{width}{ll}{x}"), cast)
        }
        None if s.is_signed_int() => {
            let t = if wide { "long long" } else { "int" };
            (format!("%{zero}{width}{ll}d"), format!("({t})({v})"))
        }
        None => {
            let t = if wide {
                "unsigned long long"
            } else {
                "unsigned int"
            };
            (format!("%{zero}{width}{ll}u"), format!("({t})({v})"))
        }
    }
}

/// Text as the inside of a C string literal for printf: `%` doubled, escapes for quotes,
/// backslashes, control characters and non-ASCII bytes.
fn c_escape(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'%' => out.push_str("%%"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}
