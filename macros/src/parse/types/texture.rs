//! `Texture2D<T>` in a kernel signature (written `&Texture2D<T>` or `Texture2D<T>`): a
//! 2-D texture the kernel reads with `tex.fetch(x, y)`. docs/textures.md. And its Hopper
//! kin `&TensorMap<T>`, which `tma_load_2d` reads (docs/tensor-cores.md).

use super::parse_scalar;
use crate::ctxt::Ctxt;
use crate::ir::ast::ParamTy;
use crate::ir::structs::StructDef;
use crate::ir::ty::Scalar;

/// The element types a texture holds: the one-channel formats CUDA reads back exactly.
pub const TEXEL_TYPES: [Scalar; 7] = [
    Scalar::U8,
    Scalar::I8,
    Scalar::U16,
    Scalar::I16,
    Scalar::U32,
    Scalar::I32,
    Scalar::F32,
];

/// `Some(..)` when `ty` is a texture type (`Some(None)` after an error), `None` when it is
/// something else.
pub fn texture_param(
    cx: &Ctxt,
    structs: &mut [StructDef],
    ty: &syn::Type,
) -> Option<Option<ParamTy>> {
    let (path, mutable) = match ty {
        syn::Type::Reference(r) => (texture_path(&r.elem)?, r.mutability.is_some()),
        other => (texture_path(other)?, false),
    };
    if mutable {
        cx.error_spanned_by(
            ty,
            "kernels read textures and never write them: take `&Texture2D<T>`; to compute new texels, pass `&mut tex.memory_mut()` to a `&mut [T]` parameter",
        );
        return Some(None);
    }
    let last = path.segments.last()?;
    let elem = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => t,
            other => {
                cx.error_spanned_by(other, "a texture's element is a type: `Texture2D<f32>`");
                return Some(None);
            }
        },
        _ => {
            cx.error_spanned_by(
                last,
                "name the texture's element type: `Texture2D<u8>`, `Texture2D<f32>`",
            );
            return Some(None);
        }
    };
    let Some(s) = parse_scalar(cx, structs, elem) else {
        return Some(None);
    };
    if !TEXEL_TYPES.contains(&s) {
        cx.error_spanned_by(
            elem,
            format!(
                "`{}` cannot be a texture's element: a texture holds u8, i8, u16, i16, u32, i32 or f32",
                s.rust_name()
            ),
        );
        return Some(None);
    }
    Some(Some(ParamTy::Texture2D(s)))
}

/// The path of `Texture2D<..>` (also `warpspeed::Texture2D<..>`).
fn texture_path(ty: &syn::Type) -> Option<&syn::Path> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            (p.path.segments.last()?.ident == "Texture2D").then_some(&p.path)
        }
        syn::Type::Paren(p) => texture_path(&p.elem),
        syn::Type::Group(g) => texture_path(&g.elem),
        _ => None,
    }
}

/// `Some(..)` when `ty` is `&TensorMap<T>` (`Some(None)` after an error), `None` when it
/// is something else.
pub fn tensor_map_param(
    cx: &Ctxt,
    structs: &mut [StructDef],
    ty: &syn::Type,
) -> Option<Option<ParamTy>> {
    let usage = "a tensor map parameter is `map: &TensorMap<T>` (made on the host with `TensorMap::tiled_2d`)";
    let (path, reference) = match ty {
        syn::Type::Reference(r) => (named_path(&r.elem, "TensorMap")?, r.mutability.is_none()),
        other => (named_path(other, "TensorMap")?, false),
    };
    if !reference {
        cx.error_spanned_by(ty, usage);
        return Some(None);
    }
    let last = path.segments.last()?;
    let types: Vec<&syn::Type> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let [elem] = types.as_slice() else {
        cx.error_spanned_by(
            last,
            "name the tensor map's element type: `&TensorMap<bf16>`",
        );
        return Some(None);
    };
    let s = parse_scalar(cx, structs, elem)?;
    if let Scalar::Param(p) = s {
        cx.error_spanned_by(
            elem,
            format!("a tensor map's element is a concrete type (`&TensorMap<bf16>`), not the type parameter `{p}`"),
        );
        return Some(None);
    }
    let bytes = s.bits() / 8;
    if s.is_struct() || s == Scalar::Bool || ![1, 2, 4, 8].contains(&bytes) {
        cx.error_spanned_by(
            elem,
            format!(
                "`{}` cannot be a tensor map's element: the TMA copies numbers of 1, 2, 4 or 8 bytes",
                s.rust_name()
            ),
        );
        return Some(None);
    }
    Some(Some(ParamTy::TensorMap(s)))
}

/// The path of `Name<..>` (also `warpspeed::Name<..>`).
fn named_path<'t>(ty: &'t syn::Type, name: &str) -> Option<&'t syn::Path> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            (p.path.segments.last()?.ident == name).then_some(&p.path)
        }
        syn::Type::Paren(p) => named_path(&p.elem, name),
        syn::Type::Group(g) => named_path(&g.elem, name),
        _ => None,
    }
}
