//! warpspeed-runtime: everything a `#[gpu_kernel]` needs at run time.
//!
//! Data flow: [`Device::new`] picks the CUDA backend (cudarc) or the simulator; buffers are
//! uploaded into [`DeviceBuffer`]s; a generated `<kernel>::launch` packs its arguments into
//! `KernelArgs` and calls the launcher, which validates the [`LaunchConfig`] against the
//! device's limits, fetches the kernel's module from the in-memory cache, the disk cache or
//! NVRTC (in that order), and launches it — or runs the kernel's simulator entry on the CPU.
//!
//! Layout (docs/runtime.md draws it): leaf modules at the bottom (`dim`, `config`,
//! `validate`, `error`, `scalar`, the value types, `diagnostics`); the two backends,
//! `cuda/` and `sim/`, side by side and importing only leaves; on top `Device`
//! (`device.rs`), `DeviceBuffer` (`memory.rs`), the launch path (`launch/`) and
//! [`Texture2D`] (`texture.rs`, docs/textures.md), the only code that matches on the
//! backend, and the views of buffers (`view.rs`, [`DeviceView`], [`DeviceViewMut`]), which
//! kernels take as buffers are taken. Streams, events and pinned host memory ([`Stream`],
//! [`Event`] in `device.rs`, [`PinnedBuffer`] in `pinned.rs`): a kernel's `launch` takes a
//! `&Device` or a `&Stream` ([`LaunchTarget`], `launch/`). docs/host-api.md has the host
//! API's decisions: views, fill, copies, occupancy, cudarc interop, host threads, streams.
//!
//! Environment: `WARPSPEED_BACKEND=cuda|sim` forces a backend; `WARPSPEED_CACHE=off`
//! disables the disk cache, whose directory is `WARPSPEED_CACHE_DIR` (else
//! `$XDG_CACHE_HOME/warpspeed`, else `~/.cache/warpspeed`), where [`autotune`] also keeps
//! its choices (`WARPSPEED_AUTOTUNE=off`: no tuning, the defaults); `WARPSPEED_LOG_NVRTC=1`
//! prints NVRTC's warnings. The simulator ([`Device::simulator`]) reads `WARPSPEED_SIM_RACES=0|off`
//! (turns its data-race and uninitialised-shared-memory checks off; bounds and barrier
//! checks stay) and `WARPSPEED_SIM_SEED=<u64>` (polls the threads of each block in an order
//! shuffled by the seed, to shake out order-dependent bugs); see [`SimOptions`] and
//! docs/simulator.md.

pub mod autotune;
mod bf16_types;
mod config;
mod cuda;
mod device;
mod device_fn;
mod diagnostics;
mod dim;
mod error;
mod fp8;
mod generic;
mod gpu_struct;
mod half_math;
mod half_types;
mod kernel_abi;
mod launch;
mod memory;
pub mod mma;
mod multi;
mod pinned;
mod pinned_view;
#[cfg(test)]
mod prelude_wgmma_gen;
mod range;
mod release_int;
mod scalar;
mod sim;
pub mod swizzle;
mod tensor_map;
mod texel;
mod texture;
mod validate;
mod vector_types;
mod view;

pub use bf16_types::{bf16, bf16_from_f64, bf16x2};
pub use config::{DeviceLimits, LaunchConfig};
pub use cuda::compile;
pub use device::{Backend, Device, Event, Stream};
pub use device_fn::{DeviceFunction, NoConstParams};
pub use dim::{Dim3, DimInt, IntoDim3};
pub use error::{DeclaredLen, Error, RaceAccess, Result};
pub use fp8::{e4m3, e5m2};
pub use generic::{Float, Int, Scalar};
pub use gpu_struct::GpuStruct;
/// The `half` crate, whose `f16` kernels use (also re-exported as [`struct@f16`]).
pub use half;
pub use half_types::{f16, f16_from_f64, f16x2};
pub use kernel_abi::{KernelDef, KernelOptions};
pub use launch::LaunchTarget;
pub use memory::DeviceBuffer;
pub use multi::{
    CollectiveScalar, Communicator, Devices, Group, ReduceOp, DEFAULT_COLLECTIVE_TIMEOUT,
};
pub use pinned::PinnedBuffer;
pub use pinned_view::{AsPinnedView, AsPinnedViewMut, PinnedView, PinnedViewMut};
pub use scalar::KernelScalar;
pub use sim::SimOptions;
pub use tensor_map::TensorMap;
pub use texel::{AddressMode, Texel, TexelFormat};
pub use texture::Texture2D;
pub use vector_types::{f32x2, f32x4, f64x2, i32x2, i32x4, u32x2, u32x4, Vector};
pub use view::{AsDeviceView, AsDeviceViewMut, DeviceView, DeviceViewMut};

// The host API may be used from several host threads (docs/host-api.md): a `Device` and
// its buffers are `Send + Sync`, views are as a `&[T]`/`&mut [T]` is. Checked here so a
// field that is not (a raw pointer, an `Rc`) fails the build, not a user's program.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<DeviceBuffer<f32x4>>();
    send_sync::<DeviceView<'static, u8>>();
    send_sync::<DeviceViewMut<'static, f64>>();
    send_sync::<Error>();
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<PinnedBuffer<f32>>();
    send_sync::<PinnedView<'static, f32>>();
    send_sync::<PinnedViewMut<'static, u8>>();
    send_sync::<Texture2D<u8>>();
};

/// Items generated code uses. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::device_fn::{
        const_hole, device_fn, first_of_cycle, reaches, sim_call, without_const_args, DeviceFnRef,
        Recursion, SimCall,
    };
    pub use crate::generic::{cast, AsNum, GpuBits, GpuOps, GpuPrint, NumVal, ScalarName};
    pub use crate::gpu_struct::{
        c_layout_checks, pick_instance, read_array, sim_load_array, sim_store_array,
        struct_from_bits128, struct_to_bits128, write_array,
    };
    pub use crate::kernel_abi::*;
    pub use crate::launch::len::check_len;
    pub use crate::launch::{launch, launch_cooperative, proven_sites, KernelArgs};
    pub use crate::release_int::ReleaseInt;
    pub use crate::scalar::StructAccess;
    pub use crate::sim::{sim_load_field, sim_store_field};
    /// cudarc's element trait, which `#[gpu_struct]`s implement (`DeviceBuffer::into_cudarc`).
    pub use cudarc::driver::DeviceRepr;
}
