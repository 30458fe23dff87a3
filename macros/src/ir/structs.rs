//! The `#[gpu_struct]`s a kernel knows while the macro runs: their fields, their C names
//! and how the kernel names them. A kernel cannot see a struct's definition (a proc macro
//! sees only its own item), so the struct's own macro hands its definition over
//! (`structs/resolve.rs`); the pipeline then runs with the definitions installed here,
//! for one expansion, and `Scalar::Struct(id)` names a struct by its index.
//!
//! A thread-local table rather than a parameter: the types of the language are `Copy`
//! values compared everywhere, and a struct is one more of them.

use crate::ir::ty::{Scalar, Ty};
use std::cell::RefCell;

/// One `#[gpu_struct]`, as its macro describes it.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// The Rust name of the struct (`Params`); also the names the kernel imported it as
    /// (`use a::Params as P;`).
    pub names: Vec<String>,
    pub fields: Vec<FieldDef>,
    /// The path the function names the struct by, where it does (`Params`,
    /// `shapes::Params`): how the emitted Rust spells its type.
    pub path: Option<syn::Path>,
}

/// A field: its name and its type (a scalar, a struct, or an array of either).
#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
}

thread_local! {
    static DEFS: RefCell<Vec<StructDef>> = const { RefCell::new(Vec::new()) };
    /// Names leaked once per struct for `Scalar::rust_name`/`c_name` (`&'static str`).
    static NAMES: RefCell<Vec<(&'static str, &'static str)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `defs` installed (and none after).
pub fn with_defs<R>(defs: Vec<StructDef>, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DEFS.with(|d| d.borrow_mut().clear());
            NAMES.with(|d| d.borrow_mut().clear());
        }
    }
    let _reset = Reset;
    let names: Vec<(&'static str, &'static str)> = defs
        .iter()
        .map(|d| {
            let name = d.names.first().cloned().unwrap_or_default();
            let c = c_struct_name(&name);
            (
                &*Box::leak(name.into_boxed_str()),
                &*Box::leak(c.into_boxed_str()),
            )
        })
        .collect();
    DEFS.with(|d| *d.borrow_mut() = defs);
    NAMES.with(|n| *n.borrow_mut() = names);
    f()
}

/// The C name of a struct named `name` in Rust.
pub fn c_struct_name(name: &str) -> String {
    format!("ws_s_{name}")
}

/// The struct a kernel names `name` (the last segment of its path), if known.
pub fn lookup(name: &str) -> Option<Scalar> {
    DEFS.with(|d| {
        d.borrow()
            .iter()
            .position(|s| s.names.iter().any(|n| n == name))
            .map(|i| Scalar::Struct(i as u16))
    })
}

/// Records the path a function names struct `s` by (the first one met).
pub fn named_by(s: Scalar, path: &syn::Path) {
    if let Scalar::Struct(id) = s {
        DEFS.with(|d| {
            if let Some(def) = d.borrow_mut().get_mut(id as usize) {
                def.path.get_or_insert_with(|| path.clone());
            }
        });
    }
}

/// A copy of struct `id`'s definition.
pub fn def(id: u16) -> Option<StructDef> {
    DEFS.with(|d| d.borrow().get(id as usize).cloned())
}

/// The Rust and C names of struct `id`.
pub fn names(id: u16) -> (&'static str, &'static str) {
    NAMES.with(|n| n.borrow().get(id as usize).copied().unwrap_or(("?", "int")))
}

/// The type of field `name` of struct `id`.
pub fn field(id: u16, name: &str) -> Option<Ty> {
    def(id)?
        .fields
        .into_iter()
        .find(|f| f.name == name)
        .map(|f| f.ty)
}

/// Every struct the function names, with the path it names it by (their C definitions are
/// the function's dependencies; the structs they hold are theirs).
pub fn named() -> Vec<syn::Path> {
    DEFS.with(|d| d.borrow().iter().filter_map(|s| s.path.clone()).collect())
}
