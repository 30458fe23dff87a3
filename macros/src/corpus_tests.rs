//! What a change to the macro does to the repository's kernels: every `#[gpu_kernel]` and
//! `#[gpu_device]` of examples/, tests/, algorithms/, core/ and src/ (those outside a
//! `macro_rules!`) expanded once, with how many bounds checks its C keeps, a hash of the
//! whole expansion and the time it took.
//!
//! It is ignored by default (it takes a while in a debug build and asserts nothing):
//!
//! ```text
//! WARPSPEED_CORPUS_OUT=/tmp/before.tsv cargo test -p warpspeed-macros --release --lib \
//!     -- --ignored expand_every_kernel --nocapture
//! # change the prover, run it again into /tmp/after.tsv, then
//! paste /tmp/before.tsv /tmp/after.tsv | awk -F'\t' '$4 != $9'
//! ```
//!
//! lists the kernels whose expansion changed, with their checks before and after. The
//! slowest expansions are printed: docs/bounds.md ("What the proof costs the build") has
//! the figures this found.

use crate::fuzz_tests::load_corpus_from;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// The helpers of the C prelude that check an index (each use is one check left).
const CHECKS: [&str; 4] = ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("];

/// The function's name: the identifier after the first `fn`.
fn name_of(item: &proc_macro2::TokenStream) -> String {
    let mut after_fn = false;
    for t in item.clone() {
        if let proc_macro2::TokenTree::Ident(i) = t {
            if after_fn {
                return i.to_string();
            }
            after_fn = i == "fn";
        }
    }
    "?".into()
}

#[test]
#[ignore = "a measurement: run it by name (see the module's documentation)"]
fn expand_every_kernel() {
    let seeds = load_corpus_from(&["examples", "tests", "algorithms", "core", "src"]);
    let mut rows = Vec::new();
    let mut times = Vec::new();
    for seed in &seeds {
        let (attr, item, kind) = seed.parts();
        let name = name_of(&item);
        let start = Instant::now();
        let out = crate::expand::expand_inner(attr, item, kind).to_string();
        let secs = start.elapsed().as_secs_f64();
        // The C is in string literals, where a `(` follows the name directly.
        let checks: usize = CHECKS.iter().map(|c| out.matches(c).count()).sum();
        let mut h = DefaultHasher::new();
        out.hash(&mut h);
        rows.push(format!(
            "{name}\t{checks}\t{}\t{:016x}\t{secs:.3}",
            out.len(),
            h.finish()
        ));
        times.push((secs, name));
    }
    let total: f64 = times.iter().map(|t| t.0).sum();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(
        "{} functions expanded in {total:.2} s; the slowest:",
        rows.len()
    );
    for (secs, name) in times.iter().take(10) {
        println!("  {secs:8.3} s  {name}");
    }
    if let Ok(path) = std::env::var("WARPSPEED_CORPUS_OUT") {
        std::fs::write(&path, rows.join("\n") + "\n").expect("writing WARPSPEED_CORPUS_OUT");
        println!("written to {path}");
    }
}
