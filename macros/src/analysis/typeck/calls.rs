//! Typing a call of a device function from the callee's signature, which its macro handed
//! over (`structs/callees.rs`): the number of arguments, each argument against its
//! parameter's type (so an unsuffixed literal takes the parameter's type, as in rustc), and
//! the result's type, after substituting the call's generic arguments: those it names
//! (`lerp::<f32>(..)`, `nth::<4>(..)`), or, for a type parameter, what the arguments give
//! (every type parameter of a device function is a parameter's type).

use super::*;
use crate::ir::ast::Callee;

/// What a call substitutes for the callee's generic parameters.
struct Subst {
    types: Vec<(String, Ty)>,
    /// Const parameters whose value the call names as a literal.
    consts: Vec<(String, u64)>,
}

impl Typeck<'_> {
    /// The type of a call of a device function whose signature is known; `None` where it
    /// is not (the caller falls back on the call's context).
    pub(super) fn device_call(
        &mut self,
        e: &Expr,
        path: &syn::Path,
        args: &[Expr],
        expected: Option<&Ty>,
    ) -> Option<Ty> {
        let key = crate::parse::callees::key(path);
        let callee = self.callees.iter().find(|c| c.key == key)?.clone();
        let name = callee.sig.ident.to_string();
        let params: Vec<&syn::Type> = callee
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(pt) => Some(&*pt.ty),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        if params.len() != args.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let msg = format!(
                "`{name}` takes {} argument{} but {} argument{} {} supplied",
                params.len(),
                plural(params.len()),
                args.len(),
                plural(args.len()),
                if args.len() == 1 { "was" } else { "were" }
            );
            self.cx.error_at(e.range(), msg);
            for a in args {
                self.infer(a, None);
            }
            return Some(Ty::Never);
        }
        if !self.generic_count(&callee, path, e) {
            for a in args {
                self.infer(a, None);
            }
            return Some(Ty::Never);
        }
        let mut subst = self.generic_args(&callee, path);
        for (a, p) in args.iter().zip(&params) {
            self.resolve_subst(&mut subst);
            if sig_ty(self.structs, p, &subst).is_none() && generic_struct_args(p).is_some() {
                // `s: Scale<T>`: the argument's instance gives `T` (as rustc infers it).
                let t = self.infer(a, None);
                self.bind_struct_args(p, &t, &subst);
                self.resolve_subst(&mut subst);
                if let Some(pt) = sig_ty(self.structs, p, &subst) {
                    self.expect(&t, &pt, a.range());
                }
                continue;
            }
            match sig_ty(self.structs, p, &subst) {
                Some(pt) => {
                    let t = self.infer(a, Some(&pt));
                    self.expect(&t, &pt, a.range());
                }
                // A slice or other reference: checked by rustc where the simulator calls.
                None => {
                    let t = self.infer(a, None);
                    self.texture_argument(a, &t);
                }
            }
        }
        self.resolve_subst(&mut subst);
        self.disjoint_arguments(args);
        let ret = match &callee.sig.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => sig_ty(self.structs, t, &subst)?,
        };
        if let Some(exp) = expected {
            let _ = self.unify(&ret, exp);
        }
        Some(ret)
    }

    /// Whether the call names as many generic arguments as the callee has (or none, where
    /// the callee has no const parameters: rustc infers type parameters); else one error.
    fn generic_count(&mut self, callee: &Callee, path: &syn::Path, e: &Expr) -> bool {
        let name = callee.sig.ident.to_string();
        let generics = &callee.sig.generics;
        let want = generics.type_params().count() + generics.const_params().count();
        let consts = generics.const_params().count();
        let given = match path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(g)) => Some(g),
            _ => None,
        };
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match given {
            None if consts > 0 => {
                let names: Vec<String> = generics
                    .params
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                        syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                        syn::GenericParam::Lifetime(_) => None,
                    })
                    .collect();
                self.cx.error_at(
                    e.range(),
                    format!(
                        "`{name}` has const parameters, which the call must name, as Rust requires: `{name}::<{}>(..)`",
                        names.join(", ")
                    ),
                );
                false
            }
            Some(g) if g.args.len() != want => {
                let n = g.args.len();
                self.cx.error_spanned_by(
                    g,
                    format!(
                        "`{name}` takes {want} generic argument{} but {n} generic argument{} {} supplied",
                        plural(want),
                        plural(n),
                        if n == 1 { "was" } else { "were" }
                    ),
                );
                false
            }
            Some(g) => {
                // A literal const argument of the wrong kind (`nth::<true>` for a `usize`).
                let mut ok = true;
                for (p, a) in generics
                    .params
                    .iter()
                    .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
                    .zip(&g.args)
                {
                    let (
                        syn::GenericParam::Const(c),
                        syn::GenericArgument::Const(syn::Expr::Lit(l)),
                    ) = (p, a)
                    else {
                        continue;
                    };
                    let ty = &c.ty;
                    let want = quote::quote!(#ty).to_string();
                    let found = match &l.lit {
                        syn::Lit::Bool(_) if want != "bool" => "bool",
                        syn::Lit::Int(_) if want == "bool" => "integer",
                        _ => continue,
                    };
                    self.cx.error_spanned_by(
                        a,
                        format!("mismatched types: expected `{want}`, found `{found}`"),
                    );
                    ok = false;
                }
                ok
            }
            None => true,
        }
    }

    /// The call's generic arguments, by the callee's parameter names: a type named in the
    /// turbofish, else a fresh type (Rust infers it from the arguments); a const parameter's literal value.
    /// The type parameters' types as far as they are known now.
    fn resolve_subst(&self, subst: &mut Subst) {
        for (_, t) in subst.types.iter_mut() {
            *t = self.resolve(t);
        }
    }

    /// Binds the callee's type parameters that a generic struct parameter (`s: Scale<T>`)
    /// names to the arguments of the argument's instance (`Scale<f32>`: `T = f32`).
    fn bind_struct_args(&mut self, p: &syn::Type, arg: &Ty, subst: &Subst) {
        let (Some(written), Some(Scalar::Struct(id))) = (generic_struct_args(p), arg.scalar())
        else {
            return;
        };
        let Some((_, actual)) =
            crate::ir::structs::def(self.structs, id).and_then(|d| d.instance.clone())
        else {
            return;
        };
        for (w, a) in written.iter().zip(actual) {
            let param = subst
                .types
                .iter()
                .find(|(n, _)| w.as_deref() == Some(n.as_str()));
            if let Some((_, t)) = param {
                let _ = self.unify(t, &Ty::Scalar(a));
            }
        }
    }

    fn generic_args(&mut self, callee: &Callee, path: &syn::Path) -> Subst {
        let named: Vec<&syn::GenericArgument> = match path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(g)) => g.args.iter().collect(),
            _ => Vec::new(),
        };
        let mut out = Subst {
            types: Vec::new(),
            consts: Vec::new(),
        };
        let generics = callee
            .sig
            .generics
            .params
            .iter()
            .filter(|g| !matches!(g, syn::GenericParam::Lifetime(_)));
        for (i, g) in generics.enumerate() {
            match g {
                syn::GenericParam::Type(t) => {
                    let given = named.get(i).and_then(|a| match a {
                        syn::GenericArgument::Type(syn::Type::Path(p)) => p
                            .path
                            .get_ident()
                            .and_then(|id| Scalar::from_name(&id.to_string()))
                            .map(Ty::Scalar),
                        _ => None,
                    });
                    // Any type: the arguments bind it (the bound's checks are rustc's,
                    // where the simulator calls; `f16` is a `Float` no literal has).
                    let ty = given.unwrap_or_else(|| self.fresh(Kind::Any, None));
                    out.types.push((t.ident.to_string(), ty));
                }
                syn::GenericParam::Const(c) => {
                    let value = named.get(i).and_then(|a| match a {
                        syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(n),
                            ..
                        })) => n.base10_parse::<u64>().ok(),
                        _ => None,
                    });
                    if let Some(v) = value {
                        out.consts.push((c.ident.to_string(), v));
                    }
                }
                syn::GenericParam::Lifetime(_) => {}
            }
        }
        out
    }
}

/// The arguments of a generic struct's type as written (`Scale<T, f32>`: `[Some("T"),
/// Some("f32")]`, `None` for one that is no plain name); `None` for any other type.
fn generic_struct_args(t: &syn::Type) -> Option<Vec<Option<String>>> {
    let syn::Type::Path(p) = t else { return None };
    let syn::PathArguments::AngleBracketed(a) = &p.path.segments.last()?.arguments else {
        return None;
    };
    Some(
        a.args
            .iter()
            .map(|g| match g {
                syn::GenericArgument::Type(syn::Type::Path(p)) => {
                    p.path.get_ident().map(|i| i.to_string())
                }
                _ => None,
            })
            .collect(),
    )
}

/// A type of the callee's signature in the caller's terms: a scalar, a `#[gpu_struct]`, a
/// tuple or an array of them, a generic parameter substituted. `None` for what the kernel
/// checks elsewhere (references) or cannot say (an array whose length the call does not
/// name).
fn sig_ty(defs: &[StructDef], t: &syn::Type, subst: &Subst) -> Option<Ty> {
    match t {
        syn::Type::Paren(p) => sig_ty(defs, &p.elem, subst),
        syn::Type::Group(g) => sig_ty(defs, &g.elem, subst),
        syn::Type::Tuple(t) if t.elems.is_empty() => Some(Ty::Unit),
        syn::Type::Tuple(t) => t
            .elems
            .iter()
            .map(|e| sig_ty(defs, e, subst))
            .collect::<Option<Vec<_>>>()
            .map(Ty::Tuple),
        syn::Type::Array(a) => {
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u64>().ok()?,
                syn::Expr::Path(p) => {
                    let id = p.path.get_ident()?.to_string();
                    subst.consts.iter().find(|(n, _)| *n == id)?.1
                }
                _ => return None,
            };
            Some(Ty::Array(
                Box::new(sig_ty(defs, &a.elem, subst)?),
                Len::Lit(n),
            ))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [one] = segs.as_slice() {
                if let Some((_, t)) = subst.types.iter().find(|(n, _)| n == one) {
                    return Some(t.clone());
                }
            }
            let last = segs.last()?;
            if let Some(s) = Scalar::from_name(last) {
                return Some(Ty::Scalar(s));
            }
            // A generic struct's instance (`Params<T>`, the callee's `T` substituted).
            if let Some(syn::PathArguments::AngleBracketed(a)) =
                p.path.segments.last().map(|s| &s.arguments)
            {
                let args = a
                    .args
                    .iter()
                    .map(|arg| match arg {
                        syn::GenericArgument::Type(t) => sig_ty(defs, t, subst)?.scalar(),
                        _ => None,
                    })
                    .collect::<Option<Vec<Scalar>>>()?;
                return crate::ir::structs::instance(defs, last, &args).map(Ty::Scalar);
            }
            crate::ir::structs::lookup(defs, last)
                .filter(|s| !crate::ir::structs::is_generic(defs, *s))
                .map(Ty::Scalar)
        }
        _ => None,
    }
}
