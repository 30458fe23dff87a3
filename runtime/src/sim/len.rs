//! Declared slice lengths (`#[len(n * n)] cells: &[i32]`) on the simulator: [`LenDecl`], a
//! slice parameter and its declaration as the macro writes them down, and
//! [`sim_check_len`], which a device function's simulator body calls at its entry (the C
//! does the same check itself, see `ws_len_report` in prelude.cuh). A kernel's own
//! parameters are checked by the launch, before anything runs (`launch/len.rs`).

use super::check::{raise, Failure};
use super::site::SrcLoc;
use crate::error::DeclaredLen;

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

    /// Whether a slice of `len` elements holds the declared length `need` (`None`: the
    /// declared length overflowed `u64`, which no slice holds).
    pub(crate) fn fits(len: usize, need: Option<u64>) -> bool {
        need.is_some_and(|need| len as u64 >= need)
    }
}

/// A device function's entry on the simulator: stops the launch with
/// `Error::SliceTooShort` (the executor adds the kernel, block and thread) when the slice
/// is too short.
pub fn sim_check_len(decl: &'static LenDecl, len: usize, need: Option<u64>) {
    if !LenDecl::fits(len, need) {
        raise(Failure::SliceTooShort {
            decl: Box::new(decl.named()),
            len: len as u64,
            need,
        });
    }
}
