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
    REQUIREMENTS
        .iter()
        .filter(|r| source.split(prelude).any(|part| part.contains(r.prefix)))
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
