//! The CUDA backend: a GPU through the driver API (cudarc), behind [`CudaDevice`].
//!
//! Layers, as in cudarc (`sys`, `result`, `safe`): cudarc's safe types at the bottom;
//! `result.rs`, the one place a driver result becomes a warpspeed `Result` (and a sticky
//! fault becomes `KernelFault`, then `ContextLost`); on top, one file per job:
//! - `device.rs`: [`CudaDevice`], opening a GPU or adopting a cudarc stream, its limits,
//!   synchronisation;
//! - `memory.rs`: allocations and copies of buffers (bytes);
//! - `module.rs`: the kernels loaded into the context (the in-memory function cache);
//! - `launch.rs`: loading a kernel (disk cache or NVRTC, `compile/`), the parameter array,
//!   shared-memory opt-in, occupancy, `cuLaunchKernel`;
//! - `bounds.rs`: the device-side out-of-bounds records, read at synchronisation;
//! - `stream.rs`: streams, events, pinned host memory and the copies on a stream;
//! - `texture.rs`: texture objects over pitch-linear memory (`cuTexObjectCreate`);
//! - `tensor_map.rs`: TMA tensor maps (`cuTensorMapEncodeTiled`).
//!
//! This backend imports only the leaf modules (`error`, `config`, `dim`, `scalar`, the
//! value types, `diagnostics`): never `sim/`, never the `Device` above it.
//! docs/runtime.md draws the whole runtime.

mod bounds;
pub mod compile;
mod device;
mod launch;
mod memory;
mod module;
mod result;
mod stream;
pub(crate) mod tensor_map;
mod texture;

pub(crate) use device::{gpu_count, CudaDevice};
pub(crate) use memory::{address, CudaBuffer};
pub(crate) use module::{program, CudaKernel};
pub(crate) use texture::{PitchTexture, TextureLimits};
