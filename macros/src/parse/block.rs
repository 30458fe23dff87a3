//! `#[gpu_kernel(block = (x, y, z))]`: the block shape every launch must have. An extent is
//! an integer literal, a constant (a kernel's const parameter `B`, a module-level `const
//! N: usize`) or arithmetic of them (`2 * B`). A shape of literals is checked here; one
//! naming a constant where Rust knows the value (`checked_block` in a const context).
//! Each constant extent is a constant of the function's table, as an array length is, so
//! the C reads its macro (`__launch_bounds__(ws_c0)`) and the bounds prover its atom
//! (`thread_idx().x <= B - 1` proves `tile[t]` of a `SharedArray<_, B>`).

use super::consts::{const_expr, is_const_name};
use super::Parser;
use crate::ir::ty::Len;

/// The most threads a block has on every GPU warpspeed supports (sm_50 and later), and
/// the largest z extent.
const MAX_BLOCK_THREADS: u64 = 1024;
const MAX_BLOCK_Z: u64 = 64;

/// One extent as written.
#[derive(Clone)]
pub enum Extent {
    Lit(u64),
    /// An expression naming a constant, whose value Rust gives.
    Const(Box<syn::Expr>),
}

/// The shape as written; missing extents are 1.
pub type Shape = [Extent; 3];

/// `block = 256`, `block = (32, 32)`, `block = (B, 1, 1)` or `block = (8, 8, 4)`.
pub fn block_shape(value: &syn::Expr) -> syn::Result<Shape> {
    let elems: Vec<&syn::Expr> = match value {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        syn::Expr::Paren(p) => vec![&*p.expr],
        e => vec![e],
    };
    let write = "write the block shape as `block = (x, y, z)`, each an integer literal, a const parameter of the kernel or a constant (`block = (32, 32)`, `block = (B, 1, 1)`)";
    if elems.is_empty() || elems.len() > 3 {
        return Err(syn::Error::new_spanned(
            value,
            format!("a block has one to three extents: {write}"),
        ));
    }
    let mut dims = [Extent::Lit(1), Extent::Lit(1), Extent::Lit(1)];
    for (d, e) in dims.iter_mut().zip(&elems) {
        *d = extent(e, write)?;
    }
    let lits: Vec<u64> = dims
        .iter()
        .filter_map(|d| match d {
            Extent::Lit(v) => Some(*v),
            Extent::Const(_) => None,
        })
        .collect();
    let threads = lits.iter().fold(1u64, |a, v| a.saturating_mul(*v));
    if threads > MAX_BLOCK_THREADS {
        let text: Vec<String> = dims
            .iter()
            .map(|d| match d {
                Extent::Lit(v) => v.to_string(),
                Extent::Const(e) => super::consts::expr_text(e),
            })
            .collect();
        let more = if lits.len() < 3 { " or more" } else { "" };
        return Err(syn::Error::new_spanned(
            value,
            format!(
                "a block of {} = {threads} threads{more}: a block has at most {MAX_BLOCK_THREADS}",
                text.join(" x ")
            ),
        ));
    }
    if let (Extent::Lit(z), Some(e)) = (&dims[2], elems.get(2)) {
        if *z > MAX_BLOCK_Z {
            return Err(syn::Error::new_spanned(
                e,
                format!("a block's z extent is at most {MAX_BLOCK_Z}"),
            ));
        }
    }
    Ok(dims)
}

fn extent(e: &syn::Expr, write: &str) -> syn::Result<Extent> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => match lit.base10_parse::<u64>() {
            Ok(0) => Err(syn::Error::new_spanned(e, "a block extent is at least 1")),
            Ok(v) => Ok(Extent::Lit(v)),
            Err(_) => Err(syn::Error::new_spanned(
                e,
                format!("not an integer: {write}"),
            )),
        },
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(_),
            ..
        }) => Err(syn::Error::new_spanned(
            e,
            format!("a block extent counts threads, so it is an integer: {write}"),
        )),
        syn::Expr::Paren(p) => extent(&p.expr, write),
        syn::Expr::Group(g) => extent(&g.expr, write),
        syn::Expr::Path(p) if p.qself.is_none() && !is_const_name(&p.path) => {
            Err(syn::Error::new_spanned(
                e,
                format!("a block extent is known when the kernel is compiled, so it cannot be a variable: {write}; a block size chosen at launch is the `LaunchConfig`'s, without `block = ..`"),
            ))
        }
        e if const_expr(e) => Ok(Extent::Const(Box::new(e.clone()))),
        _ => Err(syn::Error::new_spanned(
            e,
            format!("not a constant: {write}"),
        )),
    }
}

/// The names in `e` (`B` in `2 * B`), for the check that none is a type parameter.
pub fn names(shape: &Shape) -> Vec<&syn::Ident> {
    fn go<'e>(e: &'e syn::Expr, out: &mut Vec<&'e syn::Ident>) {
        match e {
            syn::Expr::Path(p) => out.extend(p.path.get_ident()),
            syn::Expr::Paren(p) => go(&p.expr, out),
            syn::Expr::Group(g) => go(&g.expr, out),
            syn::Expr::Cast(c) => go(&c.expr, out),
            syn::Expr::Binary(b) => {
                go(&b.left, out);
                go(&b.right, out);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for d in shape {
        if let Extent::Const(e) = d {
            go(e, &mut out);
        }
    }
    out
}

impl Parser<'_> {
    /// The shape as lengths of the function's constant table (call before `function`,
    /// which takes the table).
    pub fn block_lens(&mut self, shape: &Shape) -> [Len; 3] {
        shape.clone().map(|d| match d {
            Extent::Lit(v) => Len::Lit(v),
            Extent::Const(e) => Len::Const(self.const_ref(&e)),
        })
    }
}
