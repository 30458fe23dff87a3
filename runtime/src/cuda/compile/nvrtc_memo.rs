//! NVRTC's version for the disk cache's key, without loading NVRTC on a warm start.
//!
//! The key of a cached CUBIN holds the version of the NVRTC that compiled it, so a new
//! NVRTC recompiles. Asking NVRTC (`nvrtcVersion`) means loading `libnvrtc` (a 100 MB
//! library: several milliseconds of a process start that otherwise only reads CUBINs).
//! So the first process that loads it writes a memo into the cache directory: the file
//! the dynamic loader picked (from `/proc/self/maps`), that file's identity (length,
//! modification time, inode, device), the loader's context (`LD_LIBRARY_PATH`, and the
//! modification times of its directories, of `/etc/ld.so.cache` and of the default
//! library directories), and the version. A later process whose context and file are the
//! same reads the version from the memo; anything changed (a new NVRTC installed over the
//! old one, another `LD_LIBRARY_PATH`, a library added to a searched directory, `ldconfig`
//! run) makes it load NVRTC and write the memo again. Where `/proc/self/maps` does not
//! exist (not Linux) there is no memo and NVRTC is always asked.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::disk_cache::DiskCache;
use super::nvrtc::nvrtc_version;
use crate::error::Result;

const MEMO: &str = "nvrtc-version.memo";
const FORMAT: &str = "WSNVRTC1";

/// NVRTC's `(major, minor)` version, from `cache`'s memo where it is still true, else from
/// NVRTC (and then memoised).
pub(crate) fn nvrtc_version_memo(cache: &DiskCache) -> Result<(u32, u32)> {
    let memo = cache.dir().join(MEMO);
    if let Some(version) = read(&memo) {
        return Ok(version);
    }
    let version = nvrtc_version()?;
    if let Some(lib) = loaded_library() {
        write(&memo, &lib, version);
    }
    Ok(version)
}

/// The memo's version, when its context and library are this process's.
fn read(memo: &Path) -> Option<(u32, u32)> {
    let text = std::fs::read_to_string(memo).ok()?;
    let mut lines = text.lines();
    (lines.next()? == FORMAT).then_some(())?;
    (lines.next()? == context()).then_some(())?;
    let lib = PathBuf::from(lines.next()?);
    (lines.next()? == identity(&lib)?).then_some(())?;
    let (major, minor) = lines.next()?.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Writes the memo through a temporary file and a rename (readers see all or nothing).
/// A failure only means the next process asks NVRTC again.
fn write(memo: &Path, lib: &Path, (major, minor): (u32, u32)) {
    let Some(id) = identity(lib) else { return };
    let text = format!(
        "{FORMAT}\n{}\n{}\n{id}\n{major}.{minor}\n",
        context(),
        lib.display()
    );
    let Some(dir) = memo.parent() else { return };
    let tmp = dir.join(format!(".{MEMO}.{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, text))
        .and_then(|()| std::fs::rename(&tmp, memo));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The library file the loader mapped for NVRTC (not its `-builtins` companion).
fn loaded_library() -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.starts_with("libnvrtc") && !name.contains("builtins")
        })
        .map(PathBuf::from)
}

/// `length mtime-ns inode device` of `path`, or `None` when it cannot be read.
fn identity(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    Some(format!(
        "{} {}{}",
        meta.len(),
        mtime_ns(&meta),
        inode(&meta)
    ))
}

fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!(" {} {}", meta.ino(), meta.dev())
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> String {
    String::new()
}

/// Everything that decides which file the loader finds for `libnvrtc`, in one line:
/// `LD_LIBRARY_PATH`, and the modification time of each directory it names, of the
/// loader's cache and of the default directories (adding a library to a directory changes
/// the directory's time).
fn context() -> String {
    let path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let searched = path.split(':').filter(|d| !d.is_empty()).chain([
        "/etc/ld.so.cache",
        "/lib",
        "/usr/lib",
        "/lib64",
        "/usr/lib64",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ]);
    let times: Vec<String> = searched
        .map(|d| std::fs::metadata(d).map_or(0, |m| mtime_ns(&m)).to_string())
        .collect();
    format!("{path}|{}", times.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("warpspeed-memo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_memo_is_read_back_while_its_library_is_unchanged() {
        let dir = scratch("same");
        let lib = dir.join("libnvrtc.so.99");
        std::fs::write(&lib, b"one").unwrap();
        let memo = dir.join(MEMO);
        write(&memo, &lib, (99, 7));
        assert_eq!(read(&memo), Some((99, 7)));
        // Another NVRTC installed over the old one: another length and time.
        std::fs::write(&lib, b"a newer one").unwrap();
        assert_eq!(read(&memo), None);
        // Gone altogether.
        std::fs::remove_file(&lib).unwrap();
        assert_eq!(read(&memo), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_memo_of_another_context_or_format_is_not_read() {
        let dir = scratch("context");
        let lib = dir.join("libnvrtc.so.99");
        std::fs::write(&lib, b"one").unwrap();
        let memo = dir.join(MEMO);
        let id = identity(&lib).unwrap();
        let other = format!(
            "{FORMAT}\nsomewhere-else|0\n{}\n{id}\n99.7\n",
            lib.display()
        );
        std::fs::write(&memo, other).unwrap();
        assert_eq!(read(&memo), None);
        let damaged = format!("{FORMAT}\n{}\n{}\n{id}\n99.x\n", context(), lib.display());
        std::fs::write(&memo, damaged).unwrap();
        assert_eq!(read(&memo), None);
        std::fs::write(&memo, "WSNVRTC0\n").unwrap();
        assert_eq!(read(&memo), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// With NVRTC present: the first ask loads it and leaves a memo naming the mapped
    /// library; the second gives the same version from the memo.
    #[test]
    fn nvrtc_is_memoised_in_the_cache_directory() {
        if !super::super::nvrtc_available() {
            eprintln!("skipped: NVRTC is not loadable here");
            return;
        }
        let dir = scratch("nvrtc");
        let cache = DiskCache::new(&dir);
        let asked = nvrtc_version().unwrap();
        assert_eq!(nvrtc_version_memo(&cache).unwrap(), asked);
        let lib = loaded_library().expect("libnvrtc is mapped once loaded");
        assert_eq!(
            read(&dir.join(MEMO)),
            Some(asked),
            "memo for {}",
            lib.display()
        );
        assert_eq!(nvrtc_version_memo(&cache).unwrap(), asked);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
