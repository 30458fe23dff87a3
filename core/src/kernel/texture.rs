//! Textures in a kernel: `tex.fetch(x, y)` on a `&Texture2D<T>` parameter
//! (docs/textures.md). `tex.width()` and `tex.height()` are [`Texture2D`]'s own methods,
//! the same `usize` in a kernel as on the host.

use super::outside_kernel;
use crate::{Texel, Texture2D};

/// Reading a texture in a kernel. Brought in by the prelude.
pub trait TextureFetch<T> {
    /// Texel (x, y) of the texture. A coordinate outside `0..width` (`0..height`) is
    /// resolved by the texture's [`AddressMode`](crate::AddressMode): wrapped around,
    /// clamped to the edge, or read as zero (border). `i32` coordinates, so that `x - 1`
    /// at the left edge is a coordinate the mode resolves. On the GPU a read through the
    /// texture cache (`tex.2d.v4` PTX); on the simulator the same addressing.
    fn fetch(&self, x: i32, y: i32) -> T;
}

impl<T: Texel> TextureFetch<T> for Texture2D<T> {
    fn fetch(&self, x: i32, y: i32) -> T {
        let _ = (x, y);
        outside_kernel("Texture2D::fetch")
    }
}
