//! Types as written in kernel signatures and `let` annotations.

use crate::ctxt::Ctxt;
use crate::ir::ast::ParamTy;
use crate::ir::structs::StructDef;
use crate::ir::ty::{Scalar, Ty};
use quote::ToTokens;

mod shared_ref;
mod texture;
pub use shared_ref::shared_param;

fn type_hint(ty: &syn::Type) -> String {
    let text = ty.to_token_stream().to_string().replace(' ', "");
    let fragment = ["FragmentA<", "FragmentB<", "FragmentAcc<"]
        .iter()
        .any(|f| text.starts_with(f) || text.contains(&format!("::{f}")));
    if fragment {
        format!("a fragment is a local made and used in one kernel: write `let mut f = {}::zeroed();` with the type's arguments in the turbofish, not a `let` annotation, and no fragment parameters (docs/tensor-cores.md)", text.replacen('<', "::<", 1).replace(',', ", "))
    } else if is_host_type(&text) {
        format!("`{text}` is a host type: a GPU thread has no heap; kernels use scalars, slices and local arrays")
    } else {
        format!(
            "unsupported type `{text}` in a kernel: use bool, i8..i64, u8..u64, usize, isize, f32, f64, warpspeed::f16, f16x2, bf16, bf16x2, f32x4 and the other vector types (slices `&[T]`/`&mut [T]` as parameters)"
        )
    }
}

/// Whether `text` (a type without spaces) names a host type: `String`, `Vec<..>`, `&str`, ..
fn is_host_type(text: &str) -> bool {
    let known_host = [
        "String", "Vec", "Box", "Option", "Result", "HashMap", "str", "char",
    ];
    known_host
        .iter()
        .any(|h| text.starts_with(h) || text.contains(&format!("<{h}")) || text == format!("&{h}"))
}

/// `&T` or `&mut T` of a type `T` that is no slice: a `#[gpu_struct]` or another named type
/// (the struct table is not known yet here). Said in the words of what to write instead.
fn reference_hint(r: &syn::TypeReference) -> String {
    let elem = &r.elem;
    let text = elem.to_token_stream().to_string().replace(' ', "");
    if !matches!(&**elem, syn::Type::Path(_)) || is_host_type(&text) {
        return type_hint(elem);
    }
    let m = if r.mutability.is_some() { "mut " } else { "" };
    format!("references to values are not parameters: take `{text}` by value, and have a device function that updates one return the new value (`fn f(p: {text}) -> {text}`, called as `p = f(p)`); or take a slice `&{m}[{text}]` and an index")
}

/// `AtomicU32` (also `core::sync::atomic::AtomicU32`, `warpspeed::AtomicF32`): its scalar.
pub fn atomic_elem(ty: &syn::Type) -> Option<Scalar> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            Scalar::from_atomic_name(&p.path.segments.last()?.ident.to_string())
        }
        syn::Type::Paren(p) => atomic_elem(&p.elem),
        syn::Type::Group(g) => atomic_elem(&g.elem),
        _ => None,
    }
}

/// The path of the element type of a `&[AtomicX]` parameter.
pub fn atomic_path(ty: &syn::Type) -> Option<syn::Path> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    let syn::Type::Slice(s) = &*r.elem else {
        return None;
    };
    atomic_elem(&s.elem)?;
    let mut elem = &*s.elem;
    while let syn::Type::Group(syn::TypeGroup { elem: g, .. })
    | syn::Type::Paren(syn::TypeParen { elem: g, .. }) = elem
    {
        elem = g;
    }
    match elem {
        syn::Type::Path(p) => Some(p.path.clone()),
        _ => None,
    }
}

/// A scalar type: `u32`, `f64`, ...
pub fn parse_scalar(cx: &Ctxt, structs: &mut [StructDef], ty: &syn::Type) -> Option<Scalar> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(id) = p.path.get_ident() {
                if let Some(s) = Scalar::from_name(&id.to_string()) {
                    return Some(s);
                }
            }
            // `warpspeed::f16`, `half::f16`, `half::bf16`, `warpspeed::f16x2`, `warpspeed::f32x4`.
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [krate, name] = segs.as_slice() {
                if let Some(s) = Scalar::from_name(name).filter(|s| s.is_library()) {
                    if krate == "warpspeed" || (krate == "half" && s.is_half_float()) {
                        return Some(s);
                    }
                }
            }
            if let Some(s) = super::structs::struct_scalar(structs, &p.path)
                .filter(|s| !crate::ir::structs::is_generic(structs, *s))
            {
                return Some(s);
            }
            match super::structs::generic_misuse(structs, &p.path, false) {
                Some(msg) => cx.error_spanned_by(ty, msg),
                None => cx.error_spanned_by(ty, type_hint(ty)),
            }
            None
        }
        syn::Type::Paren(p) => parse_scalar(cx, structs, &p.elem),
        // `$t` of a `macro_rules!` arrives as an invisible group.
        syn::Type::Group(g) => parse_scalar(cx, structs, &g.elem),
        _ => {
            cx.error_spanned_by(ty, type_hint(ty));
            None
        }
    }
}

/// A kernel or device-function parameter: a scalar, `&[T]` or `&mut [T]`, a texture.
pub fn parse_param_ty(cx: &Ctxt, structs: &mut [StructDef], ty: &syn::Type) -> Option<ParamTy> {
    // A type a `macro_rules!` passed as `$t:ty` arrives wrapped in an invisible group.
    if let syn::Type::Group(g) = ty {
        return parse_param_ty(cx, structs, &g.elem);
    }
    if let Some(tex) = texture::texture_param(cx, structs, ty) {
        return tex;
    }
    if let Some(map) = texture::tensor_map_param(cx, structs, ty) {
        return map;
    }
    match ty {
        syn::Type::Reference(r) => {
            if let Some(l) = &r.lifetime {
                cx.error_spanned_by(
                    l,
                    "lifetimes are not needed on kernel parameters: write `&[T]`",
                );
            }
            match &*r.elem {
                syn::Type::Slice(s) => {
                    if let Some(elem) = atomic_elem(&s.elem) {
                        if r.mutability.is_some() {
                            cx.error_spanned_by(ty, format!("atomics are updated through a shared reference: write `&[{}]`, not `&mut`", elem.atomic_name().unwrap_or_default()));
                            return None;
                        }
                        return Some(ParamTy::Atomics(elem));
                    }
                    let elem = parse_scalar(cx, structs, &s.elem)?;
                    Some(ParamTy::Slice {
                        elem,
                        mutable: r.mutability.is_some(),
                    })
                }
                syn::Type::Array(_) => {
                    cx.error_spanned_by(ty, "array references are not kernel parameters: take a slice `&[T]` and check its length");
                    None
                }
                syn::Type::Path(p)
                    if p.path
                        .get_ident()
                        .is_some_and(|i| Scalar::from_name(&i.to_string()).is_some()) =>
                {
                    cx.error_spanned_by(ty, "references to scalars are not kernel parameters: take the scalar by value, or a `&mut [T]` to write results");
                    None
                }
                _ => {
                    cx.error_spanned_by(ty, reference_hint(r));
                    None
                }
            }
        }
        syn::Type::Slice(_) => {
            cx.error_spanned_by(
                ty,
                "a slice parameter is borrowed: write `&[T]` or `&mut [T]`",
            );
            None
        }
        syn::Type::Ptr(_) => {
            cx.error_spanned_by(ty, "raw pointers are not kernel parameters: take a slice `&[T]` or `&mut [T]`, which carries its length");
            None
        }
        syn::Type::ImplTrait(_) | syn::Type::TraitObject(_) => {
            cx.error_spanned_by(
                ty,
                "`impl Trait` and `dyn Trait` are not kernel types (closures and trait objects have no GPU form): for a kernel over several element types, write a type parameter, `fn k<T: Float>(x: T)`",
            );
            None
        }
        syn::Type::Array(a) => {
            let n = array_param_len(cx, &a.len)?;
            let (elem, m) = match &*a.elem {
                syn::Type::Array(inner) => (
                    parse_scalar(cx, structs, &inner.elem)?,
                    array_param_len(cx, &inner.len)?,
                ),
                other => (parse_scalar(cx, structs, other)?, 0),
            };
            Some(ParamTy::Array { elem, dims: [n, m] })
        }
        other => parse_scalar(cx, structs, other).map(ParamTy::Scalar),
    }
}

/// The length of an array parameter: a non-zero integer literal.
fn array_param_len(cx: &Ctxt, e: &syn::Expr) -> Option<u64> {
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(i),
        ..
    }) = e
    {
        if let Ok(n @ 1..) = i.base10_parse::<u64>() {
            return Some(n);
        }
    }
    cx.error_spanned_by(
        e,
        "an array parameter's length is a non-zero integer literal (`a: [f32; 4]`)",
    );
    None
}

/// A `let` annotation's scalars, `Dim3` and `(usize, usize)`; the parser takes arrays
/// (whose lengths may be constants) itself.
pub fn parse_ty(cx: &Ctxt, structs: &mut [StructDef], ty: &syn::Type) -> Option<Ty> {
    match ty {
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let items: Option<Vec<Ty>> = t.elems.iter().map(|e| parse_ty(cx, structs, e)).collect();
            Some(Ty::Tuple(items?))
        }
        syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Dim3") => {
            Some(Ty::Dim3)
        }
        syn::Type::Infer(_) => None,
        syn::Type::Reference(_) => {
            cx.error_spanned_by(ty, "a borrow's `let` takes no type annotation: write `let row = &x[a..b];` (slices and shared arrays only; copy a value with `let x = s[i];`)");
            None
        }
        other => parse_scalar(cx, structs, other).map(Ty::Scalar),
    }
}
