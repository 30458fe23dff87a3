//! `#[gpu_struct]` values in C: a literal is a temporary whose fields are set in the order
//! Rust evaluates them (the order written, which may not be the declaration order).

use super::{c_decl, c_field_name, FnWriter};
use crate::ir::ast::*;

impl FnWriter<'_> {
    /// `Params { dt: .., v: [..] }`: the name of a temporary holding it.
    pub(super) fn struct_lit_c(&mut self, e: &Expr, lit: &StructLit) -> String {
        let t = self.ty(e).clone();
        let tmp = self.namer.temp();
        self.raw(&format!("{};", c_decl(&t, &tmp)));
        for (name, v) in &lit.fields {
            let field = format!("{tmp}.{}", c_field_name(&name.to_string()));
            let ft = self.ty(v).clone();
            if matches!(v.kind, ExprKind::Array(_) | ExprKind::Repeat(..)) {
                // The literal in a temporary array (which declares it), then copied.
                let arr = self.namer.temp();
                self.array_init(&ft, &arr, v);
                self.store(&field, &ft, &arr);
            } else {
                let val = self.value(v);
                self.store(&field, &ft, &val);
            }
        }
        tmp
    }
}
