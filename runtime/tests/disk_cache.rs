//! The disk cache: a second compile of the same source is a hit with no NVRTC work; a
//! truncated or garbage entry is recompiled, never loaded. One test per file so the
//! process-wide compile counter is exact.

mod common;

use warpspeed_runtime::compile::{compile_cached, nvrtc_compile_count, CubinOrigin, DiskCache};
use warpspeed_runtime::KernelOptions;

const SRC: &str = r#"extern "C" __global__ void cached(int* __restrict__ out, unsigned long long out_len) {
    if (threadIdx.x < out_len) out[threadIdx.x] = ws_add((int)threadIdx.x, 7);
}"#;

fn entry_files(cache: &DiskCache) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect()
}

#[test]
fn disk_cache_hits_and_recovers() {
    if !common::nvrtc_or_skip("disk_cache_hits_and_recovers") {
        return;
    }
    let source = format!("{}\n{SRC}", warpspeed_runtime::__private::CUDA_PRELUDE);
    let options = KernelOptions { fast_math: false };
    let cache = DiskCache::new(common::temp_dir("cache").join("nested"));
    let compile = || compile_cached("cached", &source, (9, 0), options, Some(&cache)).unwrap();

    let first = compile();
    assert_eq!(first.origin, CubinOrigin::Nvrtc);
    assert_eq!(nvrtc_compile_count(), 1);
    let files = entry_files(&cache);
    assert_eq!(
        files.len(),
        1,
        "one entry, no temporary files left: {files:?}"
    );

    let second = compile();
    assert_eq!(second.origin, CubinOrigin::DiskCache);
    assert_eq!(second.cubin, first.cubin);
    assert_eq!(nvrtc_compile_count(), 1, "a hit runs no NVRTC compilation");

    // Another architecture or option set is another entry.
    let other = compile_cached("cached", &source, (8, 0), options, Some(&cache)).unwrap();
    assert_eq!(other.origin, CubinOrigin::Nvrtc);
    assert_eq!(entry_files(&cache).len(), 2);

    // A truncated entry is recompiled and rewritten.
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(compile().origin, CubinOrigin::Nvrtc);
    assert_eq!(compile().origin, CubinOrigin::DiskCache);

    // So is garbage of the right length, and an empty file.
    std::fs::write(&files[0], vec![0xAB; bytes.len()]).unwrap();
    assert_eq!(compile().origin, CubinOrigin::Nvrtc);
    std::fs::write(&files[0], b"").unwrap();
    assert_eq!(compile().origin, CubinOrigin::Nvrtc);
    assert_eq!(compile().cubin, first.cubin);
    assert_eq!(
        nvrtc_compile_count(),
        5,
        "first, sm_80, truncated, garbage, empty"
    );

    // No cache: always NVRTC.
    let uncached = compile_cached("cached", &source, (9, 0), options, None).unwrap();
    assert_eq!(uncached.origin, CubinOrigin::Nvrtc);

    let _ = std::fs::remove_dir_all(cache.dir().parent().unwrap());
}
