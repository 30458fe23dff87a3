//! The structs a `#[gpu_kernel]`/`#[gpu_device]` (or a `#[gpu_struct]` holding another)
//! needs: a function names a struct it cannot see, so it calls the struct's macro (named
//! like the struct, so `Params`, `geo::Params` and `use geo::Params as P;` resolve as the
//! type does), passing its own tokens; the struct's macro calls `__gpu_resolved!` with
//! its definition prepended, which runs the pipeline again with one more struct known. A
//! name that is no `#[gpu_struct]` has no such macro: rustc's one error, on the user's
//! token (`ask`).

use crate::ir::ast::FnKind;
use crate::ir::structs::StructDef;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Asks the macro of struct `path` (last name `leaf`) for its definition; it calls back
/// with `continuation` (`@struct (<args>) <item>`, `@kernel (<args>) <fn>`, `@device (<args>) <fn>`).
///
/// Where `path` is no `#[gpu_struct]`, rustc finds no macro of that name: "cannot find
/// macro `Plain` in this scope", with "`Plain` is in scope, but it is a struct, not a
/// macro", at the user's token, and that is the one error (docs/language.md, "One error
/// per mistake").
/// A second check (`<Plain as GpuStruct>`, whose message said to add `#[gpu_struct]`) was
/// tried and left: rustc cannot be kept from reporting the missing macro, so it made two
/// errors of one mistake, and a third (E0107) where a generic struct's arguments are
/// missing.
pub fn ask(
    path: &syn::Path,
    leaf: &str,
    known: &[StructDef],
    continuation: TokenStream,
) -> TokenStream {
    let known = if known.is_empty() {
        quote!({})
    } else {
        super::payload::write(known, 0)
    };
    let span = path.span();
    // A generic struct's macro is asked by its bare name (`Params`, not `Params<T>`).
    let mut bare = path.clone();
    if let Some(last) = bare.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    quote_spanned! {span=>
        #bare! { {#leaf} #known #continuation }
    }
}

/// A kernel or device function: asks for the first struct it names that is not known
/// yet, or runs the pipeline with the structs `known`.
pub fn function(
    args: TokenStream,
    input: TokenStream,
    kind: FnKind,
    known: Vec<StructDef>,
) -> TokenStream {
    // `crate = ".."`: the whole expansion names the facade by the crate's path.
    let krate = crate::emit::krate::from_args(&args);
    let out = function_inner(args, input, kind, known);
    crate::emit::krate::rename(out, krate.as_ref())
}

fn function_inner(
    args: TokenStream,
    input: TokenStream,
    kind: FnKind,
    known: Vec<StructDef>,
) -> TokenStream {
    if let Ok(item) = syn::parse2::<syn::ItemFn>(input.clone()) {
        let mut scan = Scan {
            known: &known,
            generics: generic_names(&item.sig.generics),
            found: None,
        };
        scan.visit_item_fn(&item);
        let callees = crate::parse::callees::read(&item.attrs);
        // The structs the callees' signatures name, as if the function named them. A
        // struct named by a bare name in `geo::norm1`'s signature is `geo::Pt` here.
        for c in &callees {
            if scan.found.is_some() {
                break;
            }
            scan.generics = generic_names(&c.sig.generics);
            scan.visit_signature(&c.sig);
            if let Some((path, _)) = &mut scan.found {
                in_callee_module(path, &c.key);
            }
        }
        let what = match kind {
            FnKind::Kernel => quote!(kernel),
            FnKind::Device => quote!(device),
        };
        if let Some((path, leaf)) = scan.found {
            return ask(&path, &leaf, &known, quote!(@#what (#args) #input));
        }
        if let Some(path) = super::callees::unknown_call(&item, &callees) {
            return super::callees::ask(&path, &known, quote!(@#what (#args) #input));
        }
        if kind == FnKind::Device && item.sig.receiver().is_none() {
            // A device function's host function, with its module: where a struct or callee
            // it names is missing, neither is made, and the missing macro is the one error
            // (a host function alone would name the missing module).
            let params = generic_names(&item.sig.generics);
            let refused = item
                .sig
                .inputs
                .iter()
                .filter_map(|a| match a {
                    syn::FnArg::Typed(pt) => Some(&*pt.ty),
                    syn::FnArg::Receiver(_) => None,
                })
                .chain(match &item.sig.output {
                    syn::ReturnType::Type(_, t) => Some(&**t),
                    syn::ReturnType::Default => None,
                })
                .any(|t| crate::parse::rustc_refuses(&known, t, &params));
            let host = crate::emit::host_fn::host_fn(&item, refused);
            let out = crate::expand::expand(args, input, kind, known);
            return quote!(#host #out);
        }
    }
    crate::expand::expand(args, input, kind, known)
}

/// `#[gpu_device]`: the function's hand-over macro, first, so that its callers and the
/// function itself (whose recursion is then refused in its own words) can ask it while
/// the function's own expansion still asks for its callees; then, once every struct and
/// callee is known (`function`), its host function (`emit::host_fn`) and its module.
pub fn device(args: TokenStream, input: TokenStream) -> TokenStream {
    let handover = match syn::parse2::<syn::ItemFn>(input.clone()) {
        Ok(item) if item.sig.receiver().is_none() => {
            let handover = super::callees::handover(&item);
            let krate = crate::emit::krate::from_args(&args);
            crate::emit::krate::rename(handover, krate.as_ref())
        }
        _ => quote!(),
    };
    let out = function(args, input, FnKind::Device, Vec::new());
    quote!(#handover #out)
}

/// `path` (a struct's, as the signature of the callee `key` names it) from the caller: a
/// bare name is the callee's module's (`geo::norm1` names `Pt`: `geo::Pt`).
fn in_callee_module(path: &mut syn::Path, key: &str) {
    let mut segs: Vec<&str> = key.split("::").collect();
    segs.pop();
    if path.segments.len() != 1 || segs.is_empty() {
        return;
    }
    let leading = segs.first() == Some(&"");
    let mut out: syn::Path = syn::Path {
        leading_colon: leading.then(Default::default),
        segments: Default::default(),
    };
    for s in segs.iter().filter(|s| !s.is_empty()) {
        out.segments
            .push(proc_macro2::Ident::new(s, path.segments[0].ident.span()).into());
    }
    out.segments.push(path.segments[0].clone());
    *path = out;
}

/// The names of the type and const parameters of `g`.
fn generic_names(g: &syn::Generics) -> Vec<String> {
    g.params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// Finds the first type path in a function that may be a struct not known yet.
struct Scan<'a> {
    known: &'a [StructDef],
    generics: Vec<String>,
    /// The path and its last name.
    found: Option<(syn::Path, String)>,
}

impl Scan<'_> {
    fn path(&mut self, path: &syn::Path) {
        let n = path.segments.len();
        if self.found.is_some()
            || path
                .segments
                .iter()
                .take(n.saturating_sub(1))
                .any(|s| !s.arguments.is_none())
        {
            return;
        }
        let Some(last) = path.segments.last() else {
            return;
        };
        // A generic struct's arguments (`Params<T>`, `Params::<f32>`): its name is asked.
        if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
            // `SharedArray<T, N>`: `N` is a length (a constant, which syn reads as a
            // type), never a struct; only `T` may name one.
            let types = if last.ident == "SharedArray" {
                1
            } else {
                a.args.len()
            };
            for arg in a.args.iter().take(types) {
                if let syn::GenericArgument::Type(t) = arg {
                    self.ty(t);
                }
            }
        } else if !last.arguments.is_none() {
            return;
        }
        if self.found.is_some() {
            return;
        }
        let leaf = last.ident.to_string();
        let candidate = leaf.starts_with(|c: char| c.is_ascii_uppercase())
            && !crate::ir::ty::table::is_language_type(&leaf)
            && !self.generics.contains(&leaf)
            && !self.known.iter().any(|d| d.names.contains(&leaf));
        if candidate {
            self.found = Some((path.clone(), leaf));
        }
    }

    /// Types in signatures and `let` annotations: through references, slices, arrays,
    /// tuples.
    fn ty(&mut self, t: &syn::Type) {
        match t {
            syn::Type::Path(p) if p.qself.is_none() => self.path(&p.path),
            syn::Type::Reference(r) => self.ty(&r.elem),
            syn::Type::Slice(s) => self.ty(&s.elem),
            syn::Type::Array(a) => self.ty(&a.elem),
            syn::Type::Paren(p) => self.ty(&p.elem),
            syn::Type::Group(g) => self.ty(&g.elem),
            syn::Type::Tuple(t) => t.elems.iter().for_each(|e| self.ty(e)),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_signature(&mut self, sig: &'ast syn::Signature) {
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                self.ty(&pt.ty);
            }
        }
        if let syn::ReturnType::Type(_, t) = &sig.output {
            self.ty(t);
        }
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let syn::Pat::Type(pt) = &l.pat {
            self.ty(&pt.ty);
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        if e.qself.is_none() {
            self.path(&e.path);
        }
        syn::visit::visit_expr_struct(self, e);
    }
}
