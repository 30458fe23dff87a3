//! The methods of a `Texture2D<T>` parameter in a kernel: `fetch(x, y)` reads texel
//! (x, y) under the texture's address mode, `width()` and `height()` its size. Coordinates
//! and sizes are `i32`, as CUDA's integer texture coordinates are, so that `x - 1` at the
//! left edge is a coordinate the address mode resolves (docs/textures.md).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexMethod {
    /// `tex.fetch(x: i32, y: i32) -> T`.
    Fetch,
    /// `tex.width() -> i32`.
    Width,
    /// `tex.height() -> i32`.
    Height,
}

impl TexMethod {
    pub fn from_name(name: &str) -> Option<TexMethod> {
        Some(match name {
            "fetch" => TexMethod::Fetch,
            "width" => TexMethod::Width,
            "height" => TexMethod::Height,
            _ => return None,
        })
    }

    /// How many arguments the method takes (each an `i32`).
    pub fn arity(self) -> usize {
        match self {
            TexMethod::Fetch => 2,
            TexMethod::Width | TexMethod::Height => 0,
        }
    }

    pub fn signature(self) -> &'static str {
        match self {
            TexMethod::Fetch => "fetch(x: i32, y: i32) -> T",
            TexMethod::Width => "width() -> i32",
            TexMethod::Height => "height() -> i32",
        }
    }
}

/// The method of a texture method call: the receiver is a texture and the name known.
pub fn tex_method(recv_ty: &crate::ir::ty::Ty, name: &syn::Ident) -> Option<TexMethod> {
    match recv_ty {
        crate::ir::ty::Ty::Texture2D(_) => TexMethod::from_name(&name.to_string()),
        _ => None,
    }
}
