//! The `#[gpu_struct]`s a kernel knows while the macro runs: their fields, their C names
//! and how the kernel names them. A kernel cannot see a struct's definition (a proc macro
//! sees only its own item), so the struct's own macro hands its definition over
//! (`structs/resolve.rs`); the pipeline then runs with the definitions as a table: the
//! parser's (which records the paths the function names them by), then the function's
//! (`Function::structs`). `Scalar::Struct(id)` names a struct by its index in the table
//! and carries its names, so a type prints without the table.

use crate::ir::ty::{Scalar, StructId, Ty};

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

pub use crate::ir::ty::c_struct_name;

/// The kernel type of struct `index` of `defs`.
pub fn scalar(defs: &[StructDef], index: usize) -> Scalar {
    let name = defs[index].names.first().map_or("", |n| n.as_str());
    Scalar::Struct(StructId::new(index, name))
}

/// The struct a kernel names `name` (the last segment of its path), if `defs` has it.
pub fn lookup(defs: &[StructDef], name: &str) -> Option<Scalar> {
    let i = defs
        .iter()
        .position(|s| s.names.iter().any(|n| n == name))?;
    Some(scalar(defs, i))
}

/// Records the path a function names struct `s` by (the first one met).
pub fn named_by(defs: &mut [StructDef], s: Scalar, path: &syn::Path) {
    if let Scalar::Struct(id) = s {
        if let Some(def) = defs.get_mut(id.index as usize) {
            def.path.get_or_insert_with(|| path.clone());
        }
    }
}

/// Struct `id`'s definition.
pub fn def(defs: &[StructDef], id: StructId) -> Option<&StructDef> {
    defs.get(id.index as usize)
}

/// The type of field `name` of struct `id`.
pub fn field(defs: &[StructDef], id: StructId, name: &str) -> Option<Ty> {
    def(defs, id)?
        .fields
        .iter()
        .find(|f| f.name == name)
        .map(|f| f.ty.clone())
}

/// Every struct the function names, with the path it names it by (their C definitions are
/// the function's dependencies; the structs they hold are theirs).
pub fn named(defs: &[StructDef]) -> Vec<syn::Path> {
    defs.iter().filter_map(|s| s.path.clone()).collect()
}
