//! Declared slice lengths (`#[len(n * n)] cells: &[i32]`). The generated code computes
//! the declared length with overflow checks (`None` past `u64::MAX`) and calls
//! [`check_len`] in a kernel's `launch`, before anything runs, or [`sim_check_len`] at the
//! entry of a device function on the simulator (the C does the same check itself, see
//! `ws_len_report` in prelude.cuh).

use crate::error::{DeclaredLen, Error, Result};
use crate::sim::check::{raise, Failure};
use crate::sim::SrcLoc;

/// A slice parameter and its declaration, as the macro writes them down.
pub struct LenDecl {
    /// The function that declares the length.
    pub function: &'static str,
    /// The slice parameter.
    pub param: &'static str,
    /// The length as written: `n * n`.
    pub declared: &'static str,
    /// Where the declaration is.
    pub at: &'static SrcLoc,
}

impl LenDecl {
    /// The declaration as errors name it.
    pub(crate) fn named(&self) -> DeclaredLen {
        DeclaredLen {
            function: self.function.to_string(),
            param: self.param.to_string(),
            declared: self.declared.to_string(),
            file: self.at.file().to_string(),
            line: self.at.line(),
        }
    }
}

/// A kernel's launch: `Err(Error::SliceTooShort)` when the slice of `len` elements is
/// shorter than `need`.
pub fn check_len(kernel: &str, decl: &LenDecl, len: usize, need: Option<u64>) -> Result<()> {
    if fits(len, need) {
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

/// A device function's entry on the simulator: stops the launch with
/// `Error::SliceTooShort` (the executor adds the kernel, block and thread) when the slice
/// is too short.
pub fn sim_check_len(decl: &'static LenDecl, len: usize, need: Option<u64>) {
    if !fits(len, need) {
        raise(Failure::SliceTooShort {
            decl,
            len: len as u64,
            need,
        });
    }
}

fn fits(len: usize, need: Option<u64>) -> bool {
    need.is_some_and(|need| len as u64 >= need)
}
