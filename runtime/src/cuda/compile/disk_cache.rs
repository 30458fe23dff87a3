//! The on-disk CUBIN cache, so a second process start runs no NVRTC compilation.
//!
//! An entry is keyed by a hash of everything that changes the CUBIN: the source, the
//! NVRTC options (which hold the architecture) and NVRTC's version. A file is written to a
//! temporary name and renamed into place, so readers never see half a file; it starts
//! with a header (magic, key, length, checksum), so a truncated or damaged file is
//! recompiled, never loaded, and the fresh CUBIN replaces it.
//!
//! Processes compiling one kernel at once each write their own temporary file and rename
//! it over the entry; a rename is atomic, so one complete entry is left, whoever wins.
//!
//! Any I/O failure (a read-only directory, a path that cannot be created, a full disk)
//! only means the disk is skipped: kernels stay in the in-memory cache, and one warning
//! per directory and process says why.

use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::hash::{fnv128, Fnv128};
use super::nvrtc::nvrtc_options;
use super::options::KernelOptions;

/// Bumped whenever the file layout or the meaning of a key changes.
const FORMAT: &[u8; 8] = b"WSCUBIN2";
/// Magic, key (16), payload length (8), payload checksum (16).
const HEADER_LEN: usize = 8 + 16 + 8 + 16;

/// Identifies one compilation: source, options, architecture, NVRTC version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(pub u128);

impl CacheKey {
    /// The key of compiling `source` for `arch` with `options` by NVRTC `nvrtc_version`.
    pub fn new(
        source: &str,
        arch: (u32, u32),
        options: KernelOptions,
        nvrtc_version: (u32, u32),
    ) -> Self {
        let mut h = Fnv128::new().field(FORMAT).field(source.as_bytes());
        // The target `source` needs (sm_90a) is one of its options.
        let opts = super::nvrtc::target_options("", source, arch, options)
            .unwrap_or_else(|_| nvrtc_options(arch, options));
        for opt in opts {
            h = h.field(opt.as_bytes());
        }
        h = h
            .field(&nvrtc_version.0.to_le_bytes())
            .field(&nvrtc_version.1.to_le_bytes());
        CacheKey(h.finish())
    }
}

impl std::fmt::Display for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// A directory of cached CUBINs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// A cache in `dir` (created on first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DiskCache { dir: dir.into() }
    }

    /// The cache the environment asks for: `None` when `WARPSPEED_CACHE=off`, else
    /// [`DiskCache::default_dir`].
    pub fn from_env() -> Option<Self> {
        let setting = std::env::var("WARPSPEED_CACHE")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if matches!(setting.as_str(), "off" | "0" | "false" | "no") {
            return None;
        }
        Self::default_dir().map(Self::new)
    }

    /// `$WARPSPEED_CACHE_DIR`, else `$XDG_CACHE_HOME/warpspeed`, else
    /// `$HOME/.cache/warpspeed`.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("WARPSPEED_CACHE_DIR")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("warpspeed")))
            .or_else(|| var("HOME").map(|d| d.join(".cache").join("warpspeed")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry for `key` lives.
    pub fn path(&self, key: CacheKey) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// The CUBIN stored under `key`, if a complete, undamaged entry of that key is there.
    /// A missing entry is silent; a directory that cannot be read is warned about once.
    pub fn load(&self, key: CacheKey) -> Option<Vec<u8>> {
        match std::fs::read(self.path(key)) {
            Ok(file) => decode(&file, key),
            Err(err) if err.kind() == ErrorKind::NotFound => None,
            Err(err) => {
                let (what, err) = self.explain("read", err);
                self.warn_once(what, &err);
                None
            }
        }
    }

    /// Stores `cubin` under `key`. A failure is not an error (the cache is an
    /// optimisation): the first one for this directory prints a warning.
    pub fn store(&self, key: CacheKey, cubin: &[u8]) {
        if let Err((what, err)) = self.try_store(key, cubin) {
            self.warn_once(what, &err);
        }
    }

    fn try_store(&self, key: CacheKey, cubin: &[u8]) -> Result<(), (&'static str, std::io::Error)> {
        static UNIQUE: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir).map_err(|err| self.explain("created", err))?;
        // Process id, a per-process counter and the time: unique among the processes
        // (even of other PID namespaces) and threads writing the same entry at once.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = self.dir.join(format!(
            ".{key}.{}.{}.{nanos}.tmp",
            std::process::id(),
            UNIQUE.fetch_add(1, Ordering::Relaxed)
        ));
        let written = std::fs::write(&tmp, encode(cubin, key))
            .and_then(|()| std::fs::rename(&tmp, self.path(key)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.map_err(|err| ("written", err))
    }

    /// `(what could not be done, why)` for a failure while `what` ("read", "created",
    /// "written"): a directory that is missing could not be created, one that is a file
    /// cannot be used.
    fn explain(&self, what: &'static str, err: std::io::Error) -> (&'static str, std::io::Error) {
        match std::fs::metadata(&self.dir) {
            Ok(meta) if !meta.is_dir() => (
                "used",
                std::io::Error::other("it is a file, not a directory"),
            ),
            Ok(_) => (what, err),
            Err(_) => ("created", err),
        }
    }

    /// Says once per process and directory that the disk cache is not used, and why.
    fn warn_once(&self, what: &str, err: &std::io::Error) {
        static WARNED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
        let mut warned = WARNED.lock().unwrap_or_else(PoisonError::into_inner);
        if warned
            .get_or_insert_with(HashSet::new)
            .insert(self.dir.clone())
        {
            eprintln!("{}", unusable_warning(&self.dir, what, err));
        }
    }
}

/// The warning printed when a cache directory cannot be used.
fn unusable_warning(dir: &Path, what: &str, err: &std::io::Error) -> String {
    format!(
        "warpspeed: warning: the kernel cache directory {} cannot be {what} ({err}); \
         compiled kernels are kept in memory only, so the next process compiles them again \
         (set WARPSPEED_CACHE_DIR to a writable directory, or WARPSPEED_CACHE=off)",
        dir.display()
    )
}

fn encode(cubin: &[u8], key: CacheKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + cubin.len());
    out.extend_from_slice(FORMAT);
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv128(cubin).to_le_bytes());
    out.extend_from_slice(cubin);
    out
}

fn decode(file: &[u8], key: CacheKey) -> Option<Vec<u8>> {
    let (header, payload) = file.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(8);
    let (stored_key, rest) = rest.split_at(16);
    let (len, checksum) = rest.split_at(8);
    let ok = magic == FORMAT
        && stored_key == key.0.to_le_bytes()
        && u64::from_le_bytes(len.try_into().ok()?) == payload.len() as u64
        && checksum == fnv128(payload).to_le_bytes()
        && !payload.is_empty();
    ok.then(|| payload.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let key = CacheKey(42);
        let file = encode(b"cubin bytes", key);
        assert_eq!(decode(&file, key).as_deref(), Some(&b"cubin bytes"[..]));
        assert_eq!(decode(&file, CacheKey(43)), None, "another key's file");
        assert_eq!(decode(&file[..file.len() - 1], key), None, "truncated");
        let mut flipped = file.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped, key), None, "damaged payload");
        assert_eq!(decode(b"garbage", key), None);
    }

    #[test]
    fn keys_depend_on_every_input() {
        let base = CacheKey::new("src", (9, 0), KernelOptions { fast_math: false }, (13, 0));
        assert_ne!(
            base,
            CacheKey::new("src2", (9, 0), KernelOptions { fast_math: false }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (8, 0), KernelOptions { fast_math: false }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (9, 0), KernelOptions { fast_math: true }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (9, 0), KernelOptions { fast_math: false }, (13, 1))
        );
    }

    #[test]
    fn unwritable_directory_is_skipped() {
        let cache = DiskCache::new("/proc/warpspeed-cannot-exist");
        cache.store(CacheKey(1), b"x");
        assert_eq!(cache.load(CacheKey(1)), None);
    }

    #[test]
    fn warning_says_where_and_why() {
        let err = std::io::Error::from(ErrorKind::PermissionDenied);
        let text = unusable_warning(Path::new("/x/cache"), "written", &err);
        assert!(
            text.starts_with(
                "warpspeed: warning: the kernel cache directory /x/cache cannot be written \
                 (permission denied); compiled kernels are kept in memory only"
            ),
            "{text}"
        );
    }
}
