//! Module-level constants in the type checker: which names are constants, one table
//! entry per constant (and per `N as T`), each typed by its uses as rustc would type it.

use super::*;
use syn::spanned::Spanned;

impl Typeck<'_> {
    /// The module-level constant `e` names, if it is one: a path, or a capitalised name
    /// that no local has.
    pub(super) fn const_path(&self, e: &Expr) -> Option<syn::Path> {
        match &e.kind {
            ExprKind::ConstItem(path) => Some(path.clone()),
            ExprKind::Var(name) if self.lookup(&name.to_string()).is_none() => {
                let path = syn::Path::from(name.clone());
                crate::parse::is_const_name(&path).then_some(path)
            }
            _ => None,
        }
    }

    /// A shift amount: any integer. A constant whose type nothing gives is read as `u32`
    /// (`SHIFT as u32`), which shifts the same: Rust masks the amount's low bits either way.
    pub(super) fn shift_amount(&mut self, r: &Expr) -> Ty {
        match self.const_path(r) {
            Some(path) if !self.const_type_known(&path) => {
                self.const_use(r, &path, Some(Scalar::U32))
            }
            _ => self.infer(r, None),
        }
    }

    pub(super) fn const_index(&self, path: &syn::Path, cast: Option<Scalar>) -> Option<usize> {
        let key = crate::parse::path_text(path);
        self.consts
            .iter()
            .position(|c| c.cast == cast && crate::parse::expr_text(&c.expr) == key)
    }

    pub(super) fn const_type_known(&self, path: &syn::Path) -> bool {
        self.const_index(path, None)
            .is_some_and(|i| !matches!(self.shallow(&self.consts[i].ty), Ty::Var(_)))
    }

    /// A use of the module-level constant `path` (converted to `cast`): one table entry
    /// per constant, whose type the uses infer as rustc would; a type nothing fixes is an
    /// error that asks for one.
    pub(super) fn const_use(&mut self, e: &Expr, path: &syn::Path, cast: Option<Scalar>) -> Ty {
        let id = self.const_entry(path, cast, e.range().into());
        self.const_uses.insert(e.id, id);
        self.consts[id].ty.clone()
    }

    /// The type of the constant `path` as a pattern (its entry made if it is new).
    pub(super) fn const_ty(&mut self, path: &syn::Path) -> Ty {
        let at = ErrSpan::from(path.span());
        let id = self.const_entry(path, None, at);
        self.consts[id].ty.clone()
    }

    pub(super) fn const_entry(
        &mut self,
        path: &syn::Path,
        cast: Option<Scalar>,
        at: ErrSpan,
    ) -> usize {
        match self.const_index(path, cast) {
            Some(id) => id,
            None => {
                let name = crate::parse::path_text(path);
                let param = path
                    .get_ident()
                    .and_then(|id| self.const_params.iter().find(|(c, _)| c == id));
                let ty = match (cast, param) {
                    (Some(s), _) => Ty::Scalar(s),
                    // A const parameter's type is declared.
                    (None, Some((_, s))) => Ty::Scalar(*s),
                    (None, None) => self.fresh(
                        Kind::Any,
                        Some((
                            at,
                            format!("cannot infer the type of the constant `{name}`: the macro does not see items outside the kernel, so a constant takes its type from where it is used; use it where the type is fixed (`let n: u32 = {name};`, `{name} as f32`, `i < {name}`)"),
                        )),
                    ),
                };
                self.consts.push(ConstInfo {
                    expr: path_expr(path),
                    cast,
                    ty,
                    id: self.consts.len(),
                });
                self.consts.len() - 1
            }
        }
    }
}

/// `path` as an expression.
fn path_expr(path: &syn::Path) -> syn::Expr {
    syn::Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: path.clone(),
    })
}
