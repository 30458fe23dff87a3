//! NCCL, loaded at run time and only when a collective across GPUs is first used: cudarc's
//! bindings (`nccl-02028`) open `libnccl.so.2` lazily and panic when it is missing, so
//! [`load`] looks for it first and turns its absence, or a library older than the
//! bindings, into [`Error::NcclUnavailable`].

use std::sync::OnceLock;

use cudarc::nccl::sys;

use crate::error::{Error, Result};

/// The oldest NCCL the bindings were generated for: 2.28 (`NCCL_VERSION_CODE` 22800).
const OLDEST: i32 = 22800;

/// NCCL's version code (`major * 10000 + minor * 100 + patch`) once it is loaded, or why it
/// cannot be; looked up once a process.
pub(crate) fn load() -> Result<i32> {
    static LOADED: OnceLock<std::result::Result<i32, String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // SAFETY: only opens the library by its names (dlopen), calling nothing in it.
            if !unsafe { sys::is_culib_present() } {
                return Err("no NCCL library (libnccl.so.2) in the loader's path".into());
            }
            let mut version = 0;
            // SAFETY: the library is present (above); `version` is a valid out-pointer.
            let status = unsafe { sys::ncclGetVersion(&mut version) };
            if status != sys::ncclResult_t::ncclSuccess {
                return Err(format!("ncclGetVersion failed: {status:?}"));
            }
            if version < OLDEST {
                return Err(format!(
                    "version {} found; warpspeed needs 2.28 or newer",
                    describe(version)
                ));
            }
            Ok(version)
        })
        .clone()
        .map_err(|reason| Error::NcclUnavailable { reason })
}

/// `22809` as `2.28.9`.
pub(crate) fn describe(code: i32) -> String {
    format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_read_as_nccl_writes_them() {
        assert_eq!(describe(22809), "2.28.9");
        assert_eq!(describe(23001), "2.30.1");
    }

    #[test]
    fn loading_gives_the_version_or_an_error_naming_the_library() {
        match load() {
            Ok(code) => assert!(code >= OLDEST, "{code}"),
            Err(e) => {
                let e = e.to_string();
                assert!(
                    e.contains("libnccl.so.2") && e.contains("pip install"),
                    "{e}"
                );
                // CI has no NCCL: the error, not a panic, is what it must see.
                eprintln!("no NCCL here (as on CI): {e}");
            }
        }
        // Asked again: the same answer, not a second search.
        assert_eq!(load().is_ok(), load().is_ok());
    }
}
