//! The hand-written CUDA C twins (`cuda/*.cu`, included as strings): compiled through
//! warpspeed's own NVRTC path (`warpspeed::compile::compile_cubin`) with the options of the
//! warpspeed kernel each file mirrors, for the GPU's exact architecture, loaded with cudarc,
//! and launched with cudarc directly (no warpspeed launch path in between).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr};
use cudarc::nvrtc::Ptx;
use warpspeed::__private::KernelDef;
use warpspeed::compile::compile_cubin;
use warpspeed::{DeviceBuffer, KernelScalar, LaunchConfig, TensorMap};

use crate::Res;

/// One hand-written file and the warpspeed kernel whose NVRTC options it is compiled with.
pub struct HandSource {
    pub file: &'static str,
    pub source: &'static str,
    pub twin: &'static KernelDef,
}

/// `cuda/<file>` and the warpspeed kernel whose options it is compiled with; `hopper:` puts
/// cuda/hopper.cuh (what the Hopper twins share) in front of it.
macro_rules! hand_source {
    ($file:literal, $twin:expr) => {
        HandSource {
            file: $file,
            source: include_str!(concat!("cuda/", $file)),
            twin: &$twin,
        }
    };
    (hopper: $file:literal, $twin:expr) => {
        HandSource {
            file: $file,
            source: concat!(
                include_str!("cuda/hopper.cuh"),
                include_str!(concat!("cuda/", $file))
            ),
            twin: &$twin,
        }
    };
}

/// Every hand-written source of the bench.
pub fn sources() -> Vec<HandSource> {
    vec![
        hand_source!("life.cu", crate::life_kernels::conway::KERNEL),
        hand_source!(
            "life_bits.cu",
            crate::life_bits_kernels::conway_bits::KERNEL
        ),
        hand_source!("scan.cu", crate::scan_kernels::blelloch_tiles_u32::KERNEL),
        hand_source!(
            "histogram.cu",
            crate::histogram_kernels::histogram_words_bytes::KERNEL
        ),
        hand_source!("matmul.cu", crate::matmul_kernels::matmul_tiled::KERNEL),
        hand_source!(
            hopper: "gemm_hopper.cu",
            crate::gemm_hopper::checked::gemm_hopper_bf16::KERNEL
        ),
        hand_source!(
            hopper: "attention.cu",
            crate::attention_kernels::checked::attention_d128::KERNEL
        ),
        hand_source!(
            "convolve.cu",
            crate::convolve_kernels::convolve_shared::KERNEL
        ),
        hand_source!("polyval.cu", crate::polyval_kernels::polyval_f32::KERNEL),
        hand_source!(
            "vector_add.cu",
            crate::vector_add_kernels::vector_add::KERNEL
        ),
    ]
}

/// The hand-written sources, compiled and loaded on the bench's GPU.
pub struct Hand {
    modules: Vec<(&'static str, Arc<CudaModule>)>,
}

impl Hand {
    pub fn load(stream: &Arc<CudaStream>, arch: (u32, u32)) -> Res<Hand> {
        let mut modules = Vec::new();
        for s in sources() {
            let cubin = match compile_cubin(s.source, arch, s.twin.options) {
                Ok(cubin) => cubin,
                // A twin for another architecture (sm_90a): its rows say so.
                Err(warpspeed::Error::UnsupportedArch { .. }) => continue,
                Err(e) => return Err(format!("compiling the hand-written {}: {e}", s.file).into()),
            };
            let module = stream.context().load_module(Ptx::from_binary(cubin))?;
            modules.push((s.file, module));
        }
        Ok(Hand { modules })
    }

    /// The kernel `name` of the hand-written `file`.
    pub fn function(&self, file: &str, name: &str) -> Res<CudaFunction> {
        let (_, module) = self
            .modules
            .iter()
            .find(|(f, _)| *f == file)
            .ok_or_else(|| format!("no hand-written source {file}"))?;
        module
            .load_function(name)
            .map_err(|e| format!("{file}: kernel {name}: {e}").into())
    }
}

/// A warpspeed buffer's device memory, as a cudarc kernel argument (a pointer in C).
pub fn raw<T: KernelScalar>(buf: &DeviceBuffer<T>) -> &CudaSlice<u8> {
    buf.cuda_bytes().expect("a buffer of a CUDA device")
}

/// A warpspeed launch configuration as cudarc's, so a twin runs the same grid and blocks.
pub fn cfg(c: LaunchConfig) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: (c.grid.x, c.grid.y, c.grid.z),
        block_dim: (c.block.x, c.block.y, c.block.z),
        shared_mem_bytes: c.shared_mem_bytes,
    }
}

/// A `CUtensorMap` as a hand-written kernel's by-value parameter (`ws_hand_tmap` in
/// cuda/hopper.cuh).
#[repr(C, align(64))]
pub struct HandMap([u64; 16]);

// SAFETY: 128 plain bytes, 64-byte aligned, as CUDA's `CUtensorMap` (the C's struct).
unsafe impl DeviceRepr for HandMap {}

impl HandMap {
    /// The driver's tensor map behind a warpspeed `TensorMap` of the GPU.
    pub fn of<T: KernelScalar>(map: &TensorMap<T>) -> Res<HandMap> {
        Ok(HandMap(
            map.cuda_tensor_map().ok_or("a tensor map needs the GPU")?,
        ))
    }
}
