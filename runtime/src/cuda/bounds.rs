//! Bounds checks on the GPU, host side. Every kernel's C indexes through `ws_at` (see
//! prelude.cuh), which writes the first out-of-bounds access of a launch into the module's
//! `ws_oob` record and sends the access to a sink. After a launch the record's address is
//! armed on the device; at the next synchronisation (a download, `Device::synchronize`)
//! each armed record is read, reset, and a written one becomes `Error::OutOfBounds` with
//! the kernel, the Rust file:line, the block and thread, the index and the length.

use std::sync::{Mutex, PoisonError};

use cudarc::driver::{result, sys, CudaModule, CudaStream, DevicePtr};

use super::result::Faults;
use crate::dim::Dim3;
use crate::error::{DeclaredLen, Error, Result};

/// The layout of `ws_oob_t` in prelude.cuh.
const RECORD_BYTES: usize = 64;
const WRITTEN: u32 = 2;

/// The device address of a module's `ws_oob` record; `None` when the module has none (a
/// kernel written in C by hand).
pub(crate) fn record_address(
    module: &std::sync::Arc<CudaModule>,
    stream: &std::sync::Arc<CudaStream>,
    faults: &Faults,
    kernel: &str,
) -> Result<Option<u64>> {
    let view = match module.get_global("ws_oob", stream) {
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND => return Ok(None),
        found => faults.check(
            found,
            "finding the bounds record in the CUBIN",
            Some(kernel),
        )?,
    };
    if view.len() < RECORD_BYTES {
        return Ok(None);
    }
    let (ptr, _sync) = view.device_ptr(stream);
    Ok(Some(ptr))
}

/// Records to read at the next synchronisation, with their kernels' names.
#[derive(Default)]
pub(crate) struct ArmedRecords(Mutex<Vec<(u64, &'static str)>>);

impl ArmedRecords {
    /// After a launch of `kernel`, whose module's record is at `address`.
    pub(crate) fn arm(&self, address: u64, kernel: &'static str) {
        let mut armed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !armed.iter().any(|&(a, _)| a == address) {
            armed.push((address, kernel));
        }
    }

    /// Reads and resets every armed record; the stream has been synchronised and the
    /// context is bound. The first written record is the error (or the driver's, should
    /// reading one fail).
    pub(crate) fn check(&self, faults: &Faults) -> Result<()> {
        const WHAT: &str = "reading the bounds records";
        let armed = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        let mut first = None;
        for (address, kernel) in armed {
            let mut raw = [0u8; RECORD_BYTES];
            // SAFETY: `address` is a live module global of RECORD_BYTES bytes in the bound
            // context (modules stay loaded for the device's life); no kernel runs.
            let read = unsafe { result::memcpy_dtoh_sync(&mut raw, address) };
            faults.check(read, WHAT, Some(kernel))?;
            if u32_at(&raw, 0) != WRITTEN {
                continue;
            }
            // SAFETY: as above; zero is the record's free state.
            let reset = unsafe { result::memset_d8_sync(address, 0, RECORD_BYTES) };
            faults.check(reset, WHAT, Some(kernel))?;
            if first.is_none() {
                first = Some(record_error(kernel, &raw));
            }
        }
        first.map_or(Ok(()), Err)
    }
}

/// The error a written record stands for: an index out of bounds, or (with `decl` set) a
/// slice shorter than a device function's `#[len(..)]`.
fn record_error(kernel: &str, raw: &[u8; RECORD_BYTES]) -> Error {
    let file = read_c_string(u64_at(raw, 24));
    let line = u32_at(raw, 4);
    let (index, len) = (u64_at(raw, 8), u64_at(raw, 16));
    let block = Dim3::new(u32_at(raw, 32), u32_at(raw, 36), u32_at(raw, 40));
    let thread = Dim3::new(u32_at(raw, 44), u32_at(raw, 48), u32_at(raw, 52));
    let decl = u64_at(raw, 56);
    if decl == 0 {
        return Error::OutOfBounds {
            kernel: kernel.to_string(),
            file,
            line,
            index,
            len,
            block,
            thread,
        };
    }
    let decl = read_c_string(decl);
    let mut parts = decl.splitn(3, '\t').map(str::to_string);
    let mut part = || parts.next().unwrap_or_default();
    Error::SliceTooShort {
        kernel: kernel.to_string(),
        decl: Box::new(DeclaredLen {
            function: part(),
            param: part(),
            declared: part(),
            file,
            line,
        }),
        // The C saturates at u64::MAX: a length past it.
        need: (index != u64::MAX).then_some(index),
        len,
        at: Some((block, thread)),
    }
}

fn u32_at(raw: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(raw[at..at + 4].try_into().unwrap_or_default())
}

fn u64_at(raw: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(raw[at..at + 8].try_into().unwrap_or_default())
}

/// The Rust file name the kernel passed as a string literal (in the module's global
/// memory), read in small pieces up to its NUL.
fn read_c_string(address: u64) -> String {
    let mut bytes = Vec::new();
    let mut at = address as sys::CUdeviceptr;
    while address != 0 && bytes.len() < 1024 {
        let mut piece = [0u8; 16];
        // SAFETY: reads device memory of the bound context.
        if unsafe { result::memcpy_dtoh_sync(&mut piece, at) }.is_err() {
            // The name may end less than 16 bytes before the end of the module's memory:
            // byte by byte, then (a failure ends the name).
            for (i, b) in piece.iter_mut().enumerate() {
                // SAFETY: as above, one byte.
                let one =
                    unsafe { result::memcpy_dtoh_sync(std::slice::from_mut(b), at + i as u64) };
                if one.is_err() {
                    *b = 0;
                    break;
                }
                if *b == 0 {
                    break;
                }
            }
        }
        match piece.iter().position(|&b| b == 0) {
            Some(end) => {
                bytes.extend_from_slice(&piece[..end]);
                break;
            }
            None => bytes.extend_from_slice(&piece),
        }
        at += 16;
    }
    if bytes.is_empty() {
        "<unknown file>".into()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
