//! Which GPU target a kernel's C needs (docs/compilation.md, "sm_90a"): a table of C helper
//! name prefixes, each with the target its instructions need. Hopper's `wgmma` and
//! `setmaxnreg` exist only in the architecture-specific target `sm_90a` (not in `sm_90`, not
//! in later GPUs' targets), so a kernel whose C calls one of their helpers is compiled with
//! `--gpu-architecture=sm_90a` on a GPU of compute capability 9.0 and refused, before
//! compiling, anywhere else. The target is a function of the kernel's source and the GPU's
//! compute capability, both part of the disk cache's key (as the option it gives is).

/// A target a kernel's instructions may need beyond the GPU's plain `sm_XY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Compute capability 8.0 or later, compiled for the GPU's own `sm_XY` (`mma.sync`
    /// shapes and types that Turing lacks: m16n8k16, bf16, tf32, 8-bit integers).
    Sm80,
    /// Compute capability 8.9 or later, compiled for the GPU's own `sm_XY` (`mma.sync`
    /// with fp8 operands, `.e4m3`/`.e5m2`).
    Sm89,
    /// Compute capability 9.0 or later, compiled for the GPU's own `sm_XY` (TMA,
    /// mbarrier transactions, `fence.proxy.async`).
    Sm90,
    /// Exactly compute capability 9.0, compiled for `sm_90a` (`wgmma`, `setmaxnreg`).
    Sm90a,
}

impl Target {
    /// The target's name, as NVRTC's `--gpu-architecture` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Target::Sm80 => "sm_80",
            Target::Sm89 => "sm_89",
            Target::Sm90 => "sm_90",
            Target::Sm90a => "sm_90a",
        }
    }
}

/// One row: a kernel whose C (outside the prelude) calls a helper whose name starts with
/// `prefix` needs `target`; `what` names the instructions in errors.
#[derive(Debug)]
pub struct Requirement {
    /// The C helper name prefix (`ws_wgmma_`).
    pub prefix: &'static str,
    /// What the helpers issue, for the error message.
    pub what: &'static str,
    /// The target they need.
    pub target: Target,
}

/// Every requirement; adding a family of helpers that need a target is adding a row.
pub const REQUIREMENTS: &[Requirement] = &[
    Requirement {
        prefix: "ws_wgmma_",
        what: "wgmma (warpgroup MMA)",
        target: Target::Sm90a,
    },
    Requirement {
        prefix: "ws_setmaxnreg_",
        what: "setmaxnreg",
        target: Target::Sm90a,
    },
    Requirement {
        prefix: "ws_fence_proxy_async",
        what: "fence.proxy.async",
        target: Target::Sm90,
    },
    Requirement {
        prefix: "ws_tma_",
        what: "TMA (cp.async.bulk.tensor)",
        target: Target::Sm90,
    },
    Requirement {
        prefix: "ws_mbarrier_",
        what: "mbarrier transactions (Hopper's mbarrier PTX)",
        target: Target::Sm90,
    },
    Requirement {
        prefix: "ws_fence_mbarrier_init",
        what: "fence.mbarrier_init",
        target: Target::Sm90,
    },
    Requirement {
        prefix: "ws_mma_m16n8k32_f32_e",
        what: "mma.sync with fp8 operands (e4m3, e5m2)",
        target: Target::Sm89,
    },
    Requirement {
        prefix: "ws_stmatrix_",
        what: "stmatrix",
        target: Target::Sm90,
    },
    // Turing (sm_75) has mma.sync m16n8k8 of f16 only.
    Requirement {
        prefix: "ws_mma_m16n8k16_",
        what: "mma.sync m16n8k16",
        target: Target::Sm80,
    },
    Requirement {
        prefix: "ws_mma_m16n8k8_f32_bf16",
        what: "mma.sync with bf16 operands",
        target: Target::Sm80,
    },
    Requirement {
        prefix: "ws_mma_m16n8k8_f32_tf32",
        what: "mma.sync with tf32 operands",
        target: Target::Sm80,
    },
    Requirement {
        prefix: "ws_mma_m16n8k32_s32_",
        what: "mma.sync with 8-bit integer operands",
        target: Target::Sm80,
    },
    // Hand-written CUDA C (the bench's twins) that issues the instructions itself.
    Requirement {
        prefix: "wgmma.mma_async",
        what: "wgmma (warpgroup MMA)",
        target: Target::Sm90a,
    },
    Requirement {
        prefix: "setmaxnreg.",
        what: "setmaxnreg",
        target: Target::Sm90a,
    },
];

/// The strictest requirement the kernel's part of `source` meets, if any: the text outside
/// every copy of the prelude (which defines every helper, and which a source may hold more
/// than once, as tests that compile many kernels in one program do).
pub fn required(source: &str) -> Option<&'static Requirement> {
    let prelude = crate::kernel_abi::CUDA_PRELUDE;
    // A kernel's program is the prelude and then the kernel: one comparison, where a
    // search for the 300 KB prelude took a millisecond (once per requirement, 5 ms).
    // A program compiled with checks proven at launch starts with their `#define`.
    let source = match source.strip_prefix("#define WS_PROVEN ") {
        Some(rest) => rest.split_once('\n').map_or(source, |(_, program)| program),
        None => source,
    };
    let parts: Vec<&str> = match source.strip_prefix(prelude) {
        Some(rest) if rest.len() < prelude.len() => vec![rest],
        _ => source.split(prelude).collect(),
    };
    REQUIREMENTS
        .iter()
        .filter(|r| parts.iter().any(|part| part.contains(r.prefix)))
        .max_by_key(|r| r.target)
}

/// NVRTC's `--gpu-architecture` value for `source` on a GPU of compute capability `cc`:
/// `sm_90a` for a kernel that needs it on a 9.0 GPU, else the GPU's `sm_XY`. `Err` with
/// the reason, naming the target, when the GPU cannot run the kernel.
pub fn gpu_architecture(source: &str, cc: (u32, u32)) -> Result<String, String> {
    let plain = format!("sm_{}{}", cc.0, cc.1);
    let Some(r) = required(source) else {
        return Ok(plain);
    };
    match r.target {
        Target::Sm90a if cc == (9, 0) => Ok(Target::Sm90a.name().to_string()),
        Target::Sm90 if cc >= (9, 0) => Ok(plain),
        Target::Sm89 if cc >= (8, 9) => Ok(plain),
        Target::Sm80 if cc >= (8, 0) => Ok(plain),
        Target::Sm90a => Err(format!(
            "it uses {}, which exists only in the target sm_90a (compute capability 9.0 exactly: \
             H100, H200), and this GPU is {plain}; run it on the simulator \
             (WARPSPEED_BACKEND=sim) or on an sm_90 GPU",
            r.what
        )),
        Target::Sm90 => Err(format!(
            "it uses {}, which needs sm_90 or later, and this GPU is {plain}; run it on the \
             simulator (WARPSPEED_BACKEND=sim) or on an sm_90 GPU",
            r.what
        )),
        Target::Sm89 | Target::Sm80 => Err(format!(
            "it uses {}, which needs {} or later, and this GPU is {plain}; run it on the \
             simulator (WARPSPEED_BACKEND=sim) or on an {} or later GPU",
            r.what,
            r.target.name(),
            r.target.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgmma_compiles_for_sm90a_on_9_0_only() {
        let src = "ws_wgmma_m64n64k16_f32_bf16(&acc, a, 4096ull, b, 4096ull, 0ull, 3u, \"f\");";
        assert_eq!(gpu_architecture(src, (9, 0)).unwrap(), "sm_90a");
        for cc in [(8, 0), (8, 9), (10, 0), (12, 0)] {
            let err = gpu_architecture(src, cc).unwrap_err();
            assert!(err.contains("sm_90a"), "{err}");
            assert!(err.contains(&format!("sm_{}{}", cc.0, cc.1)), "{err}");
            assert!(err.contains("wgmma"), "{err}");
        }
        assert!(gpu_architecture("ws_setmaxnreg_inc(232u);", (8, 0))
            .unwrap_err()
            .contains("setmaxnreg"));
    }

    /// Only the kernel's part counts: the prelude defines every helper, and a source may
    /// hold it more than once.
    #[test]
    fn the_prelude_needs_nothing() {
        let prelude = crate::kernel_abi::CUDA_PRELUDE;
        assert!(prelude.contains("ws_wgmma_fence") && prelude.contains("ws_setmaxnreg_inc"));
        let src = format!("{prelude}\nint x = 1;\n{prelude}\nint y = 2;");
        assert_eq!(gpu_architecture(&src, (8, 0)).unwrap(), "sm_80");
        assert_eq!(gpu_architecture(&src, (9, 0)).unwrap(), "sm_90");
        let src = format!("{prelude}\nint x = 1;\n{prelude}\nws_wgmma_fence();");
        assert_eq!(gpu_architecture(&src, (9, 0)).unwrap(), "sm_90a");
    }

    /// fp8 `mma.sync` needs sm_89: allowed there and later, refused on sm_80 naming sm_89;
    /// the integer m16n8k32 needs nothing beyond sm_80.
    #[test]
    fn fp8_mma_needs_sm89() {
        let src = "ws_mma_m16n8k32_f32_e4m3(&acc, a, b);";
        for cc in [(8, 9), (9, 0), (10, 0), (12, 0)] {
            assert_eq!(
                gpu_architecture(src, cc).unwrap(),
                format!("sm_{}{}", cc.0, cc.1)
            );
        }
        let err = gpu_architecture("ws_mma_m16n8k32_f32_e5m2(&acc, a, b);", (8, 0)).unwrap_err();
        assert!(err.contains("sm_89") && err.contains("sm_80"), "{err}");
        assert!(err.contains("fp8"), "{err}");
        let int = "ws_mma_m16n8k32_s32_s8(&acc, a, b);";
        assert_eq!(gpu_architecture(int, (8, 0)).unwrap(), "sm_80");
        let both = format!("{src}\nws_wgmma_fence();");
        assert_eq!(required(&both).unwrap().target, Target::Sm90a);
    }

    /// Turing (sm_75) runs m16n8k8 f16 `mma.sync` only: the other shapes and types are
    /// refused there before compiling (NVRTC's ptxas error otherwise), naming sm_80;
    /// `stmatrix` needs sm_90.
    #[test]
    fn sm80_mma_is_refused_on_turing() {
        for call in [
            "ws_mma_m16n8k16_f32_f16(&acc, a, b);",
            "ws_mma_m16n8k16_f32_bf16(&acc, a, b);",
            "ws_mma_m16n8k8_f32_bf16(&acc, a, b);",
            "ws_mma_m16n8k8_f32_tf32(&acc, a, b);",
            "ws_mma_m16n8k32_s32_u8_s8(&acc, a, b);",
        ] {
            let err = gpu_architecture(call, (7, 5)).unwrap_err();
            assert!(err.contains("sm_80") && err.contains("sm_75"), "{err}");
            assert_eq!(gpu_architecture(call, (8, 0)).unwrap(), "sm_80");
            assert_eq!(gpu_architecture(call, (9, 0)).unwrap(), "sm_90");
        }
        assert_eq!(
            gpu_architecture("ws_mma_m16n8k8_f32_f16(&acc, a, b);", (7, 5)).unwrap(),
            "sm_75"
        );
        let st = "ws_stmatrix_x4(f, tile, n, r, 1u, \"k.rs\");";
        assert!(gpu_architecture(st, (8, 6)).unwrap_err().contains("sm_90"));
        assert_eq!(gpu_architecture(st, (9, 0)).unwrap(), "sm_90");
    }

    /// An sm_90 row allows later GPUs with their own target; sm_90a wins over sm_90.
    #[test]
    fn sm90_rows_allow_later_gpus() {
        let src = "ws_fence_proxy_async();";
        assert_eq!(gpu_architecture(src, (10, 0)).unwrap(), "sm_100");
        assert!(gpu_architecture(src, (8, 6)).unwrap_err().contains("sm_90"));
        let both = format!("{src}\nws_wgmma_fence();");
        assert_eq!(required(&both).unwrap().target, Target::Sm90a);
    }
}
