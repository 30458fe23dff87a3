//! [`SimTexture`]: a `Texture2D<T>` parameter inside a simulated kernel. A fetch applies
//! the texture's [`AddressMode`] to the coordinates exactly as the GPU does (the emitted C
//! wraps, the texture unit clamps or reads the zero border) and reads the texel like a
//! `&[T]` element. The kernel cannot write the texture's memory while it reads it (the
//! launch borrows the texture), so reads need no race checks.

use super::ctx::ThreadCtx;
use super::handles::Slice;
use super::site::SrcLoc;
use super::track::Track;
use crate::scalar::{Arg, KernelScalar, TexArg};
use crate::texel::AddressMode;

/// A 2-D texture in a simulated kernel: `width` x `height` texels, rows `pitch` apart.
pub struct SimTexture<T> {
    texels: Slice<T>,
    width: usize,
    height: usize,
    pitch: usize,
    mode: AddressMode,
}

impl<T> Clone for SimTexture<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimTexture<T> {}

impl<T: KernelScalar> SimTexture<T> {
    pub(crate) fn new(arg: &TexArg) -> SimTexture<T> {
        let (width, height) = (arg.width.max(1) as usize, arg.height.max(1) as usize);
        let pitch = arg.pitch as usize;
        // The last row needs only `width` elements.
        let len = (height - 1) * pitch + width;
        SimTexture {
            texels: Slice::new(arg.addr as usize as *const T, len, Track::NONE),
            width,
            height,
            pitch,
            mode: AddressMode::from_code(arg.mode),
        }
    }

    /// `tex.fetch(x, y)` at `at`: the texel the address mode gives, or zero for a border
    /// read.
    pub fn fetch(&self, ctx: &ThreadCtx<'_>, x: i32, y: i32, at: &'static SrcLoc) -> T {
        match (
            self.mode.resolve(x, self.width),
            self.mode.resolve(y, self.height),
        ) {
            (Some(x), Some(y)) => self.texels.load(ctx, y * self.pitch + x, at),
            _ => T::from_bits128(0),
        }
    }

    /// `tex.width()`.
    pub fn width(&self) -> usize {
        self.width
    }

    /// `tex.height()`.
    pub fn height(&self) -> usize {
        self.height
    }
}

impl ThreadCtx<'_> {
    /// Texture argument `i` (`Texture2D<T>`).
    pub fn arg_texture<T: KernelScalar>(&self, i: usize) -> SimTexture<T> {
        match self.arg(i) {
            Arg::Texture(t) => SimTexture::new(t),
            Arg::Slice { .. } | Arg::Scalar { .. } | Arg::Bytes(_) | Arg::TensorMap(_) => {
                panic!("kernel ABI mismatch: argument {i} is not a texture")
            }
        }
    }
}
