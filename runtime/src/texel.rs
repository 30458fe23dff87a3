//! What a texture is made of, shared by both backends and the generated code: the element
//! types a texture may hold ([`Texel`]), the addressing of coordinates outside it
//! ([`AddressMode`]). A leaf: imports only `scalar` (which holds `TexArg`, one texture as
//! a packed kernel argument). docs/textures.md has the decisions.

use crate::scalar::KernelScalar;

/// What a fetch at a coordinate outside `0..width` (or `0..height`) reads; the same mode
/// for both axes.
///
/// | mode | `fetch(x, y)` with `x` outside `0..width` |
/// |---|---|
/// | `Wrap` | the texel at `x.rem_euclid(width)` (the texture repeats) |
/// | `Clamp` | the texel at `x.clamp(0, width - 1)` (the edge repeats) |
/// | `Border` | zero (`0`, `0.0`), whatever the other coordinate |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Coordinates wrap around: the texture tiles the plane (a torus, as Life's grid).
    Wrap,
    /// Coordinates are clamped to the edge: outside reads the nearest edge texel.
    Clamp,
    /// Outside reads zero.
    Border,
}

impl AddressMode {
    /// The value the kernel receives for this mode (`ws_tex2d_fetch`'s `mode` in the
    /// prelude: 0 wrap, 1 clamp, 2 border).
    pub fn code(self) -> i32 {
        match self {
            AddressMode::Wrap => 0,
            AddressMode::Clamp => 1,
            AddressMode::Border => 2,
        }
    }

    /// The mode back from its [`code`](Self::code) (an unknown code reads as `Border`).
    pub fn from_code(code: i32) -> AddressMode {
        match code {
            0 => AddressMode::Wrap,
            1 => AddressMode::Clamp,
            _ => AddressMode::Border,
        }
    }

    /// The texel index a coordinate `c` reads along an axis of `n > 0` texels, or `None`
    /// for a border read (zero). The reference of the addressing, which the simulator uses
    /// and the GPU's emitted C computes (wrap) or its texture unit applies (clamp, border).
    pub fn resolve(self, c: i32, n: usize) -> Option<usize> {
        let n = i64::try_from(n).unwrap_or(i64::MAX).max(1);
        let c = i64::from(c);
        match self {
            AddressMode::Wrap => Some(c.rem_euclid(n) as usize),
            AddressMode::Clamp => Some(c.clamp(0, n - 1) as usize),
            AddressMode::Border => (0..n).contains(&c).then_some(c as usize),
        }
    }
}

/// The element format of a texture, as the driver names it (`CU_AD_FORMAT_*`) and the
/// kernel reads it back (`tex.2d.v4.u32` or `.s32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFormat {
    /// `u8`: `CU_AD_FORMAT_UNSIGNED_INT8`, read as an integer.
    U8,
    /// `i8`: `CU_AD_FORMAT_SIGNED_INT8`.
    I8,
    /// `u16`: `CU_AD_FORMAT_UNSIGNED_INT16`.
    U16,
    /// `i16`: `CU_AD_FORMAT_SIGNED_INT16`.
    I16,
    /// `u32`: `CU_AD_FORMAT_UNSIGNED_INT32`.
    U32,
    /// `i32`: `CU_AD_FORMAT_SIGNED_INT32`.
    I32,
    /// `f32`: read as its bits (`CU_AD_FORMAT_UNSIGNED_INT32`, reinterpreted by the kernel).
    F32,
}

/// The element types a [`Texture2D`](crate::Texture2D) may hold: the 8-, 16- and 32-bit
/// integers and `f32`, the one-channel formats a CUDA texture reads back exactly (as the
/// integer itself, not normalised to `[0, 1]`). `f64`, 64-bit integers, `bool`, the half
/// and vector types are not texture formats here (docs/textures.md).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a texture's element: a texture holds u8, i8, u16, i16, u32, i32 or f32",
    label = "a texture of `{Self}`"
)]
pub trait Texel: KernelScalar {
    /// The driver's format for this type.
    const FORMAT: TexelFormat;
}

macro_rules! texel {
    ($($t:ty => $f:ident),*) => {$(
        impl Texel for $t {
            const FORMAT: TexelFormat = TexelFormat::$f;
        }
    )*};
}

texel!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32);

#[cfg(test)]
mod tests {
    use super::AddressMode::*;

    #[test]
    fn resolve_follows_the_table() {
        assert_eq!(Wrap.resolve(-1, 5), Some(4));
        assert_eq!(Wrap.resolve(5, 5), Some(0));
        assert_eq!(
            Wrap.resolve(i32::MIN, 7),
            Some((i64::from(i32::MIN)).rem_euclid(7) as usize)
        );
        assert_eq!(Clamp.resolve(-3, 5), Some(0));
        assert_eq!(Clamp.resolve(9, 5), Some(4));
        assert_eq!(Clamp.resolve(2, 5), Some(2));
        assert_eq!(Border.resolve(-1, 5), None);
        assert_eq!(Border.resolve(5, 5), None);
        assert_eq!(Border.resolve(4, 5), Some(4));
    }
}
