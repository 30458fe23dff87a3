//! Generic `#[gpu_device]` functions: `fn scale<T: Float>(a: T, x: T) -> T`.
//!
//! Each instance is a C++ overload of the one C name (`scale(float, float)`,
//! `scale(double, double)`, ...), so a caller's C, which cannot know the callee's
//! signature, calls `scale(a, x)` and the C++ compiler picks the instance from the
//! arguments' types, as rustc infers `T` from them in the simulator body. Instances whose C
//! types coincide (`u64` and `usize` are both `unsigned long long`, and compute alike) are
//! one overload. So that the overloads differ, every type parameter must be the type (or
//! element type) of a parameter.
//!
//! Const parameters (`fn tile_sum<const B: usize>`) make each overload a C++ template over
//! them (`template<unsigned long long ws_tp_B>`, `emit::cuda::template_head`). Rust infers
//! a const parameter only from an array length in a parameter's type, which a device
//! function's parameters do not have (their lengths are literals), so every call names
//! them, as rustc requires (`tile_sum::<256>(..)`), and the C passes the same arguments
//! (`tile_sum<256>(..)`, `parse::generic_args`).

use crate::ctxt::Ctxt;
use crate::parse::generic_params::Generics;
use proc_macro2::TokenStream;

/// What a generic device function must satisfy beyond a kernel's rules.
pub fn check(cx: &Ctxt, item: &syn::ItemFn, g: &Generics) {
    for t in &g.types {
        let in_params = item.sig.inputs.iter().any(|arg| match arg {
            syn::FnArg::Typed(pt) => mentions(&pt.ty, &t.name),
            syn::FnArg::Receiver(_) => false,
        });
        if !in_params {
            cx.error_spanned_by(
                &t.name,
                format!("`{}` must be the type of a parameter (`x: {0}`, `x: &[{0}]`): a call picks the instance from its arguments' types", t.name),
            );
        }
    }
}

fn mentions(t: &syn::Type, name: &proc_macro2::Ident) -> bool {
    struct Find<'a>(&'a proc_macro2::Ident, bool);
    impl syn::visit::Visit<'_> for Find<'_> {
        fn visit_path(&mut self, p: &syn::Path) {
            if p.is_ident(self.0) {
                self.1 = true;
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut f = Find(name, false);
    syn::visit::Visit::visit_type(&mut f, t);
    f.1
}

/// After an error: the module with an empty item and a simulator entry any call fits.
pub fn stub(item: &syn::ItemFn) -> TokenStream {
    crate::emit::host::device_fallback(item)
}
