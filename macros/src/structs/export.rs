//! Where a hand-over macro (a `#[gpu_struct]`'s or a `#[gpu_device]`'s) lives, so that a
//! kernel reaches it by the same paths as the struct or function, in the module, the
//! crate, and, for a `pub` item, other crates (a `src/bin/` of the crate included).
//!
//! A private or `pub(crate)` item's macro is a `macro_rules!` re-exported by a `use` under
//! the item's name. A `pub` item's must be `#[macro_export]`, the only way a
//! `macro_rules!` leaves its crate; but rustc refuses to resolve a macro-expanded
//! `#[macro_export]` macro by an absolute path inside its own crate (the lint
//! `macro_expanded_macro_exports_accessed_by_absolute_paths`, rust-lang/rust#52234), and
//! `crate::Lin!` is such a path. So the exported macro gets a crate-unique hidden name and
//! is re-exported, from a hidden module beside the item, by a single-segment `use` that
//! finds it in its textual scope, never through the crate root; the item's name then
//! re-exports that (`pub use __ws_handover_Lin_<unique>_mod::handover as Lin;`). Every path to `Lin!`,
//! in the crate or outside it, goes through the two imports, which the lint leaves alone
//! (the workaround PyO3 uses for its own generated macros, PyO3/pyo3#2045).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// `macro_rules! <hidden> { ($($rest:tt)*) => { <body> } }` under `name` with `vis`. The
/// hidden names are unique in the crate, so that no glob import (`use super::*;`) can
/// bring a second item of the same hidden name next to them.
pub fn handover_macro(name: &Ident, vis: &syn::Visibility, body: TokenStream) -> TokenStream {
    let rule = quote!(($($rest:tt)*) => { #body };);
    let unique = unique_name(name, &rule);
    match vis {
        syn::Visibility::Public(_) => {
            let module = format_ident!("{}_mod", unique);
            quote! {
                #[doc(hidden)]
                #[allow(non_snake_case)]
                pub mod #module {
                    #[doc(hidden)]
                    #[macro_export]
                    macro_rules! #unique { #rule }
                    #[doc(hidden)]
                    pub use #unique as handover;
                }
                #[doc(hidden)]
                #[allow(unused_imports)]
                pub use #module::handover as #name;
            }
        }
        other => {
            let use_vis = match other {
                syn::Visibility::Inherited => quote!(),
                _ => quote!(pub(crate)),
            };
            quote! {
                #[doc(hidden)]
                macro_rules! #unique { #rule }
                #[doc(hidden)]
                #[allow(unused_imports)]
                #use_vis use #unique as #name;
            }
        }
    }
}

/// `__ws_handover_<name>_<hash>_<n>`: the hash of the macro (so equal items in two crates
/// differ only by chance), and a counter of this compilation (so two equal items in two
/// modules of one crate differ).
fn unique_name(name: &Ident, rule: &TokenStream) -> Ident {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.to_string().hash(&mut h);
    rule.to_string().hash(&mut h);
    format_ident!(
        "__ws_handover_{}_{:x}_{}",
        name,
        h.finish(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}
