//! Tensor maps on the GPU: `cuTensorMapEncodeTiled` of a 2-D row-major tensor (the
//! checks that give clear messages are `tensor_map.rs`'s, before this).

use cudarc::driver::sys::{
    self, CUtensorMapDataType as DataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};

use crate::scalar::TmaArg;
use crate::swizzle::Swizzle;

/// The 128-byte `CUtensorMap` of `arg` for elements of `size` bytes (1, 2, 4 or 8: the
/// TMA copies bits, so each size is its unsigned integer type), or why the driver refused.
pub(crate) fn encode_tiled_2d(arg: &TmaArg, size: usize) -> Result<[u64; 16], String> {
    let data_type = match size {
        1 => DataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        2 => DataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        4 => DataType::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        8 => DataType::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        _ => return Err(format!("no TMA data type of {size} bytes")),
    };
    let swizzle = match arg.swizzle {
        Swizzle::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::B64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::B128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    // Innermost first, as the driver counts dimensions.
    let dims: [u64; 2] = [arg.cols, arg.rows];
    // The stride of every dimension but the innermost, in bytes.
    let strides: [u64; 1] = [arg.pitch * size as u64];
    let boxes: [u32; 2] = [arg.box_cols, arg.box_rows];
    let element_strides: [u32; 2] = [1, 1];
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every pointer is to a live local of the length rank 2 asks for; the driver
    // writes only `map`.
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            data_type,
            2,
            arg.addr as usize as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    match result {
        sys::CUresult::CUDA_SUCCESS => Ok(map.opaque),
        e => Err(format!("cuTensorMapEncodeTiled refused it: {e:?}")),
    }
}
