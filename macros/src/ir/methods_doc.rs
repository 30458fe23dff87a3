//! docs/methods.md's tables, generated from the method table; the test keeps the file
//! equal to them (`WARPSPEED_BLESS=1` rewrites it).

use super::methods::{Exact, Method, Recv, Sim, C, METHODS};

/// The Markdown table of every row, as docs/methods.md has it (a test keeps the file
/// equal to this).
pub fn docs_table() -> String {
    let mut out = String::new();
    let mut last = None;
    for m in METHODS {
        let m: &Method = m;
        if last != Some(heading(m.recv)) {
            out.push_str(&format!(
                "\n### {}\n\n| method | on | does | C | GPU vs Rust |\n|---|---|---|---|---|\n",
                heading(m.recv)
            ));
            last = Some(heading(m.recv));
        }
        let c = match m.c {
            C::Tmpl(n) => format!("`{n}<T>`"),
            C::Func(n) => format!("`{n}`"),
            C::Math(n) => format!("`{n}f` / `{n}`"),
            C::Len => "the length parameter".into(),
        };
        let exact = match (m.exact, m.panics) {
            (Exact::Bits, None) => "bit-exact".to_string(),
            (Exact::Bits, Some(p)) => format!("bit-exact; {p}"),
            (Exact::Ulps(f, d), _) => format!("within {f} ulp (f32), {d} ulp (f64)"),
        };
        let sim = match m.sim {
            Sim::Std(n) if n != m.name => format!(" (simulator: `{n}`)"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {}{sim} | {c} | {exact} |\n",
            m.signature(),
            m.recv.text(),
            m.doc
        ));
    }
    out
}

fn heading(r: Recv) -> &'static str {
    match r {
        Recv::Slice => "Slices",
        Recv::Int | Recv::Signed | Recv::Unsigned => "Integers",
        Recv::Float => "Floats",
        Recv::F16 | Recv::F16x2 => "Half precision",
    }
}

const BEGIN: &str = "<!-- generated from macros/src/ir/methods.rs: do not edit by hand -->\n";
const END: &str = "<!-- end of generated tables -->\n";

#[test]
fn docs_methods_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/methods.md");
    let text = std::fs::read_to_string(path).expect("docs/methods.md");
    let (Some(a), Some(b)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/methods.md lacks the generated-table markers");
    };
    let want = format!("{}{BEGIN}{}{}", &text[..a], docs_table(), &text[b..]);
    if want != text {
        if std::env::var("WARPSPEED_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(path, want).unwrap();
        } else {
            panic!("docs/methods.md differs from the method table: run `WARPSPEED_BLESS=1 cargo test -p warpspeed-macros docs_methods` and review the diff");
        }
    }
}

#[test]
fn every_row_is_reachable_and_unambiguous() {
    use crate::ir::ty::ALL_SCALARS;
    for m in METHODS {
        for s in ALL_SCALARS {
            if m.recv.accepts(s) {
                let found = Method::lookup(m.name, Some(s)).unwrap();
                assert!(
                    std::ptr::eq(found, m),
                    "`{}` on {s:?}: two rows take it",
                    m.name
                );
            }
        }
    }
}
