//! Drift tests of the type table (`table.rs`) against the crates that declare the types:
//! a kernel type the runtime or the facade declares with no row here would be parsed as
//! nothing (a scalar) or taken for a `#[gpu_struct]` (a named type), so these fail first.

use super::table::{is_language_type, SCALARS};
use super::Scalar;

fn read(path: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    std::fs::read_to_string(format!("{root}/{path}")).expect("the workspace's sources are readable")
}

/// `(rust name, C name)` of every `name => "c"` row of the runtime's `kernel_scalar!` and
/// every `name, "c", ..` row of its `vector_type!`.
fn runtime_scalars() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let scalar = read("runtime/src/scalar.rs");
    let body = scalar
        .split("kernel_scalar! {")
        .nth(1)
        .expect("runtime/src/scalar.rs invokes kernel_scalar!");
    for line in body.lines().take_while(|l| !l.starts_with('}')) {
        if let Some((name, rest)) = line.trim().split_once(" => \"") {
            let c = rest.split('"').next().unwrap_or_default();
            out.push((name.to_string(), c.to_string()));
        }
    }
    let vectors = read("runtime/src/vector_types.rs");
    for block in vectors.split("\nvector_type! {").skip(1) {
        let row = block
            .lines()
            .map(str::trim)
            .find(|l| !l.starts_with("//") && !l.starts_with('#') && l.contains(", \""))
            .expect("a vector_type! row");
        let mut parts = row.split(", ");
        let name = parts.next().unwrap_or_default();
        let c = parts.next().unwrap_or_default().trim_matches('"');
        out.push((name.to_string(), c.to_string()));
    }
    out
}

#[test]
fn every_runtime_scalar_has_a_row() {
    let runtime = runtime_scalars();
    assert!(runtime.len() >= 20, "read {runtime:?}");
    for (name, c) in &runtime {
        let row = SCALARS.iter().find(|r| r.rust == name).unwrap_or_else(|| {
            panic!("`{name}` implements KernelScalar in the runtime and has no row in macros/src/ir/ty/table.rs SCALARS")
        });
        assert_eq!(
            row.c, c,
            "`{name}`: the table's C name and the runtime's C_NAME differ"
        );
        assert_eq!(Scalar::from_name(name), Some(row.scalar));
    }
    for r in SCALARS {
        assert!(
            runtime.iter().any(|(n, _)| n == r.rust),
            "`{}` has a row and no KernelScalar impl in the runtime",
            r.rust
        );
    }
}

/// The names inside `pub use ...::{A, B};` / `pub use ...::A;` lines of `text`.
fn used_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in text.split("pub use ").skip(1) {
        let stmt = stmt.split(';').next().unwrap_or_default();
        let list = stmt.rsplit("::").next().unwrap_or_default();
        for name in list.split(|c: char| !c.is_alphanumeric() && c != '_') {
            if !name.is_empty() {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Types the facade exports that a kernel never names: the host API and the bounds.
const HOST: &[&str] = &[
    "Device",
    "DeviceBuffer",
    "DeviceView",
    "DeviceViewMut",
    "Error",
    "LaunchConfig",
    "Event",
    // The bound of a buffer's element type (host generics), not a kernel type.
    "KernelScalar",
    "PinnedBuffer",
    "PinnedView",
    "PinnedViewMut",
    "Stream",
    "Swizzle",
    "Float",
    "Int",
    "Scalar",
    "Vector",
    "TextureFetch",
    "WarpValue",
    "WgmmaOperandA",
];

#[test]
fn every_kernel_type_of_the_facade_is_the_languages() {
    let lib = read("core/src/lib.rs");
    let prelude = lib
        .split("pub mod prelude {")
        .nth(1)
        .and_then(|p| p.split("\n}").next())
        .expect("core/src/lib.rs has a prelude");
    let atomics = lib
        .lines()
        .find(|l| l.starts_with("pub use atomic_float::"))
        .expect("core/src/lib.rs re-exports the float atomics");
    let mut names = used_names(prelude);
    names.extend(used_names(&read("core/src/kernel/mod.rs")));
    names.extend(used_names(atomics));
    let mut checked = 0;
    for name in names {
        let is_type = name.starts_with(|c: char| c.is_ascii_uppercase())
            || SCALARS.iter().any(|r| r.rust == name);
        if !is_type || HOST.contains(&name.as_str()) {
            continue;
        }
        checked += 1;
        assert!(
            is_language_type(&name),
            "the facade exports `{name}` for kernels and macros/src/ir/ty/table.rs has no row for it \
             (NAMED, or SCALARS with its atomic): the struct resolver would take it for a #[gpu_struct]; \
             a host-only type goes in this test's HOST list"
        );
    }
    assert!(checked >= 12, "read too few names: {checked}");
}

/// Whether `s` is a kernel type of its own (not a type parameter or a struct). The match
/// has no wildcard: a new `Scalar` variant stops the build here, and once listed,
/// `every_scalar_variant_has_a_row` asks for its row.
fn is_table_type(s: Scalar) -> bool {
    use Scalar as S;
    match s {
        S::Bool | S::I8 | S::I16 | S::I32 | S::I64 | S::Isize => true,
        S::U8 | S::U16 | S::U32 | S::U64 | S::Usize => true,
        S::F32 | S::F64 | S::F16 | S::F16x2 => true,
        S::E4m3 | S::E5m2 => true,
        S::Bf16 | S::Bf16x2 => true,
        S::F32x2 | S::F32x4 | S::U32x2 | S::U32x4 | S::I32x2 | S::I32x4 | S::F64x2 => true,
        S::Param(_) | S::Struct(_) => false,
    }
}

#[test]
fn every_scalar_variant_has_a_row() {
    use Scalar as S;
    let variants = [
        S::Bool,
        S::I8,
        S::I16,
        S::I32,
        S::I64,
        S::Isize,
        S::U8,
        S::U16,
        S::U32,
        S::U64,
        S::Usize,
        S::F32,
        S::F64,
        S::F16,
        S::F16x2,
        S::E4m3,
        S::E5m2,
        S::Bf16,
        S::Bf16x2,
        S::F32x2,
        S::F32x4,
        S::U32x2,
        S::U32x4,
        S::I32x2,
        S::I32x4,
        S::F64x2,
    ];
    for s in variants {
        assert!(is_table_type(s));
        assert!(
            super::table::scalar_row(s).is_some(),
            "{s:?} has no row in macros/src/ir/ty/table.rs SCALARS"
        );
    }
    assert_eq!(
        variants.len(),
        SCALARS.len(),
        "a row is listed twice or a variant is missing here"
    );
    assert!(!is_table_type(S::Param("T")));
}
