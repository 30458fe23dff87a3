//! The front of the one pipeline: the macro's options, and parse -> check -> typeck of one
//! function. `expand` runs it on a concrete function; the generics stage
//! (`generics::expand`) runs it once per instance of a generic one. Both then emit from
//! what it returns, so a concrete kernel and each instance of a generic one are analysed
//! by the same code.

use crate::analysis::typeck::Types;
use crate::ctxt::Ctxt;
use crate::ir::ast::{FnKind, Function};
use crate::ir::structs::StructDef;
use crate::parse::generic_params::Generics;
use crate::parse::Parser;
use proc_macro2::TokenStream;

/// The options of `#[gpu_kernel(..)]` / `#[gpu_device(..)]`.
#[derive(Default)]
pub struct Options {
    pub fast_math: bool,
    pub unchecked: bool,
    /// `block = (x, y, z)`: the only block shape the kernel may be launched with.
    pub block: Option<crate::parse::block::Shape>,
    /// `min_blocks_per_multiprocessor = N`: CUDA's second `__launch_bounds__` argument.
    pub min_blocks_per_multiprocessor: Option<u32>,
}

/// `#[gpu_kernel(fast_math, unchecked, block = (32, 32), crate = "::ws")]`,
/// `#[gpu_device(unchecked, crate = "::ws")]`.
pub fn parse_args(cx: &Ctxt, args: TokenStream, kind: FnKind) -> Options {
    let mut o = Options::default();
    let kernel = kind == FnKind::Kernel;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("fast_math") && kernel {
            o.fast_math = true;
            Ok(())
        } else if meta.path.is_ident("unchecked") {
            o.unchecked = true;
            Ok(())
        } else if meta.path.is_ident("block") && kernel {
            let value: syn::Expr = meta.value()?.parse()?;
            o.block = Some(crate::parse::block::block_shape(&value)?);
            Ok(())
        } else if meta.path.is_ident("min_blocks_per_multiprocessor") && kernel {
            let value: syn::LitInt = meta.value()?.parse()?;
            match value.base10_parse::<u32>() {
                Ok(n @ 1..=32) => {
                    o.min_blocks_per_multiprocessor = Some(n);
                    Ok(())
                }
                _ => Err(syn::Error::new(
                    value.span(),
                    "`min_blocks_per_multiprocessor` is a count of blocks from 1 to 32 (an SM holds at most 32)",
                )),
            }
        } else if meta.path.is_ident("crate") {
            // Read where the expansion is finished (`emit::krate`); checked here.
            crate::emit::krate::parse_value(&meta)
        } else if meta.path.is_ident("block") {
            Err(meta.error(
                "`block = (..)` is an option of #[gpu_kernel]: a device function runs in the blocks of the kernels that call it",
            ))
        } else {
            Err(meta.error(
                "unknown option: #[gpu_kernel] takes `fast_math`, `unchecked`, `block = (x, y, z)`, `min_blocks_per_multiprocessor = N` and `crate = \"..\"`; #[gpu_device] takes `unchecked` and `crate = \"..\"`",
            ))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args.clone()) {
        cx.syn_error(e);
    } else if o.min_blocks_per_multiprocessor.is_some() && o.block.is_none() {
        cx.syn_error(syn::Error::new_spanned(
            args,
            "`min_blocks_per_multiprocessor` needs `block = (x, y, z)`: CUDA's `__launch_bounds__` gives the blocks an SM must hold together with the threads a block has",
        ));
    }
    o
}

/// Where the front stopped: the parser gave up (`None`), or the function parsed and the
/// checks or the type checker reported errors (`Some`: the parsed function, which a
/// concrete kernel's fallback module is written from).
pub type Stopped = Option<Box<Function>>;

/// Parse, check and type `item` with the options `o`; `g` are its generic parameters
/// (an instance's: the type parameters are substituted already, the const parameters
/// stay names). The errors are in `cx`, which the caller ends (`check` or `fail`).
pub fn analyse(
    cx: &Ctxt,
    item: &syn::ItemFn,
    kind: FnKind,
    o: &Options,
    g: Option<&Generics>,
    structs: Vec<StructDef>,
) -> Result<(Function, Types), Stopped> {
    let mut parser = Parser::new(cx, structs);
    if let Some(g) = g {
        parser.type_params = g.types.iter().map(|t| t.name.clone()).collect();
        parser.const_params = g
            .consts
            .iter()
            .map(|c| (c.name.clone(), c.scalar))
            .collect();
    }
    let block = o.block.as_ref().map(|b| parser.block_lens(b));
    let f = parser.function(item, kind, o.fast_math).map(|mut f| {
        f.unchecked = o.unchecked;
        f.block = block;
        f.min_blocks_per_multiprocessor = o.min_blocks_per_multiprocessor;
        f
    });
    let var_count = parser.next_var;
    let Some(f) = f else {
        return Err(None);
    };
    crate::analysis::check::check(cx, &f);
    match crate::analysis::typeck::check(cx, &f, var_count) {
        Some(types) if !cx.has_errors() => Ok((f, types)),
        _ => Err(Some(Box::new(f))),
    }
}
