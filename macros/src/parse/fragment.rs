//! Tensor-core fragments in a kernel body: `FragmentA::<f16, M16N8K16>::zeroed()` (also
//! `FragmentB`, `FragmentAcc`, by path through `warpspeed::kernel`), the only way a
//! fragment is made (docs/tensor-cores.md). The element type and shape must be a row of
//! the `mma.sync` table (`ir/ty/fragment.rs`).

use super::Parser;
use crate::ir::ast::{Expr, ExprKind};
use crate::ir::ty::fragment::{Frag, Role, Shape};

impl Parser<'_> {
    /// `None` when `path` is not a fragment's constructor; `Some(None)` when it is one with
    /// an error (already reported).
    pub(super) fn fragment_call(
        &mut self,
        path: &syn::Path,
        args: &[Expr],
    ) -> Option<Option<ExprKind>> {
        let segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
        let n = segs.len();
        if n < 2 {
            return None;
        }
        let role = Role::from_type_name(&segs[n - 2].ident.to_string())?;
        let from_us = (0..n - 2).all(|i| {
            let s = segs[i].ident.to_string();
            s == "warpspeed" || s == "prelude" || s == "kernel"
        });
        if !from_us {
            return None;
        }
        let name = role.type_name();
        if segs[n - 1].ident != "zeroed" {
            self.cx.error_spanned_by(
                &segs[n - 1].ident,
                format!("a fragment is made with `{name}::<T, Shape>::zeroed()` (every element 0), then filled through `frag.x[i]`"),
            );
            return Some(None);
        }
        if !args.is_empty() {
            self.cx.error_spanned_by(
                path,
                format!("`{name}::<T, Shape>::zeroed()` takes no arguments"),
            );
            return Some(None);
        }
        Some(
            self.fragment_type(role, segs[n - 2])
                .map(ExprKind::Fragment),
        )
    }

    /// The `<T, Shape>` of a fragment type.
    fn fragment_type(&mut self, role: Role, seg: &syn::PathSegment) -> Option<Frag> {
        let name = role.type_name();
        let usage =
            format!("name the element type and the shape: `{name}::<f16, M16N8K16>::zeroed()`");
        let syn::PathArguments::AngleBracketed(g) = &seg.arguments else {
            self.cx.error_spanned_by(seg, usage);
            return None;
        };
        let items: Vec<&syn::GenericArgument> = g.args.iter().collect();
        let [syn::GenericArgument::Type(elem_ty), syn::GenericArgument::Type(shape_ty)] =
            items.as_slice()
        else {
            self.cx.error_spanned_by(g, usage);
            return None;
        };
        let shapes = Shape::ALL.map(Shape::name).join("`, `");
        let shape = match shape_ty {
            syn::Type::Path(p) if p.qself.is_none() => p
                .path
                .segments
                .last()
                .and_then(|s| Shape::from_name(&s.ident.to_string())),
            _ => None,
        };
        let Some(shape) = shape else {
            self.cx.error_spanned_by(
                shape_ty,
                format!("the shape of a fragment is one of `{shapes}` (`mma.sync`), or `M64N{{N}}K16` (`M64N{{N}}K8` for tf32) with N a multiple of 8 from 8 to 256 (a `wgmma` accumulator: `FragmentAcc<f32, M64N128K16>`)"),
            );
            return None;
        };
        if shape.is_wgmma() && Frag::elems(role, shape).is_empty() {
            let msg = match shape {
                Shape::Wgmma { k: 16, .. } => format!("`{0}` is a `wgmma` shape, which has an accumulator (`FragmentAcc<f32, {0}>`) and an A in registers (`FragmentA<bf16, {0}>`): its B is a tile in shared memory, passed to `acc.wgmma(a, &b_tile, k)`", shape.name()),
                _ => format!("`{0}` is a `wgmma` shape of tf32, which has only an accumulator (`FragmentAcc<f32, {0}>`): its A and B are tiles in shared memory, passed to `acc.wgmma(&a_tile, &b_tile, k)` (an A in registers is for the 16-bit `M64N{{N}}K16` shapes)", shape.name()),
            };
            self.cx.error_spanned_by(shape_ty, msg);
            return None;
        }
        let elem = super::types::parse_scalar(self.cx, &mut self.structs, elem_ty)?;
        let allowed = Frag::elems(role, shape);
        if !allowed.contains(&elem) {
            let names: Vec<String> = allowed
                .iter()
                .map(|s| format!("`{}`", s.rust_name()))
                .collect();
            self.cx.error_spanned_by(
                elem_ty,
                format!(
                    "`{name}<_, {}>` holds {}, not `{}`: no `{}` of shape {} takes {} `{}`",
                    shape.name(),
                    names.join(" or "),
                    elem.rust_name(),
                    if shape.is_wgmma() {
                        "wgmma"
                    } else {
                        "mma.sync"
                    },
                    shape.name().to_lowercase(),
                    if role == Role::Acc {
                        "an accumulator of"
                    } else {
                        "operands of"
                    },
                    elem.rust_name()
                ),
            );
            return None;
        }
        Some(Frag { role, elem, shape })
    }
}
