//! The `#[gpu_struct]`s a kernel knows while the macro runs: their fields, their C names
//! and how the kernel names them. A kernel cannot see a struct's definition (a proc macro
//! sees only its own item), so the struct's own macro hands its definition over
//! (`structs/resolve.rs`); the pipeline then runs with the definitions installed here,
//! for one expansion, and `Scalar::Struct(id)` names a struct by its index.
//!
//! A thread-local table rather than a parameter: the types of the language are `Copy`
//! values compared everywhere, and a struct is one more of them.

use crate::ir::ty::{Scalar, StructId, Ty};
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
}

/// Runs `f` with `defs` installed (and none after).
pub fn with_defs<R>(defs: Vec<StructDef>, f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DEFS.with(|d| d.borrow_mut().clear());
        }
    }
    let _reset = Reset;
    DEFS.with(|d| *d.borrow_mut() = defs);
    f()
}

pub use crate::ir::ty::c_struct_name;

/// The kernel type of struct `index` of `defs`.
pub fn scalar(defs: &[StructDef], index: usize) -> Scalar {
    let name = defs[index].names.first().map_or("", |n| n.as_str());
    Scalar::Struct(StructId::new(index, name))
}

/// The struct a kernel names `name` (the last segment of its path), if known.
pub fn lookup(name: &str) -> Option<Scalar> {
    DEFS.with(|d| {
        let d = d.borrow();
        let i = d.iter().position(|s| s.names.iter().any(|n| n == name))?;
        Some(scalar(&d, i))
    })
}

/// Records the path a function names struct `s` by (the first one met).
pub fn named_by(s: Scalar, path: &syn::Path) {
    if let Scalar::Struct(id) = s {
        DEFS.with(|d| {
            if let Some(def) = d.borrow_mut().get_mut(id.index as usize) {
                def.path.get_or_insert_with(|| path.clone());
            }
        });
    }
}

/// A copy of struct `id`'s definition.
pub fn def(id: StructId) -> Option<StructDef> {
    DEFS.with(|d| d.borrow().get(id.index as usize).cloned())
}

/// The type of field `name` of struct `id`.
pub fn field(id: StructId, name: &str) -> Option<Ty> {
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
