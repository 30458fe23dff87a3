//! Typing `#[gpu_struct]` values: literals (every field once, each of its declared type),
//! field reads, and places that write a field (`p.dt = ..`, `out[i].pos.x += ..`).

use super::*;
use crate::ir::structs;
use crate::ir::ty::StructId;

impl Typeck<'_> {
    /// `Params { dt: 0.1, n: 3 }`; of a generic struct written without arguments, the
    /// instance the expected type or the fields of a type parameter's type give.
    pub(super) fn struct_lit(&mut self, e: &Expr, lit: &StructLit, expected: Option<&Ty>) -> Ty {
        let Scalar::Struct(mut id) = lit.ty else {
            return Ty::Never;
        };
        let mut typed = Vec::new();
        if structs::is_generic(self.structs, lit.ty) {
            let Some((instance, pre)) = self.generic_lit(e, lit, id, expected) else {
                return Ty::Never;
            };
            id = instance;
            typed = pre;
        }
        let lit_ty = Scalar::Struct(id);
        let Some(def) = structs::def(self.structs, id) else {
            return Ty::Never;
        };
        let name = lit_ty.rust_name();
        let mut seen: Vec<String> = Vec::new();
        for (k, (field, value)) in lit.fields.iter().enumerate() {
            let f = field.to_string();
            let declared = def
                .fields
                .iter()
                .find(|d| d.name == f)
                .map(|d| d.ty.clone());
            let t = match typed.iter().find(|(i, _)| *i == k) {
                Some((_, t)) => t.clone(),
                None => self.infer(value, declared.as_ref()),
            };
            match declared {
                None => {
                    let names: Vec<String> =
                        def.fields.iter().map(|d| format!("`{}`", d.name)).collect();
                    self.cx.error_at(
                        field.span(),
                        format!(
                            "struct `{name}` has no field named `{f}`: its fields are {}",
                            names.join(", ")
                        ),
                    );
                }
                Some(d) => self.expect(&t, &d, value.range()),
            }
            if seen.contains(&f) {
                self.cx.error_at(
                    field.span(),
                    format!("field `{f}` specified more than once"),
                );
            }
            seen.push(f);
        }
        let missing: Vec<String> = def
            .fields
            .iter()
            .filter(|d| !seen.contains(&d.name))
            .map(|d| format!("`{}`", d.name))
            .collect();
        if !missing.is_empty() {
            let s = if missing.len() > 1 { "s" } else { "" };
            self.cx.error_at(
                (e.span, e.end),
                format!(
                    "missing field{s} {} in initializer of `{name}`",
                    missing.join(", ")
                ),
            );
        }
        Ty::Scalar(lit_ty)
    }

    /// The instance a literal of generic struct `id` without arguments builds: the
    /// expected type's where it is one, else the one whose type parameters the fields
    /// declared as a bare parameter (`alpha: T`) give, those fields typed here (their
    /// positions in the literal, with their types). `None` after an error.
    fn generic_lit(
        &mut self,
        e: &Expr,
        lit: &StructLit,
        id: StructId,
        expected: Option<&Ty>,
    ) -> Option<(StructId, Vec<(usize, Ty)>)> {
        let def = structs::def(self.structs, id)?;
        let generic = def.generic.as_ref()?;
        if let Some(Ty::Scalar(Scalar::Struct(want))) = expected {
            let of = structs::def(self.structs, *want).and_then(|d| d.instance.as_ref());
            if of.is_some_and(|(g, _)| *g == id.index as usize) {
                return Some((*want, Vec::new()));
            }
        }
        let mut args: Vec<Option<Scalar>> = vec![None; generic.params.len()];
        let mut typed = Vec::new();
        for (k, (field, value)) in lit.fields.iter().enumerate() {
            let written = generic
                .fields
                .iter()
                .find(|(n, _)| field == n)
                .map(|(_, t)| t);
            let param = written
                .and_then(|t| match t {
                    syn::Type::Path(p) => p.path.get_ident(),
                    _ => None,
                })
                .and_then(|i| generic.params.iter().position(|(n, _, _)| i == n));
            if let Some(p) = param {
                let t = self.infer(value, None);
                if let (None, Some(s)) = (args[p], t.scalar()) {
                    args[p] = Some(s);
                }
                typed.push((k, t));
            }
        }
        let name = &def.names[0];
        let Some(args) = args.into_iter().collect::<Option<Vec<Scalar>>>() else {
            let params: Vec<&str> = generic.params.iter().map(|p| p.0.as_str()).collect();
            self.cx.error_at(
                e.range(),
                format!("cannot tell which `{name}` this literal builds: name its arguments, `{name}::<{}> {{ .. }}`", params.join(", ")),
            );
            return None;
        };
        let Some(Scalar::Struct(instance)) = structs::instance(self.structs, name, &args) else {
            let args: Vec<&str> = args.iter().map(|a| a.rust_name()).collect();
            let bounds: Vec<String> = generic
                .params
                .iter()
                .map(|p| format!("`{}: {}`", p.0, p.1))
                .collect();
            self.cx.error_at(
                e.range(),
                format!(
                    "this literal builds `{name}<{}>`, which its bounds ({}) do not allow",
                    args.join(", "),
                    bounds.join(", ")
                ),
            );
            return None;
        };
        Some((instance, typed))
    }

    /// `base.name` where `base` is struct `id`.
    pub(super) fn struct_field(&mut self, e: &Expr, id: StructId, member: &Member) -> Ty {
        let t = match member {
            Member::Named(n) => structs::field(self.structs, id, n),
            Member::Index(_) => None,
        };
        t.unwrap_or_else(|| {
            let m = match member {
                Member::Named(n) => n.clone(),
                Member::Index(i) => i.to_string(),
            };
            let fields: Vec<String> = structs::def(self.structs, id)
                .map(|d| d.fields.iter().map(|f| format!("`{}`", f.name)).collect())
                .unwrap_or_default();
            let msg = format!(
                "no field `{m}` on type `{}`: its fields are {}",
                Scalar::Struct(id).rust_name(),
                fields.join(", ")
            );
            self.cx.error_at(e.range(), msg);
            Ty::Never
        })
    }

    /// A place that writes a field of a struct (`p.dt`, `p.v[2]`, `out[i].pos.x`), already
    /// typed `t`: `Some(t)` once checked, `None` when `place` goes through no struct field.
    /// Rust allows it on locals and on elements of `&mut [T]`; not through a `&[T]`.
    pub(super) fn struct_place(&mut self, place: &Expr, t: &Ty) -> Option<Ty> {
        let mut cur = place;
        let mut found = false;
        loop {
            match &cur.kind {
                ExprKind::Field(b, _) => {
                    let bt = self.shallow(&self.expr[b.id].clone());
                    found |= matches!(bt, Ty::Scalar(Scalar::Struct(_)));
                    cur = b;
                }
                ExprKind::Index(b, _) => cur = b,
                _ => break,
            }
        }
        if !found {
            return None;
        }
        match &cur.kind {
            ExprKind::Var(name) => {
                if let Ty::Slice(_, false) = self.shallow(&self.expr[cur.id].clone()) {
                    self.cx.error_at(
                        place.range(),
                        format!("cannot assign through `{name}`, a `&[T]` parameter: declare it `&mut [T]` to write to it"),
                    );
                }
            }
            _ => self.cx.error_at(
                place.range(),
                "invalid left-hand side of an assignment: assign to a field of a local struct (`p.x`) or of an element of a `&mut [T]` (`out[i].x`)",
            ),
        }
        Some(t.clone())
    }

    /// A `#[gpu_struct]` where only scalars go: `what` says where.
    pub(super) fn refuse_struct(&self, s: Scalar, span: ErrSpan, what: &str) {
        self.cx.error_at(
            span,
            format!(
                "{what}, not the #[gpu_struct] `{}`: use its fields",
                s.rust_name()
            ),
        );
    }
}
