//! A kernel's `KernelDef::provable`: the conditions under which a launch proves each check
//! site the prover left (`proof::launch`), as the runtime's static table
//! (runtime/src/launch/proven.rs evaluates it at every GPU launch).

use super::*;
use crate::analysis::proof::{launch_value, LaunchValue, Poly};

/// `&[ProvableCheck { .. }, ..]` for the sites of `f`'s CUDA, in site order.
pub(super) fn provable_table(
    sc: &Scope,
    f: &Function,
    types: &Types,
    sites: &[Vec<Poly>],
) -> TokenStream {
    let sites = sites.iter().map(|conditions| {
        let any_of = conditions.iter().filter_map(|p| condition(sc, f, types, p));
        quote!(::warpspeed::__private::ProvableCheck { any_of: &[#(#any_of),*] })
    });
    quote!(&[#(#sites),*])
}

/// One condition as `&[LaunchTerm, ..]`; `None` when an atom has no launch value (then
/// the condition is left out, and proves nothing).
fn condition(sc: &Scope, f: &Function, types: &Types, p: &Poly) -> Option<TokenStream> {
    let mut terms = Vec::new();
    for (mono, coef) in p.terms() {
        let atoms = mono
            .iter()
            .map(|&a| atom(sc, f, types, launch_value(a)?))
            .collect::<Option<Vec<_>>>()?;
        terms.push(
            quote!(::warpspeed::__private::LaunchTerm { coef: #coef, atoms: &[#(#atoms),*] }),
        );
    }
    Some(quote!(&[#(#terms),*]))
}

/// An atom as the runtime's `LaunchAtom`: a parameter by its position, an axis, or a
/// module constant's value, which rustc computes.
fn atom(sc: &Scope, f: &Function, types: &Types, v: LaunchValue) -> Option<TokenStream> {
    let position = |var| {
        f.params
            .iter()
            .position(|p| p.var == var)
            .and_then(|i| u16::try_from(i).ok())
    };
    Some(match v {
        LaunchValue::Var(var) => {
            let i = position(var)?;
            quote!(::warpspeed::__private::LaunchAtom::Scalar(#i))
        }
        LaunchValue::Len(var) => {
            let i = position(var)?;
            quote!(::warpspeed::__private::LaunchAtom::Len(#i))
        }
        LaunchValue::BlockDim(axis) => {
            let axis = axis as u8;
            quote!(::warpspeed::__private::LaunchAtom::Block(#axis))
        }
        LaunchValue::GridDim(axis) => {
            let axis = axis as u8;
            quote!(::warpspeed::__private::LaunchAtom::Grid(#axis))
        }
        LaunchValue::Const(c) => {
            let e = consts::expr_from_module(sc, &types.consts.get(c)?.expr);
            quote!(::warpspeed::__private::LaunchAtom::Value((#e) as i128))
        }
    })
}
