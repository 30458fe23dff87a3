//! The `#[gpu_struct]`s a kernel knows while the macro runs: their fields, their C names
//! and how the kernel names them. A kernel cannot see a struct's definition (a proc macro
//! sees only its own item), so the struct's own macro hands its definition over
//! (`structs/resolve.rs`); the pipeline then runs with the definitions as a table: the
//! parser's (which records the paths the function names them by), then the function's
//! (`Function::structs`). `Scalar::Struct(id)` names a struct by its index in the table
//! and carries its names, so a type prints without the table.

use crate::ir::ty::{Scalar, StructId, Ty};

/// One `#[gpu_struct]`, as its macro describes it. A generic struct (`Params<T: Float>`)
/// has no `fields` of its own: its instances (`Params<f32>`, one entry each, made by
/// `structs/generic.rs`) have them.
#[derive(Clone, Debug, Default)]
pub struct StructDef {
    /// The Rust name of the struct (`Params`); also the names the kernel imported it as
    /// (`use a::Params as P;`).
    pub names: Vec<String>,
    pub fields: Vec<FieldDef>,
    /// The path the function names the struct by, where it does (`Params`,
    /// `shapes::Params`): how the emitted Rust spells its type.
    pub path: Option<syn::Path>,
    /// A generic struct: its type parameters and its fields as written.
    pub generic: Option<Generic>,
    /// An instance of a generic struct: the generic struct's index and the arguments.
    pub instance: Option<(usize, Vec<Scalar>)>,
}

/// The parameters and fields of a generic `#[gpu_struct]`.
#[derive(Clone, Debug)]
pub struct Generic {
    /// Each type parameter: its name, its bound's name (`Float`) and the bound's types.
    pub params: Vec<(String, String, Vec<Scalar>)>,
    /// Each field: its name and its type as written (`T`, `[T; 4]`, `Vec2<T>`).
    pub fields: Vec<(String, syn::Type)>,
}

/// The C name of instance `args` of struct `name`: `ws_s_Params_f32`.
pub fn instance_c_name(name: &str, args: &[Scalar]) -> String {
    let args: Vec<&str> = args.iter().map(|a| a.rust_name()).collect();
    format!("{}_{}", c_struct_name(name), args.join("_"))
}

/// The Rust name of instance `args` of struct `name`: `Params<f32>`.
pub fn instance_rust_name(name: &str, args: &[Scalar]) -> String {
    let args: Vec<&str> = args.iter().map(|a| a.rust_name()).collect();
    format!("{name}<{}>", args.join(", "))
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
    if let Some((g, args)) = &defs[index].instance {
        let generic = defs[*g].names.first().map_or("", |n| n.as_str());
        let c = instance_c_name(generic, args);
        return Scalar::Struct(StructId::instance(index, name, &c, args));
    }
    Scalar::Struct(StructId::new(index, name))
}

/// The struct a kernel names `name` (the last segment of its path), if `defs` has it.
/// A generic struct is found here too (to say it needs arguments): it has no fields.
pub fn lookup(defs: &[StructDef], name: &str) -> Option<Scalar> {
    let i = defs
        .iter()
        .position(|s| s.names.iter().any(|n| n == name))?;
    Some(scalar(defs, i))
}

/// Whether struct `s` is generic (named without its arguments).
pub fn is_generic(defs: &[StructDef], s: Scalar) -> bool {
    matches!(s, Scalar::Struct(id) if defs.get(id.index as usize).is_some_and(|d| d.generic.is_some()))
}

/// Instance `args` of the generic struct a kernel names `name`, if `defs` has it.
pub fn instance(defs: &[StructDef], name: &str, args: &[Scalar]) -> Option<Scalar> {
    let g = defs
        .iter()
        .position(|s| s.generic.is_some() && s.names.iter().any(|n| n == name))?;
    let i = defs.iter().position(|d| {
        d.instance
            .as_ref()
            .is_some_and(|(gi, a)| *gi == g && a == args)
    })?;
    Some(scalar(defs, i))
}

/// The instances of the generic struct that struct `s` is (or is an instance of; `s`
/// among them); `[s]` for any other struct.
pub fn siblings(defs: &[StructDef], s: Scalar) -> Vec<Scalar> {
    let Scalar::Struct(id) = s else {
        return vec![s];
    };
    let i = id.index as usize;
    let g: usize = match defs.get(i) {
        Some(d) if d.generic.is_some() => i,
        Some(d) => match &d.instance {
            Some((g, _)) => *g,
            None => return vec![s],
        },
        None => return vec![s],
    };
    (0..defs.len())
        .filter(|k| defs[*k].instance.as_ref().is_some_and(|(gi, _)| *gi == g))
        .map(|k| scalar(defs, k))
        .collect()
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
