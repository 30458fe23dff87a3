//! The disk cache: a second compile of the same source is a hit with no NVRTC work; every
//! kind of damaged entry is recompiled, never loaded; processes and threads racing on one
//! directory leave one valid entry; a directory that cannot be used (read-only, a file,
//! impossible to create) falls back to memory with one warning, and kernels still compile
//! and run.
//!
//! The tests take one lock so the process-wide NVRTC counter measures each of them alone.
//! Tests that must watch a whole process (its warnings, a race between processes) run this
//! test binary again as children, selected by `WARPSPEED_TEST_CHILD`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Barrier, LazyLock, Mutex, MutexGuard, PoisonError};

use warpspeed_runtime::__private::{
    collect_source, launch, KernelArgs, KernelDef, SimFuture, SliceMut, SourceItem, SrcLoc,
    ThreadCtx,
};
use warpspeed_runtime::compile::{
    compile_cached, nvrtc_compile_count, nvrtc_version, CacheKey, CubinOrigin, DiskCache,
};
use warpspeed_runtime::{KernelOptions, LaunchConfig};

const OPTIONS: KernelOptions = KernelOptions { fast_math: false };

const SRC: &str = r#"extern "C" __global__ void cached(int* __restrict__ out, unsigned long long out_len) {
    if (threadIdx.x < out_len) out[threadIdx.x] = ws_add((int)threadIdx.x, 7);
}"#;

static SOURCE: LazyLock<String> =
    LazyLock::new(|| format!("{}\n{SRC}", warpspeed_runtime::__private::CUDA_PRELUDE));

/// Serialises the tests of this file, so `nvrtc_compile_count` deltas are exact.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every file of `dir`, entries and anything else (temporary files), sorted; not the memo
/// of NVRTC's version, which the first compilation into a directory leaves beside the
/// entries (and `warm_starts_do_not_load_nvrtc` checks).
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("nvrtc-version.memo"))
        .collect();
    files.sort();
    files
}

fn entry_files(cache: &DiskCache) -> Vec<PathBuf> {
    files_in(cache.dir())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect()
}

fn key(arch: (u32, u32)) -> CacheKey {
    CacheKey::new(&SOURCE, arch, OPTIONS, nvrtc_version().unwrap())
}

#[test]
fn disk_cache_hits_and_recovers() {
    if !common::nvrtc_or_skip("disk_cache_hits_and_recovers") {
        return;
    }
    let _serial = serial();
    let start = nvrtc_compile_count();
    let compiles = || nvrtc_compile_count() - start;
    let cache = DiskCache::new(common::temp_dir("cache").join("nested"));
    let compile = || compile_cached("cached", &SOURCE, (9, 0), OPTIONS, Some(&cache)).unwrap();

    let first = compile();
    assert_eq!(first.origin, CubinOrigin::Nvrtc);
    assert_eq!(compiles(), 1);
    let files = files_in(cache.dir());
    assert_eq!(
        files,
        [cache.path(key((9, 0)))],
        "one entry, no temporary files"
    );

    let second = compile();
    assert_eq!(second.origin, CubinOrigin::DiskCache);
    assert_eq!(second.cubin, first.cubin);
    assert_eq!(compiles(), 1, "a hit runs no NVRTC compilation");

    // Another architecture or option set is another entry.
    let other = compile_cached("cached", &SOURCE, (8, 0), OPTIONS, Some(&cache)).unwrap();
    assert_eq!(other.origin, CubinOrigin::Nvrtc);
    assert_eq!(entry_files(&cache).len(), 2);
    let fast = KernelOptions { fast_math: true };
    let fast = compile_cached("cached", &SOURCE, (9, 0), fast, Some(&cache)).unwrap();
    assert_eq!(fast.origin, CubinOrigin::Nvrtc);
    assert_eq!(entry_files(&cache).len(), 3);
    assert_eq!(compiles(), 3);

    // No cache: always NVRTC.
    let uncached = compile_cached("cached", &SOURCE, (9, 0), OPTIONS, None).unwrap();
    assert_eq!(uncached.origin, CubinOrigin::Nvrtc);
    assert_eq!(uncached.cubin, first.cubin, "NVRTC is deterministic");

    let _ = std::fs::remove_dir_all(cache.dir().parent().unwrap());
}

/// Each kind of damage to the entry: detected, recompiled (never loaded), rewritten whole.
#[test]
fn damaged_entries_are_recompiled_never_loaded() {
    if !common::nvrtc_or_skip("damaged_entries_are_recompiled_never_loaded") {
        return;
    }
    let _serial = serial();
    let cache = DiskCache::new(common::temp_dir("cache-damage"));
    let compile = |arch| compile_cached("cached", &SOURCE, arch, OPTIONS, Some(&cache)).unwrap();
    let good = compile((9, 0));
    let path = cache.path(key((9, 0)));
    let entry = std::fs::read(&path).unwrap();
    compile((8, 0));
    let other_key_entry = std::fs::read(cache.path(key((8, 0)))).unwrap();
    assert_ne!(other_key_entry, entry);

    // The layout (runtime/src/cuda/compile/disk_cache.rs): magic (8 bytes), key (16), payload
    // length (8), payload checksum (16), payload.
    const PAYLOAD: usize = 8 + 16 + 8 + 16;
    assert_eq!(&entry[PAYLOAD..], &good.cubin[..]);
    let with = |at: usize, f: fn(&mut u8)| {
        let mut damaged = entry.clone();
        f(&mut damaged[at]);
        damaged
    };
    let mut trailing = entry.clone();
    trailing.extend_from_slice(b"more");
    let mut rng = common::Rng::new(7);
    let noise: Vec<u8> = (0..entry.len()).map(|_| rng.next_u64() as u8).collect();
    let damage: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated in the header", entry[..20].to_vec()),
        ("header only", entry[..PAYLOAD].to_vec()),
        ("truncated to half", entry[..entry.len() / 2].to_vec()),
        ("one byte short", entry[..entry.len() - 1].to_vec()),
        ("trailing bytes", trailing),
        ("garbage of the right length", vec![0xAB; entry.len()]),
        ("random bytes", noise),
        ("another format's magic", with(7, |b| *b ^= 1)),
        ("wrong key in the header", with(8, |b| *b ^= 1)),
        ("wrong length in the header", with(24, |b| *b ^= 1)),
        ("valid header, wrong checksum", with(32, |b| *b ^= 1)),
        (
            "valid header, damaged payload",
            with(entry.len() - 100, |b| *b ^= 0x40),
        ),
        ("another key's entry", other_key_entry),
    ];
    for (what, bytes) in damage {
        std::fs::write(&path, &bytes).unwrap();
        let before = nvrtc_compile_count();
        let again = compile((9, 0));
        assert_eq!(again.origin, CubinOrigin::Nvrtc, "{what}: not loaded");
        assert_eq!(nvrtc_compile_count(), before + 1, "{what}");
        assert_eq!(again.cubin, good.cubin, "{what}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            entry,
            "{what}: rewritten whole"
        );
        assert_eq!(compile((9, 0)).origin, CubinOrigin::DiskCache, "{what}");
    }
    assert_eq!(entry_files(&cache).len(), 2);
    assert_eq!(files_in(cache.dir()).len(), 2, "no temporary files left");
    let _ = std::fs::remove_dir_all(cache.dir());
}

/// This test binary again, running only `test`, with `env` set (and `WARPSPEED_CACHE`
/// cleared, so a setting of the parent's cannot turn the cache off).
fn child(test: &str, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env_remove("WARPSPEED_CACHE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Waits for a child and fails with its output unless it succeeded.
fn finished(child: Child, what: &str) -> Output {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn child_mode() -> Option<String> {
    std::env::var("WARPSPEED_TEST_CHILD").ok()
}

/// Whether this process has mapped `libnvrtc` (Linux).
fn nvrtc_mapped() -> bool {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .any(|l| l.contains("/libnvrtc") && !l.contains("builtins"))
}

/// A process that finds its kernel in the disk cache does not load NVRTC (the cache key's
/// NVRTC version comes from the memo the first process left), and gets the same CUBIN.
#[test]
fn warm_starts_do_not_load_nvrtc() {
    const TEST: &str = "warm_starts_do_not_load_nvrtc";
    if child_mode().as_deref() == Some("warm") {
        let cache = DiskCache::new(std::env::var("WARPSPEED_TEST_WARM_DIR").unwrap());
        assert!(!nvrtc_mapped(), "NVRTC was loaded before the test began");
        let compiled = compile_cached("cached", &SOURCE, (9, 0), OPTIONS, Some(&cache)).unwrap();
        println!(
            "WARM origin={:?} nvrtc_loaded={} len={}",
            compiled.origin,
            nvrtc_mapped(),
            compiled.cubin.len()
        );
        return;
    }
    if !cfg!(target_os = "linux") || !common::nvrtc_or_skip(TEST) {
        return;
    }
    let _serial = serial();
    let dir = common::temp_dir("cache-warm");
    let run = || {
        let out = finished(
            child(
                TEST,
                &[
                    ("WARPSPEED_TEST_CHILD", "warm"),
                    ("WARPSPEED_TEST_WARM_DIR", dir.to_str().unwrap()),
                ],
            )
            .spawn()
            .unwrap(),
            "a child compiling into the cache",
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let cold = run();
    assert!(
        cold.contains("WARM origin=Nvrtc nvrtc_loaded=true"),
        "{cold}"
    );
    assert!(dir.join("nvrtc-version.memo").exists());
    let warm = run();
    assert!(
        warm.contains("WARM origin=DiskCache nvrtc_loaded=false"),
        "{warm}"
    );
    let len = |s: &str| {
        s.split("len=")
            .nth(1)?
            .split_whitespace()
            .next()
            .map(String::from)
    };
    assert_eq!(len(&cold), len(&warm));
    // A memo of another NVRTC (here: damaged) is not believed: NVRTC is asked again.
    std::fs::write(dir.join("nvrtc-version.memo"), "WSNVRTC1\nelsewhere\n").unwrap();
    let asked = run();
    assert!(
        asked.contains("WARM origin=DiskCache nvrtc_loaded=true"),
        "{asked}"
    );
    let again = run();
    assert!(
        again.contains("nvrtc_loaded=false"),
        "the memo is written again: {again}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several processes compile the same kernel into one directory at the same moment: all
/// succeed, and exactly one entry is left, valid, with no temporary files.
#[test]
fn concurrent_processes_leave_one_valid_entry() {
    const TEST: &str = "concurrent_processes_leave_one_valid_entry";
    if child_mode().as_deref() == Some("race") {
        let go = PathBuf::from(std::env::var("WARPSPEED_TEST_GO").unwrap());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !go.exists() {
            assert!(std::time::Instant::now() < deadline, "never told to go");
            std::thread::yield_now();
        }
        let cache = DiskCache::new(std::env::var("WARPSPEED_TEST_RACE_DIR").unwrap());
        let compiled = compile_cached("cached", &SOURCE, (9, 0), OPTIONS, Some(&cache)).unwrap();
        assert_eq!(&compiled.cubin[..4], b"\x7fELF");
        println!("RACE origin={:?}", compiled.origin);
        return;
    }
    if !common::nvrtc_or_skip(TEST) {
        return;
    }
    let _serial = serial();
    let root = common::temp_dir("cache-race");
    let dir = root.join("cache");
    let go = root.join("go");
    let children: Vec<Child> = (0..8)
        .map(|_| {
            child(
                TEST,
                &[
                    ("WARPSPEED_TEST_CHILD", "race"),
                    ("WARPSPEED_TEST_RACE_DIR", dir.to_str().unwrap()),
                    ("WARPSPEED_TEST_GO", go.to_str().unwrap()),
                ],
            )
            .spawn()
            .unwrap()
        })
        .collect();
    std::fs::write(&go, b"").unwrap();
    let mut nvrtc = 0;
    for (i, c) in children.into_iter().enumerate() {
        let out = finished(c, &format!("racing process {i}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("RACE origin="), "{stdout}");
        nvrtc += usize::from(stdout.contains("RACE origin=Nvrtc"));
    }
    assert!(nvrtc >= 1, "someone compiled");
    let cache = DiskCache::new(&dir);
    assert_eq!(
        files_in(&dir),
        [cache.path(key((9, 0)))],
        "one entry, nothing else"
    );
    let fresh = compile_cached("cached", &SOURCE, (9, 0), OPTIONS, None).unwrap();
    assert_eq!(
        cache.load(key((9, 0))),
        Some(fresh.cubin),
        "the entry is valid"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// Threads with caches of their own on one directory, as separate processes would be.
#[test]
fn concurrent_threads_leave_one_valid_entry() {
    if !common::nvrtc_or_skip("concurrent_threads_leave_one_valid_entry") {
        return;
    }
    let _serial = serial();
    let dir = common::temp_dir("cache-threads");
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let cubins: Vec<Vec<u8>> = (0..threads)
        .map(|_| {
            let (barrier, dir) = (barrier.clone(), dir.clone());
            std::thread::spawn(move || {
                let cache = DiskCache::new(dir);
                barrier.wait();
                compile_cached("cached", &SOURCE, (9, 0), OPTIONS, Some(&cache))
                    .unwrap()
                    .cubin
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    assert!(cubins.iter().all(|c| *c == cubins[0]));
    let cache = DiskCache::new(&dir);
    assert_eq!(
        files_in(&dir),
        [cache.path(key((9, 0)))],
        "one entry, nothing else"
    );
    assert_eq!(cache.load(key((9, 0))).as_ref(), Some(&cubins[0]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Readers racing writers that replace an entry never see half of one: every load is one
/// of the complete payloads. Needs no NVRTC.
#[test]
fn readers_never_see_a_partial_entry() {
    let _serial = serial();
    let dir = common::temp_dir("cache-readers");
    let key = CacheKey(0x5eed);
    let payloads: Arc<Vec<Vec<u8>>> = Arc::new(
        (0..3u8)
            .map(|i| vec![i + 1; 512 * 1024 + usize::from(i)])
            .collect(),
    );
    DiskCache::new(&dir).store(key, &payloads[0]);
    let barrier = Arc::new(Barrier::new(8));
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let (barrier, dir, payloads) = (barrier.clone(), dir.clone(), payloads.clone());
            std::thread::spawn(move || {
                let cache = DiskCache::new(dir);
                barrier.wait();
                for round in 0..40 {
                    if t % 2 == 0 {
                        cache.store(key, &payloads[(t + round) % payloads.len()]);
                    } else {
                        let got = cache.load(key).expect("an entry is always there");
                        assert!(payloads.contains(&got), "a partial or mixed entry");
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(files_in(&dir).len(), 1, "no temporary files left");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- fill(out: &mut [u32], v: u32): the kernel a child launches to show it still runs

static FILL_ITEM: SourceItem = SourceItem {
    rust_name: "fill",
    prototype: "",
    definition: r#"extern "C" __global__ void fill(unsigned int* __restrict__ out, unsigned long long out_len, unsigned int v) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < out_len) { out[i] = v + (unsigned int)i; }
}"#,
    deps: &[],
    consts: None,
};
static FILL_SOURCE: LazyLock<String> = LazyLock::new(|| collect_source(&FILL_ITEM));
static FILL: KernelDef = KernelDef {
    rust_name: "fill",
    entry: "fill",
    source: &FILL_SOURCE,
    options: OPTIONS,
    grid_sync: false,
    block: None,
    params: &["out", "v"],
    sim: fill_entry,
    provable: &[],
};
static FILL_AT: SrcLoc = SrcLoc::new(file!(), 1, 1);

fn fill_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(fill_sim(
        ctx,
        ctx.arg_slice_mut::<u32>(0),
        ctx.arg_scalar::<u32>(1),
    ))
}

async fn fill_sim(ctx: &ThreadCtx<'_>, out: SliceMut<u32>, v: u32) {
    let i = ctx.grid_1d();
    if i < out.len() {
        out.store(ctx, i, v + i as u32, &FILL_AT);
    }
}

/// In a child whose `WARPSPEED_CACHE_DIR` cannot be used: kernels compile (again each
/// time: nothing reaches the disk) and run; the parent counts the warnings.
fn unusable_cache_child() {
    let cache = DiskCache::from_env().expect("WARPSPEED_CACHE_DIR is set");
    let expect_hit = std::env::var("WARPSPEED_TEST_EXPECT_HIT").is_ok_and(|v| v == "1");
    for round in 0..2 {
        for (source, arch) in [
            (&*SOURCE, (9, 0)),
            (&*FILL_SOURCE, (9, 0)),
            (&*SOURCE, (8, 0)),
        ] {
            let compiled = compile_cached("k", source, arch, OPTIONS, Some(&cache)).unwrap();
            assert_eq!(&compiled.cubin[..4], b"\x7fELF");
            let hit = expect_hit && source == &*SOURCE && arch == (9, 0);
            let origin = if hit {
                CubinOrigin::DiskCache
            } else {
                CubinOrigin::Nvrtc
            };
            assert_eq!(
                compiled.origin, origin,
                "round {round}, sm_{}{}",
                arch.0, arch.1
            );
        }
    }
    // A launch compiles through `DiskCache::from_env` too where a GPU is present.
    let dev = common::any_device();
    let mut out = dev.zeros::<u32>(1000).unwrap();
    let mut args = KernelArgs::new();
    args.slice_mut(&mut out);
    args.scalar(5u32);
    launch(&dev, &FILL, LaunchConfig::new(4u32, 256u32), args).unwrap();
    let got = out.download().unwrap();
    assert!(got.iter().enumerate().all(|(i, &v)| v == 5 + i as u32));
    println!("UNUSABLE ran on {dev:?}");
}

/// Runs the child with `dir` as its cache; checks it succeeded and warned exactly once.
fn check_unusable(test: &str, scenario: &str, dir: &Path, expect_hit: bool) -> String {
    let hit = if expect_hit { "1" } else { "0" };
    let mut cmd = child(
        test,
        &[
            ("WARPSPEED_TEST_CHILD", "unusable"),
            ("WARPSPEED_CACHE_DIR", dir.to_str().unwrap()),
            ("WARPSPEED_TEST_EXPECT_HIT", hit),
        ],
    );
    let out = finished(cmd.spawn().unwrap(), scenario);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("UNUSABLE ran on"), "{scenario}: {stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warpspeed: warning: the kernel cache directory"))
        .collect();
    assert_eq!(warnings.len(), 1, "{scenario}: one warning:\n{stderr}");
    assert!(
        warnings[0].contains(&dir.display().to_string())
            && warnings[0].contains("kept in memory only"),
        "{scenario}: {}",
        warnings[0]
    );
    println!("{scenario}: {}", warnings[0]);
    warnings[0].to_string()
}

/// Whether a file can be created in `dir` (as root it can, whatever the permissions).
fn writable(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let ok = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// A read-only cache directory is still read, and falls back to memory for what it lacks.
#[test]
fn read_only_cache_falls_back_to_memory() {
    const TEST: &str = "read_only_cache_falls_back_to_memory";
    if child_mode().as_deref() == Some("unusable") {
        return unusable_cache_child();
    }
    if !common::nvrtc_or_skip(TEST) {
        return;
    }
    let _serial = serial();
    let root = common::temp_dir("cache-readonly");
    let dir = root.join("cache");
    // One entry is there before the directory turns read-only: it is still a hit.
    compile_cached("k", &SOURCE, (9, 0), OPTIONS, Some(&DiskCache::new(&dir))).unwrap();
    let before = files_in(&dir);
    set_mode(&dir, 0o555);
    if writable(&dir) {
        // Root ignores permissions; /proc refuses new files even to root.
        set_mode(&dir, 0o755);
        eprintln!(
            "{TEST}: permissions are not enforced (root?): using /proc as the read-only directory"
        );
        let proc = Path::new("/proc");
        if proc.is_dir() && !writable(proc) {
            let warning = check_unusable(TEST, "read-only /proc", proc, false);
            assert!(warning.contains("cannot be written"), "{warning}");
        } else {
            eprintln!("SKIPPED {TEST}: no read-only directory to try");
        }
    } else {
        let warning = check_unusable(TEST, "chmod 0555 directory", &dir, true);
        assert!(warning.contains("cannot be written"), "{warning}");
        set_mode(&dir, 0o755);
        assert_eq!(files_in(&dir), before, "nothing was written");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_mode(dir: &Path, mode: u32) {
    let mut perms = std::fs::metadata(dir).unwrap().permissions();
    perms.set_readonly(mode & 0o200 == 0);
    std::fs::set_permissions(dir, perms).unwrap();
}

/// `WARPSPEED_CACHE_DIR` naming a regular file (permissions do not matter, root or not).
#[test]
fn cache_dir_that_is_a_file_falls_back_to_memory() {
    const TEST: &str = "cache_dir_that_is_a_file_falls_back_to_memory";
    if child_mode().as_deref() == Some("unusable") {
        return unusable_cache_child();
    }
    if !common::nvrtc_or_skip(TEST) {
        return;
    }
    let _serial = serial();
    let root = common::temp_dir("cache-file");
    let file = root.join("not-a-dir");
    std::fs::write(&file, b"user data").unwrap();
    let warning = check_unusable(TEST, "a regular file", &file, false);
    assert!(
        warning.contains("it is a file, not a directory"),
        "{warning}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"user data", "left alone");
    assert_eq!(files_in(&root), [file]);
    let _ = std::fs::remove_dir_all(&root);
}

/// A cache directory that cannot be created: under a regular file, and (where there is
/// one) under /proc, which refuses new directories even to root.
#[test]
fn cache_dir_that_cannot_be_created_falls_back_to_memory() {
    const TEST: &str = "cache_dir_that_cannot_be_created_falls_back_to_memory";
    if child_mode().as_deref() == Some("unusable") {
        return unusable_cache_child();
    }
    if !common::nvrtc_or_skip(TEST) {
        return;
    }
    let _serial = serial();
    let root = common::temp_dir("cache-uncreatable");
    let file = root.join("file");
    std::fs::write(&file, b"").unwrap();
    let under_file = file.join("warpspeed").join("cache");
    let warning = check_unusable(TEST, "under a regular file", &under_file, false);
    assert!(warning.contains("cannot be created"), "{warning}");
    assert_eq!(files_in(&root), [file]);
    let under_proc = Path::new("/proc/warpspeed-test/cache");
    if Path::new("/proc").is_dir() && !under_proc.exists() {
        let warning = check_unusable(TEST, "under /proc", under_proc, false);
        assert!(warning.contains("cannot be created"), "{warning}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
