//! Textures in the CUDA C: a `Texture2D<T>` parameter becomes four C parameters (the
//! `cudaTextureObject_t` as `unsigned long long`, width, height, address mode), and
//! `tex.fetch(x, y)` the prelude's `ws_tex2d_fetch<T>`, inline PTX `tex.2d.v4` with no
//! header (runtime/src/prelude_tex.cuh).

use super::FnWriter;
use crate::ir::ast::{Expr, VarId};
use crate::ir::texture::TexMethod;
use crate::ir::ty::Scalar;

/// The C names of a texture parameter's width, height and mode (the handle is the
/// parameter's own name).
pub(super) struct TexNames {
    width: String,
    height: String,
    mode: String,
}

impl FnWriter<'_> {
    /// The C parameters of texture parameter `var`, named from `name`.
    pub(super) fn texture_params(&mut self, var: VarId, name: &str) -> Vec<String> {
        let names = TexNames {
            width: self.namer.fresh(&format!("{name}_width")),
            height: self.namer.fresh(&format!("{name}_height")),
            mode: self.namer.fresh(&format!("{name}_mode")),
        };
        let params = vec![
            format!("unsigned long long {name}"),
            format!("int {}", names.width),
            format!("int {}", names.height),
            format!("int {}", names.mode),
        ];
        self.tex_names.insert(var, names);
        params
    }

    /// `tex.fetch(x, y)`, `tex.width()`, `tex.height()` as C.
    pub(super) fn texture_c(
        &mut self,
        m: TexMethod,
        recv: &Expr,
        elem: Scalar,
        args: &[Expr],
    ) -> String {
        let var = self.types.var(recv);
        let (Some(handle), Some(names)) = (
            var.and_then(|v| self.var_names.get(&v).cloned()),
            var.and_then(|v| self.tex_names.get(&v)),
        ) else {
            return "0".into();
        };
        match m {
            TexMethod::Width => format!("((unsigned long long){})", names.width),
            TexMethod::Height => format!("((unsigned long long){})", names.height),
            TexMethod::Fetch => {
                let (w, h, mode) = (
                    names.width.clone(),
                    names.height.clone(),
                    names.mode.clone(),
                );
                let ops: Vec<&Expr> = args.iter().collect();
                let v = self.operands(&ops);
                format!(
                    "ws_tex2d_fetch<{}>({handle}, {w}, {h}, {mode}, {}, {})",
                    elem.c_name(),
                    v[0],
                    v[1]
                )
            }
        }
    }
}
