//! [`TensorMap`]: a 2-D tensor in device memory as Hopper's Tensor Memory Accelerator
//! reads it (`CUtensorMap`), for the kernel language's `tma_load_2d`.
//! docs/tensor-cores.md, "Hopper: mbarriers and TMA", has the decisions.

use std::marker::PhantomData;

use crate::device::Inner;
use crate::error::{Error, Result};
use crate::scalar::{KernelScalar, TmaArg};
use crate::swizzle::Swizzle;
use crate::view::{AsDeviceView, DeviceView};

/// A row-major `rows` x `cols` tensor of `T` in device memory (`cols` innermost, rows
/// packed), read by boxes of `box_rows` x `box_cols` elements: what a kernel's `&TensorMap<T>`
/// parameter takes and `tma_load_2d(&mut tile[..], map, row, col, &bar)` copies from.
///
/// On a GPU it is the `CUtensorMap` that `cuTensorMapEncodeTiled` makes (no interleave,
/// no L2 promotion, elements outside the tensor read as zero), passed to the kernel as a
/// `const __grid_constant__` parameter; the simulator keeps the memory and the geometry.
/// The map borrows the memory, which therefore stays alive and unwritten while it lives.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::swizzle::Swizzle;
/// let dev = warpspeed::Device::simulator();
/// let buf = dev.upload(&vec![1.0f32; 64 * 32])?;
/// let map = warpspeed::TensorMap::tiled_2d(&buf, [64, 32], [8, 32], Swizzle::B128)?;
/// assert_eq!(map.box_dims(), [8, 32]);
/// // A box row of 64 bytes is not the 128-byte swizzle's row.
/// assert!(warpspeed::TensorMap::tiled_2d(&buf, [64, 32], [8, 16], Swizzle::B128).is_err());
/// # Ok(()) }
/// ```
pub struct TensorMap<'a, T: KernelScalar> {
    view: DeviceView<'a, T>,
    arg: TmaArg,
    _t: PhantomData<T>,
}

impl<'a, T: KernelScalar> TensorMap<'a, T> {
    /// The map of `buf` (a [`DeviceBuffer`](crate::DeviceBuffer) or a view of one, holding
    /// exactly `rows * cols` elements) as a `[rows, cols]` tensor read in boxes of
    /// `[box_rows, box_cols]`, landing in shared memory under `swizzle`.
    ///
    /// [`Error::InvalidTensorMap`] when the TMA cannot read it so: an element type of
    /// other than 1, 2, 4 or 8 bytes; a dimension of 0 or over 2^32; a length other than
    /// `rows * cols`; a row (`cols` elements) that is not a multiple of 16 bytes while
    /// there are several rows; memory that does not start at a 16-byte boundary; a box
    /// dimension outside 1..=256; a box row (`box_cols` elements) that is not a multiple of
    /// 16 bytes, or, under a swizzle, not exactly the swizzle's row
    /// ([`Swizzle::row_bytes`]: 32, 64 or 128 bytes); or a GPU that refuses the encoding.
    pub fn tiled_2d(
        buf: &'a (impl AsDeviceView<Elem = T> + ?Sized),
        [rows, cols]: [usize; 2],
        [box_rows, box_cols]: [usize; 2],
        swizzle: Swizzle,
    ) -> Result<TensorMap<'a, T>> {
        let view = buf.as_device_view();
        let size = std::mem::size_of::<T>();
        let invalid = |reason: String| {
            Err(Error::InvalidTensorMap {
                what: format!(
                    "a {rows} x {cols} tensor of {} in boxes of {box_rows} x {box_cols}, {swizzle:?}",
                    T::C_NAME
                ),
                reason,
            })
        };
        if ![1, 2, 4, 8].contains(&size) {
            return invalid(format!(
                "the TMA copies elements of 1, 2, 4 or 8 bytes, and {} has {size}",
                T::C_NAME
            ));
        }
        if rows == 0 || cols == 0 || rows > 1 << 32 || cols > 1 << 32 {
            return invalid("each dimension is 1 to 2^32 elements".into());
        }
        if rows.checked_mul(cols) != Some(view.len()) {
            return invalid(format!(
                "the memory holds {} elements, not rows * cols = {}",
                view.len(),
                rows.saturating_mul(cols)
            ));
        }
        let row_bytes = cols * size;
        if rows > 1 && (!row_bytes.is_multiple_of(16) || row_bytes >= 1 << 40) {
            return invalid(format!(
                "a row is {row_bytes} bytes, and the TMA needs a multiple of 16 (below 2^40)"
            ));
        }
        if !(1..=256).contains(&box_rows) || !(1..=256).contains(&box_cols) {
            return invalid("each box dimension is 1 to 256 elements".into());
        }
        let box_row_bytes = box_cols * size;
        if !box_row_bytes.is_multiple_of(16) {
            return invalid(format!(
                "a box row is {box_row_bytes} bytes, and the TMA needs a multiple of 16"
            ));
        }
        if swizzle != Swizzle::None && box_row_bytes != swizzle.row_bytes() {
            return invalid(format!(
                "a box row is {box_row_bytes} bytes, and the {swizzle:?} swizzle's rows are {} \
                 (a swizzled box's row is exactly one swizzle row)",
                swizzle.row_bytes()
            ));
        }
        let (addr, _guard, device) = view.arg(None);
        if addr % 16 != 0 || !(view.offset() * size).is_multiple_of(16) {
            return invalid("the memory must start at a 16-byte boundary".into());
        }
        let mut arg = TmaArg {
            map: [0; 16],
            addr,
            rows: rows as u64,
            cols: cols as u64,
            pitch: cols as u64,
            box_rows: box_rows as u32,
            box_cols: box_cols as u32,
            swizzle,
            box_word: (box_rows * box_cols) as u64
                | (crate::sim::tile_alignment(swizzle) as u64) << 32,
        };
        if let Inner::Cuda(_) = &*device.inner {
            match crate::cuda::tensor_map::encode_tiled_2d(&arg, size) {
                Ok(map) => arg.map = map,
                Err(reason) => return invalid(reason),
            }
        }
        Ok(TensorMap {
            view,
            arg,
            _t: PhantomData,
        })
    }

    /// `[rows, cols]` of the tensor.
    pub fn dims(&self) -> [usize; 2] {
        [self.arg.rows as usize, self.arg.cols as usize]
    }

    /// `[box_rows, box_cols]`: what one `tma_load_2d` copies.
    pub fn box_dims(&self) -> [usize; 2] {
        [self.arg.box_rows as usize, self.arg.box_cols as usize]
    }

    /// The elements of one box (the length a `tma_load_2d` tile must have).
    pub fn box_len(&self) -> usize {
        self.arg.box_rows as usize * self.arg.box_cols as usize
    }

    /// The bytes one box completes on its mbarrier (`arrive_expect_tx`'s argument).
    pub fn box_bytes(&self) -> u32 {
        (self.box_len() * std::mem::size_of::<T>()) as u32
    }

    /// How a box lands in shared memory.
    pub fn swizzle(&self) -> Swizzle {
        self.arg.swizzle
    }

    /// The encoded `CUtensorMap` for hand-written CUDA kernels; `None` on the simulator.
    pub fn cuda_tensor_map(&self) -> Option<[u64; 16]> {
        matches!(&*self.view.device().inner, Inner::Cuda(_)).then_some(self.arg.map)
    }

    /// The memory as a kernel argument's view (launches borrow it).
    pub(crate) fn view(&self) -> DeviceView<'a, T> {
        self.view
    }

    /// The packed argument, the address `addr` of the memory as this launch sees it.
    pub(crate) fn arg(&self, addr: u64) -> TmaArg {
        TmaArg {
            addr,
            ..self.arg.clone()
        }
    }
}

impl<T: KernelScalar> std::fmt::Debug for TensorMap<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TensorMap<{}>({} x {}, boxes of {} x {}, {:?})",
            T::C_NAME,
            self.arg.rows,
            self.arg.cols,
            self.arg.box_rows,
            self.arg.box_cols,
            self.arg.swizzle
        )
    }
}
