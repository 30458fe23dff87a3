//! A kernel's declared slice lengths (`#[len(n * n)] cells: &[i32]`), checked by its
//! generated `launch` before anything runs, on either backend. The generated code computes
//! the declared length with overflow checks (`None` past `u64::MAX`). Device functions
//! check at their entry instead (`sim/len.rs`, and `ws_len_report` in prelude.cuh).

use crate::error::{Error, Result};
use crate::sim::LenDecl;

/// A kernel's launch: `Err(Error::SliceTooShort)` when the slice of `len` elements is
/// shorter than `need`.
pub fn check_len(kernel: &str, decl: &LenDecl, len: usize, need: Option<u64>) -> Result<()> {
    if LenDecl::fits(len, need) {
        return Ok(());
    }
    Err(Error::SliceTooShort {
        kernel: kernel.to_string(),
        decl: Box::new(decl.named()),
        need,
        len: len as u64,
        at: None,
    })
}
