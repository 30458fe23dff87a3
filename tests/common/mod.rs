//! Helpers the workspace's integration tests share: the devices to run on (the simulator,
//! then the GPU where there is one), a seedable PRNG, and the Rust line of a marker comment
//! (so tests can check that reports name the right lines without hard-coding numbers).

#![allow(dead_code)]

use warpspeed::{Backend, Device};

/// The simulator, then the GPU when there is one. `WARPSPEED_REQUIRE_GPU=1` turns a missing
/// GPU into a failure instead of a printed notice.
pub fn devices(test: &str) -> Vec<Device> {
    let mut v = vec![Device::simulator()];
    let require = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match Device::new() {
        Ok(d) if d.backend() == Backend::Cuda => v.push(d),
        Ok(_) => {
            assert!(!require, "WARPSPEED_REQUIRE_GPU=1 but no GPU was found");
            println!("SKIPPED {test} on the GPU: no GPU; checked on the simulator only");
        }
        Err(e) => {
            assert!(
                !require,
                "WARPSPEED_REQUIRE_GPU=1 but Device::new failed: {e}"
            );
            println!("SKIPPED {test} on the GPU: {e}; checked on the simulator only");
        }
    }
    v
}

/// xorshift64*: deterministic pseudo-random numbers without a dependency (the examples'
/// generator).
#[path = "../../examples/common/rng.rs"]
mod rng;
#[allow(unused_imports)] // not every test uses it
pub use rng::XorShift as Rng;

/// Tiles, owners and the sm_90a refusal, for the `wgmma` tests.
pub mod wgmma;

/// The 1-based line of `source` holding the comment `// @marker` (exactly once).
pub fn line_of(source: &str, marker: &str) -> u32 {
    let comment = format!("// @{marker}");
    let hits: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&comment))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "marker {marker:?} must appear once");
    hits[0] as u32
}

/// A lost context, as tests/faults*.rs expect it: `err` is `Error::KernelFault` naming
/// `kernel` and `cfg` and saying how to recover, and each of `later` (calls made after it)
/// is `Error::ContextLost` naming the kernel.
#[allow(dead_code)] // only the fault tests use it
pub fn assert_context_lost(
    err: warpspeed::Error,
    kernel: &str,
    cfg: warpspeed::LaunchConfig,
    later: Vec<warpspeed::Result<()>>,
) {
    let text = err.to_string();
    match &err {
        warpspeed::Error::KernelFault {
            kernel: k, config, ..
        } => {
            assert_eq!(k, kernel);
            assert_eq!(config, &cfg.to_string());
        }
        other => panic!("expected KernelFault, got: {other}"),
    }
    assert!(
        text.contains("context is lost") && text.contains("Restart the process"),
        "{text}"
    );
    println!("{text}");
    for call in later {
        match call {
            Err(warpspeed::Error::ContextLost { first }) => {
                assert!(first.contains(kernel), "{first}")
            }
            other => panic!("expected ContextLost, got {other:?}"),
        }
    }
}

/// `r`, or the synchronisation after it, is `Error::OutOfBounds` in `kernel` at `place`
/// (`file:line`) with `index` and `len`: what a near miss of the bounds prover must report
/// on every backend.
#[allow(dead_code)] // only the prover's tests use it
pub fn expect_oob(
    dev: &Device,
    r: warpspeed::Result<()>,
    kernel: &str,
    place: &str,
    index: u64,
    len: u64,
) {
    let err = r.and_then(|()| dev.synchronize()).unwrap_err();
    match &err {
        warpspeed::Error::OutOfBounds {
            kernel: k,
            file,
            line,
            index: i,
            len: l,
            ..
        } => assert_eq!(
            (k.as_str(), format!("{file}:{line}"), *i, *l),
            (kernel, place.to_string(), index, len),
            "{err}"
        ),
        other => panic!(
            "{kernel} on {:?}: expected OutOfBounds, got {other}",
            dev.backend()
        ),
    }
}

/// [`expect_oob`] at the line of `source` (the test file `file`'s text) that holds the
/// comment `// @marker`.
#[allow(dead_code)] // only the prover's tests use it
#[allow(clippy::too_many_arguments)]
pub fn expect_oob_marked(
    dev: &Device,
    r: warpspeed::Result<()>,
    kernel: &str,
    (file, source): (&str, &str),
    marker: &str,
    index: u64,
    len: u64,
) {
    let place = format!("{file}:{}", line_of(source, marker));
    expect_oob(dev, r, kernel, &place, index, len);
}

/// Compiles each kernel's CUDA C with the real NVRTC for a few architectures, or says it
/// skipped (a failure when `WARPSPEED_REQUIRE_NVRTC=1`).
pub fn nvrtc_compiles(kernels: &[(&str, &'static warpspeed::__private::KernelDef)]) {
    nvrtc_compiles_for(kernels, &[(7, 5), (9, 0)]);
}

/// Whether NVRTC is loadable here; `false` after a skip notice, and a failure instead when
/// `WARPSPEED_REQUIRE_NVRTC=1`.
pub fn nvrtc_here() -> bool {
    if warpspeed::compile::nvrtc_available() {
        return true;
    }
    assert!(
        std::env::var("WARPSPEED_REQUIRE_NVRTC").as_deref() != Ok("1"),
        "NVRTC is required (WARPSPEED_REQUIRE_NVRTC=1) but not loadable"
    );
    println!("SKIPPED: NVRTC is not loadable here; install it with `pip install nvidia-cuda-nvrtc` and add its lib/ to LD_LIBRARY_PATH");
    false
}

/// [`nvrtc_compiles`] for the architectures `archs` (`(8, 0)` is sm_80).
#[allow(dead_code)] // not every test file names its architectures
pub fn nvrtc_compiles_for(
    kernels: &[(&str, &'static warpspeed::__private::KernelDef)],
    archs: &[(u32, u32)],
) {
    if !nvrtc_here() {
        return;
    }
    for &arch in archs {
        for (name, k) in kernels {
            warpspeed::compile::compile_cubin(k.source.as_str(), arch, k.options).unwrap_or_else(
                |e| panic!("{name} does not compile for sm_{}{}: {e}", arch.0, arch.1),
            );
            // The variant a launch gets when it proves every check site (docs/bounds.md).
            if !k.provable.is_empty() {
                let proven = format!(
                    "#define WS_PROVEN 0xffffffffffffffffull\n{}",
                    k.source.as_str()
                );
                warpspeed::compile::compile_cubin(&proven, arch, k.options).unwrap_or_else(|e| {
                    panic!(
                        "{name} with its checks proven does not compile for sm_{}{}: {e}",
                        arch.0, arch.1
                    )
                });
            }
        }
    }
}

/// Calls made one after another on a GPU whose context a launch of `kernel` with `cfg` has
/// lost, without a synchronisation in between, as tests/fault_*.rs expect them: every call
/// is `Ok` until the first that sees the fault, which is `Error::KernelFault` naming
/// `kernel` and `cfg` (and, as later candidates, exactly the launches of `queued_after`
/// that were queued before it), and every call after it is `Error::ContextLost` naming
/// `kernel`. `calls` are `(what, result, is a launch of queued_after)`; at least one call
/// must see the fault.
#[allow(dead_code)] // only the fault tests use it
pub fn assert_fault_seen_once(
    kernel: &str,
    cfg: warpspeed::LaunchConfig,
    queued_after: (&str, warpspeed::LaunchConfig),
    calls: Vec<(&str, warpspeed::Result<()>, bool)>,
) {
    let mut queued = Vec::new();
    let mut seen = false;
    for (what, result, is_later_launch) in calls {
        match (seen, result) {
            (false, Ok(())) => {
                println!("{what}: Ok (the fault was not visible yet)");
                if is_later_launch {
                    queued.push(format!("{} ({})", queued_after.0, queued_after.1));
                }
            }
            (false, Err(err)) => {
                println!("{what}: {err}");
                let text = err.to_string();
                match err {
                    warpspeed::Error::KernelFault {
                        kernel: k,
                        config,
                        later,
                        ..
                    } => {
                        assert_eq!(
                            (k.as_str(), config),
                            (kernel, cfg.to_string()),
                            "{what}: {text}"
                        );
                        assert_eq!(later, queued, "{what}: {text}");
                    }
                    _ => panic!("{what}: expected KernelFault, got: {text}"),
                }
                assert!(
                    text.contains("context is lost") && text.contains("Restart the process"),
                    "{text}"
                );
                seen = true;
            }
            (true, Err(warpspeed::Error::ContextLost { first })) => {
                println!("{what}: ContextLost ({first})");
                assert!(first.contains(&format!("`{kernel}`")), "{what}: {first}")
            }
            (true, other) => panic!("{what}: expected ContextLost, got {other:?}"),
        }
    }
    assert!(seen, "no call saw the fault of `{kernel}`");
}
