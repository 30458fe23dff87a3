//! Texture objects on the GPU: `cuTexObjectCreate` over pitch-linear memory of a buffer,
//! `cuTexObjectDestroy`, and the alignments such memory needs. Every driver result goes
//! through [`Faults::check`](super::result::Faults::check). docs/textures.md has the
//! decisions (pitch-linear memory, point sampling, integer reads, clamp or border in the
//! texture unit with wrap done by the kernel).

use cudarc::driver::sys::{
    self, CUaddress_mode, CUarray_format, CUdevice_attribute as Attr, CUfilter_mode,
    CUresourcetype, CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC,
};

use super::device::CudaDevice;
use crate::error::Result;
use crate::texel::{AddressMode, TexelFormat};

/// A 2-D texture over memory already on the device: `width` x `height` texels of
/// `format`, rows `pitch_bytes` apart from `addr` on.
pub(crate) struct PitchTexture {
    pub(crate) addr: u64,
    pub(crate) format: TexelFormat,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) pitch_bytes: usize,
    pub(crate) mode: AddressMode,
}

/// What the driver allows for pitch-linear textures on a device.
pub(crate) struct TextureLimits {
    /// The start of the memory must be a multiple of this (bytes).
    pub(crate) base_alignment: usize,
    /// The pitch must be a multiple of this (bytes).
    pub(crate) pitch_alignment: usize,
    pub(crate) max_width: usize,
    pub(crate) max_height: usize,
    pub(crate) max_pitch_bytes: usize,
}

impl CudaDevice {
    /// The device's alignments and sizes for pitch-linear textures.
    pub(crate) fn texture_limits(&self) -> Result<TextureLimits> {
        self.faults.alive()?;
        let ctx = self.stream.context();
        let get = |attr: Attr| -> Result<usize> {
            let what = format!("reading device attribute {attr:?}");
            self.faults
                .check(ctx.attribute(attr), &what, None)
                .map(|v| v.max(1) as usize)
        };
        Ok(TextureLimits {
            base_alignment: get(Attr::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?,
            pitch_alignment: get(Attr::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT)?,
            max_width: get(Attr::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH)?,
            max_height: get(Attr::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT)?,
            max_pitch_bytes: get(Attr::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH)?,
        })
    }

    /// A texture object reading `tex` with point sampling, unnormalised coordinates and
    /// integer formats read as integers (`f32` texels as their bits). Wrap is done by the kernel before it fetches
    /// (CUDA wraps only normalised coordinates), so a `Wrap` texture clamps in hardware,
    /// which the kernel's in-range coordinates never reach.
    pub(crate) fn create_texture(&self, tex: &PitchTexture) -> Result<u64> {
        const WHAT: &str = "creating a texture object (cuTexObjectCreate)";
        self.faults.alive()?;
        let bound = self.stream.context().bind_to_thread();
        self.faults.check(bound, WHAT, None)?;
        // SAFETY: both descriptors are plain C structs for which all-zero bytes are valid
        // (zero flags, no mipmaps, border colour 0); every field that matters is set below.
        let mut res: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
        res.res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
            devPtr: tex.addr,
            format: array_format(tex.format),
            numChannels: 1,
            width: tex.width,
            height: tex.height,
            pitchInBytes: tex.pitch_bytes,
        };
        // SAFETY: as above.
        let mut desc: CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        let mode = match tex.mode {
            AddressMode::Wrap | AddressMode::Clamp => CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
            AddressMode::Border => CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
        };
        desc.addressMode = [mode; 3];
        desc.filterMode = CUfilter_mode::CU_TR_FILTER_MODE_POINT;
        desc.mipmapFilterMode = CUfilter_mode::CU_TR_FILTER_MODE_POINT;
        // Integers as integers (not normalised to [0, 1]); f32 texels are 32-bit integers
        // to the texture unit (`array_format`), read as such and reinterpreted.
        desc.flags = sys::CU_TRSF_READ_AS_INTEGER;
        let mut handle: sys::CUtexObject = 0;
        // SAFETY: the context is bound; `res` describes memory the caller keeps allocated
        // (and checked aligned and large enough) for the life of the texture object, which
        // the caller destroys with `destroy_texture`; the pointers are to live locals.
        let created =
            unsafe { sys::cuTexObjectCreate(&mut handle, &res, &desc, std::ptr::null()).result() };
        self.faults.check(created, WHAT, None)?;
        Ok(handle)
    }

    /// Destroys a texture object once every launch queued before has finished (using a
    /// handle after its destruction is undefined behaviour, and launches are asynchronous).
    /// The wait settles nothing: out-of-bounds records and the unsynchronised launches are
    /// left to the next synchronisation, which reports them; a fault seen here is recorded
    /// by `Faults::check`, so the device's next operation reports it.
    pub(crate) fn destroy_texture(&self, handle: u64) -> Result<()> {
        const WHAT: &str = "destroying a texture object (cuTexObjectDestroy)";
        self.faults.alive()?;
        self.faults.check(self.wait_all(), WHAT, None)?;
        let bound = self.stream.context().bind_to_thread();
        self.faults.check(bound, WHAT, None)?;
        // SAFETY: `handle` came from `create_texture` on this context and is destroyed once;
        // no queued launch uses it any more (the device and its streams were synchronised
        // above).
        let destroyed = unsafe { sys::cuTexObjectDestroy(handle).result() };
        self.faults.check(destroyed, WHAT, None)
    }
}

fn array_format(f: TexelFormat) -> CUarray_format {
    match f {
        TexelFormat::U8 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
        TexelFormat::I8 => CUarray_format::CU_AD_FORMAT_SIGNED_INT8,
        TexelFormat::U16 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16,
        TexelFormat::I16 => CUarray_format::CU_AD_FORMAT_SIGNED_INT16,
        TexelFormat::U32 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32,
        TexelFormat::I32 => CUarray_format::CU_AD_FORMAT_SIGNED_INT32,
        // Read as bits: point sampling needs no float path, and bits are what a load
        // gives (the kernel's `__uint_as_float`, prelude_tex.cuh).
        TexelFormat::F32 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32,
    }
}
