//! `--variant NAME|all` of the examples whose kernels come in variants (life, matmul,
//! convolve): the enum of variants, what `all` expands to, and the `main` those share.

use std::process::ExitCode;

use warpspeed::__private::KernelDef;

/// The `--variant` enum of an example: one value per kernel, and `all` for every one.
pub trait KernelVariant: Copy + PartialEq + 'static {
    /// `--variant all`.
    const ALL: Self;
    /// Every variant but `all`, in the order `all` runs them.
    const EACH: &'static [Self];

    /// The variant's kernel (not defined for `all`).
    fn kernel(self) -> &'static KernelDef;

    /// The variants this choice runs: `all` expanded into [`Self::EACH`], else itself.
    fn expand(self) -> Vec<Self> {
        if self == Self::ALL {
            Self::EACH.to_vec()
        } else {
            vec![self]
        }
    }

    /// The kernels of the variants this choice runs.
    fn kernels(self) -> Vec<&'static KernelDef> {
        self.expand().into_iter().map(Self::kernel).collect()
    }
}

/// `--print-cuda` and `--check-nvrtc` of the `--variant` examples.
#[derive(clap::Args)]
pub struct VariantFlags {
    /// Print the generated CUDA C of the chosen variant(s) and exit.
    #[arg(long)]
    pub print_cuda: bool,
    /// Compile every kernel with NVRTC for sm_75, sm_80 and sm_90 and exit (no GPU needed).
    #[arg(long)]
    pub check_nvrtc: bool,
}

impl VariantFlags {
    /// `main` with these flags: `--check-nvrtc` compiles every variant's kernel for
    /// [`CI_ARCHS`](super::CI_ARCHS), `--print-cuda` prints those of `variant`; otherwise
    /// [`run_main`](super::run_main).
    pub fn main<V: KernelVariant>(
        &self,
        variant: V,
        run: impl FnOnce() -> Result<bool, warpspeed::Error>,
    ) -> ExitCode {
        if self.check_nvrtc {
            return super::check_nvrtc(&V::ALL.kernels(), &super::CI_ARCHS);
        }
        super::run_main(self.print_cuda, &variant.kernels(), run)
    }
}
