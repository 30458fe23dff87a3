//! Gives every Rust variable a C name that is legal, unique in its function and clear of
//! C/CUDA words: `int` becomes `int_`, a shadowed `x` becomes `x_1`.

use super::keywords::is_reserved;
use std::collections::HashSet;

#[derive(Default)]
pub struct Namer {
    used: HashSet<String>,
    temps: usize,
}

impl Namer {
    /// Keeps a name from being used for variables (device functions the body calls).
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    pub fn fresh(&mut self, rust_name: &str) -> String {
        let base = sanitize(rust_name);
        let mut name = base.clone();
        let mut n = 1;
        while self.used.contains(&name) {
            name = if base.ends_with('_') {
                format!("{base}{n}")
            } else {
                format!("{base}_{n}")
            };
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }

    /// A temporary: `ws_t0`, `ws_t1`, ... (users' names never start with `ws_`).
    pub fn temp(&mut self) -> String {
        self.temps += 1;
        format!("ws_t{}", self.temps - 1)
    }
}

/// A legal C name for a Rust identifier: `int` -> `int_`, `a__b` -> `a_ub`, `ws_x` -> `uws_x`.
pub fn sanitize(rust_name: &str) -> String {
    let raw = rust_name.trim_start_matches("r#");
    let mut base = if raw.is_empty() || raw == "_" {
        "v".to_string()
    } else {
        raw.replace("__", "_u")
    };
    if base.starts_with('_') && base[1..].starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
    {
        base = format!("v{base}");
    }
    if is_reserved(&base) {
        if base.starts_with("ws_") {
            base = format!("u{base}");
        } else {
            base.push('_');
        }
    }
    base
}

/// The C name of a kernel or device function: the Rust name, unless it is a C/CUDA word.
pub fn fn_name(rust_name: &str) -> String {
    sanitize(rust_name)
}
