//! [`Texture2D`]: a 2-D texture a kernel reads with `tex.fetch(x, y)`, the out-of-range
//! coordinates resolved by its [`AddressMode`] (wrap, clamp, border).
//!
//! The texture owns its memory: `height` rows of `pitch` elements in a [`DeviceBuffer`],
//! the pitch the width rounded up to the device's texture pitch alignment, the first row
//! at the device's texture base alignment (CUDA's pitch-linear textures need both; a
//! user's packed buffer of, say, 500 bytes a row has neither). On a GPU a texture object
//! (`cuTexObjectCreate`, `cuda/texture.rs`) reads that memory; on the simulator the kernel
//! reads it itself (`sim/texture.rs`). The borrow rule: a launch borrows the texture
//! (`&Texture2D<T>`), and its memory is written only through `&mut Texture2D<T>`
//! ([`Texture2D::memory_mut`], [`Texture2D::copy_from`]), so no kernel can write the
//! memory it reads through the texture cache, and the memory cannot be freed under a
//! launch. docs/textures.md has the decisions. One of the files that match on the backend
//! (with `device.rs`, `memory.rs` and `launch/mod.rs`).

use cudarc::driver::SyncOnDrop;

use crate::cuda::{PitchTexture, TextureLimits};
use crate::device::{Device, Inner, Stream};
use crate::error::{Error, Result};
use crate::memory::DeviceBuffer;
use crate::scalar::TexArg;
use crate::sim::Access;
use crate::texel::{AddressMode, Texel};
use crate::view::{AsDeviceView, DeviceView, DeviceViewMut};

/// A 2-D texture of `T` on a device, for a kernel's `Texture2D<T>` parameter.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::{AddressMode, Device, Texture2D};
/// let dev = Device::simulator();
/// // 3 x 2 texels, row by row.
/// let tex = Texture2D::upload(&dev, &[1u8, 2, 3, 4, 5, 6], 3, 2, AddressMode::Wrap)?;
/// assert_eq!((tex.width(), tex.height()), (3, 2));
/// assert_eq!(tex.download()?, vec![1, 2, 3, 4, 5, 6]);
/// # Ok(()) }
/// ```
pub struct Texture2D<T: Texel> {
    /// The allocation: `offset` elements of alignment slack, then `height` rows of `pitch`.
    memory: DeviceBuffer<T>,
    offset: usize,
    width: usize,
    height: usize,
    pitch: usize,
    mode: AddressMode,
    /// The CUDA texture object; 0 on the simulator.
    handle: u64,
}

/// The simulator's texture limits: an H100's (base 512 bytes, pitch 32 bytes, 131072 x
/// 65000 texels, pitch up to 2 MiB), so a program sized for the simulator fits a GPU.
const SIM_LIMITS: TextureLimits = TextureLimits {
    base_alignment: 512,
    pitch_alignment: 32,
    max_width: 131072,
    max_height: 65000,
    max_pitch_bytes: 2097120,
};

impl<T: Texel> Texture2D<T> {
    /// A `width` x `height` texture of zeros on `dev`. [`Error::InvalidTexture`] when a
    /// size is 0 or above the device's limits for pitch-linear textures.
    pub fn new(dev: &Device, width: usize, height: usize, mode: AddressMode) -> Result<Self> {
        let limits = match &*dev.inner {
            Inner::Cuda(cuda) => cuda.texture_limits()?,
            Inner::Simulator(_) => SIM_LIMITS,
        };
        let size = std::mem::size_of::<T>();
        let pitch_bytes = (width * size).next_multiple_of(limits.pitch_alignment);
        let invalid = |reason: String| Error::InvalidTexture {
            what: format!("a {width} x {height} texture of {}", T::C_NAME),
            reason,
        };
        if width == 0 || height == 0 {
            return Err(invalid("a texture has at least one texel".into()));
        }
        if width > limits.max_width || height > limits.max_height {
            return Err(invalid(format!(
                "the device's pitch-linear textures are at most {} x {} texels",
                limits.max_width, limits.max_height
            )));
        }
        if pitch_bytes > limits.max_pitch_bytes {
            return Err(invalid(format!(
                "a row of {pitch_bytes} bytes is longer than the device's {} bytes",
                limits.max_pitch_bytes
            )));
        }
        let pitch = pitch_bytes / size;
        // The simulator's memory is 256-byte aligned, a GPU allocation at least as much:
        // the slack lets the first row start at the texture base alignment.
        let slack = match &*dev.inner {
            Inner::Cuda(_) => limits.base_alignment / size,
            Inner::Simulator(_) => 0,
        };
        let memory = dev.zeros::<T>(pitch * height + slack)?;
        let addr = memory.arg_at(0, None).0;
        let align = limits.base_alignment as u64;
        let offset = if slack == 0 {
            0
        } else {
            ((align - addr % align) % align) as usize / size
        };
        let handle = match &*dev.inner {
            Inner::Cuda(cuda) => cuda.create_texture(&PitchTexture {
                addr: addr + (offset * size) as u64,
                format: T::FORMAT,
                width,
                height,
                pitch_bytes,
                mode,
            })?,
            Inner::Simulator(_) => 0,
        };
        Ok(Texture2D {
            memory,
            offset,
            width,
            height,
            pitch,
            mode,
            handle,
        })
    }

    /// A texture holding `data`, `width` x `height` texels row by row (`data[y * width +
    /// x]` is texel (x, y)). [`Error::LengthMismatch`] when `data` has not `width *
    /// height` elements.
    pub fn upload(
        dev: &Device,
        data: &[T],
        width: usize,
        height: usize,
        mode: AddressMode,
    ) -> Result<Self> {
        check_len("Texture2D::upload", width, height, data.len())?;
        let mut tex = Self::new(dev, width, height, mode)?;
        let mut rows = vec![T::from_bits128(0); tex.pitch * height];
        for (y, row) in data.chunks_exact(width).enumerate() {
            rows[y * tex.pitch..y * tex.pitch + width].copy_from_slice(row);
        }
        tex.memory_mut().copy_from_host(&rows)?;
        Ok(tex)
    }

    /// A texture holding a copy of `src`, a buffer or view of `width * height` elements
    /// row by row, on `src`'s device (device to device, ordered like a launch).
    /// [`Error::LengthMismatch`] when the lengths differ.
    pub fn from_buffer(
        src: &impl AsDeviceView<Elem = T>,
        width: usize,
        height: usize,
        mode: AddressMode,
    ) -> Result<Self> {
        let view = src.as_device_view();
        check_len("Texture2D::from_buffer", width, height, view.len())?;
        let mut tex = Self::new(view.device(), width, height, mode)?;
        tex.copy_from(&view)?;
        Ok(tex)
    }

    /// Overwrites the texels with `src`, `width * height` elements row by row, device to
    /// device (one copy per row where the pitch is wider than a row). Needs the texture
    /// mutably: no launch reads it meanwhile. [`Error::LengthMismatch`] or
    /// [`Error::DeviceMismatch`] otherwise.
    pub fn copy_from(&mut self, src: &impl AsDeviceView<Elem = T>) -> Result<()> {
        let src = src.as_device_view();
        check_len("Texture2D::copy_from", self.width, self.height, src.len())?;
        let (w, h, pitch) = (self.width, self.height, self.pitch);
        let mut memory = self.memory_mut();
        if w == pitch {
            return memory.copy_from(&src);
        }
        for y in 0..h {
            memory
                .slice_mut(y * pitch..y * pitch + w)
                .copy_from(&src.slice(y * w..(y + 1) * w))?;
        }
        Ok(())
    }

    /// The texels, row by row (`width * height` elements), after every launch queued
    /// before has finished.
    pub fn download(&self) -> Result<Vec<T>> {
        let rows = self.memory().download()?;
        Ok(rows
            .chunks(self.pitch)
            .flat_map(|row| &row[..self.width])
            .copied()
            .collect())
    }

    /// The texture's memory: `height` rows of [`pitch`](Self::pitch) elements, texel (x, y)
    /// at `y * pitch + x` (the elements past `width` in a row are padding, never read).
    pub fn memory(&self) -> DeviceView<'_, T> {
        self.memory
            .slice(self.offset..self.offset + self.pitch * self.height)
    }

    /// The texture's memory, writable: pass `&mut tex.memory_mut()` to a kernel's `&mut
    /// [T]` parameter to compute the next texels in place (texel (x, y) at `y * pitch +
    /// x`). While the view lives the texture cannot be passed to a launch.
    pub fn memory_mut(&mut self) -> DeviceViewMut<'_, T> {
        let range = self.offset..self.offset + self.pitch * self.height;
        self.memory.slice_mut(range)
    }

    /// Width in texels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Elements from one row of [`memory`](Self::memory) to the next (at least the width).
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// What a fetch outside the texture reads.
    pub fn mode(&self) -> AddressMode {
        self.mode
    }

    /// The device the texture lives on.
    pub fn device(&self) -> &Device {
        self.memory.device()
    }

    /// The CUDA texture object (`cudaTextureObject_t`), for hand-written CUDA kernels;
    /// `None` on the simulator. It reads with point sampling, unnormalised coordinates,
    /// integers as integers, and clamps (`Wrap`, `Clamp`) or reads zero (`Border`) outside:
    /// wrapping is the kernel's (docs/textures.md). Valid while the texture lives.
    pub fn cuda_texture_object(&self) -> Option<u64> {
        (self.handle != 0).then_some(self.handle)
    }

    /// The device address of texel (0, 0) of [`memory`](Self::memory) (rows
    /// [`pitch`](Self::pitch) elements apart), for hand-written CUDA kernels that write
    /// the next texels; `None` on the simulator. Valid while the texture lives; the caller
    /// keeps kernels from writing it while a launch reads the texture.
    pub fn cuda_device_ptr(&self) -> Option<u64> {
        (self.handle != 0).then(|| self.memory.arg_at(self.offset, None).0)
    }

    /// The texture as an argument of a launch on `stream` (the device's own queue when
    /// `None`), on a GPU with cudarc's record that orders other streams after the launch,
    /// and its device.
    pub(crate) fn arg<'a>(
        &'a self,
        stream: Option<&'a Stream>,
    ) -> (TexArg, Option<SyncOnDrop<'a>>, &'a Device) {
        let (addr, guard, device) = self.memory.arg_at(self.offset, stream);
        let arg = TexArg {
            handle: self.handle,
            width: self.width as i32,
            height: self.height as i32,
            mode: self.mode.code(),
            addr,
            pitch: self.pitch as u64,
        };
        (arg, guard, device)
    }
}

impl<T: Texel> Texture2D<T> {
    /// The texture's memory for the simulator's stream-order checks (read).
    pub(crate) fn access(&self) -> Option<Access> {
        let range = self.offset..self.offset + self.pitch * self.height;
        self.memory.access(range, false)
    }
}

impl<T: Texel> Drop for Texture2D<T> {
    /// Destroys the texture object after the launches queued before have finished (an
    /// error there is reported again by the device's next operation).
    fn drop(&mut self) {
        if let (Inner::Cuda(cuda), true) = (&*self.memory.device().inner, self.handle != 0) {
            let _ = cuda.destroy_texture(self.handle);
        }
    }
}

impl<T: Texel> std::fmt::Debug for Texture2D<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Texture2D<{}>({} x {}, pitch {}, {:?})",
            T::C_NAME,
            self.width,
            self.height,
            self.pitch,
            self.mode
        )
    }
}

fn check_len(what: &str, width: usize, height: usize, found: usize) -> Result<()> {
    let expected = width.saturating_mul(height);
    if expected != found {
        return Err(Error::LengthMismatch {
            what: format!("{what} ({width} x {height} texels)"),
            expected,
            found,
        });
    }
    Ok(())
}
