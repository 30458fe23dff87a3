//! Texture methods in the type checker (`ir/texture.rs` has the table): `tex.fetch(x, y)`
//! gives the texture's element type from `i32` coordinates, `width()` and `height()` a
//! `usize`; `fetch` on anything that is
//! not a texture is refused with a message that names the parameter type to use.

use super::*;
use crate::ir::texture::TexMethod;

impl Typeck<'_> {
    /// A method called on a `Texture2D<T>` parameter.
    pub(super) fn texture_method(
        &mut self,
        e: &Expr,
        elem: Scalar,
        name: &Ident,
        args: &[Expr],
    ) -> Ty {
        let Some(m) = TexMethod::from_name(&name.to_string()) else {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                name.span(),
                format!("no method `{name}` on `Texture2D<{}>`: a texture in a kernel has `fetch(x, y)`, `width()` and `height()`", elem.rust_name()),
            );
            return Ty::Never;
        };
        if args.len() != m.arity() {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                e.range(),
                format!(
                    "`{name}` takes {} argument(s), {} given: `{}`",
                    m.arity(),
                    args.len(),
                    m.signature()
                ),
            );
            return Ty::Never;
        }
        let i32_ty = Ty::Scalar(Scalar::I32);
        for a in args {
            let t = self.infer(a, Some(&i32_ty));
            self.expect(&t, &i32_ty, a.range());
        }
        self.calls.insert(e.id, Call::Texture(m));
        match m {
            TexMethod::Fetch => Ty::Scalar(elem),
            TexMethod::Width | TexMethod::Height => Ty::USIZE,
        }
    }
}

impl Typeck<'_> {
    /// A texture passed to a `#[gpu_device]` function, which never takes one.
    pub(super) fn texture_argument(&mut self, a: &Expr, t: &Ty) {
        if let Ty::Texture2D(_) = self.shallow(t) {
            self.cx.error_at(
                a.range(),
                "a #[gpu_device] function takes no texture: fetch the texels here and pass them as values",
            );
        }
    }
}

/// The message for `fetch` called on something that is not a texture, if `name` is it.
pub(super) fn fetch_on_non_texture(name: &str, on: &str) -> Option<String> {
    (name == "fetch").then(|| {
        format!("`fetch` reads a texture, and this is `{on}`: declare the parameter `&Texture2D<T>` and create it on the host with `Texture2D::upload` or `Texture2D::from_buffer`")
    })
}
