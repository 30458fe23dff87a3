//! Bounds checks on the GPU, host side. Every kernel's C indexes through `ws_at` (see
//! prelude.cuh), which writes the first out-of-bounds access of a launch into the module's
//! `ws_oob` record and sends the access to a sink. After a launch the record's address is
//! armed on the device; at the next synchronisation (a download, `Device::synchronize`)
//! each armed record is read, reset, and a written one becomes `Error::OutOfBounds` with
//! the kernel, the Rust file:line, the block and thread, the index and the length.
//!
//! Reading a record is a device-to-host copy (several microseconds), and a program that
//! synchronises after every few launches (seed 000's scan: 48 waits) would pay it at
//! each. So a written record also raises one flag per device in page-locked host memory
//! mapped into the device ([`DirtyFlag`]), whose device address each module gets in its
//! `ws_oob_dirty` when it is loaded: a synchronisation reads the records only when the
//! flag is up, and otherwise costs the driver's synchronisation alone.

use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::{result, sys, CudaModule, CudaStream, DevicePtr};

use super::result::Faults;
use crate::dim::Dim3;
use crate::error::{DeclaredLen, Error, Result};

/// The layout of `ws_oob_t` in prelude.cuh.
const RECORD_BYTES: usize = 64;
const WRITTEN: u32 = 2;

/// One `u32` of page-locked host memory mapped into the device: 0, or 1 once a kernel
/// has written a bounds record since the host last looked.
struct DirtyFlag {
    host: *mut u32,
    device: u64,
}

// SAFETY: the flag is one u32 the device writes (1) while kernels run and the host reads
// and clears (volatile accesses) only after a synchronisation, under ArmedRecords' lock;
// the pointers stay valid until Drop.
unsafe impl Send for DirtyFlag {}
// SAFETY: as above.
unsafe impl Sync for DirtyFlag {}

impl DirtyFlag {
    /// Allocates the flag in the bound context (a module is being loaded).
    fn new(faults: &Faults, kernel: &str) -> Result<DirtyFlag> {
        const WHAT: &str = "allocating the bounds checks' flag in mapped host memory";
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: allocates 4 bytes of page-locked host memory; freed in Drop.
        let host = faults.check(unsafe { result::malloc_host(4, flags) }, WHAT, Some(kernel))?;
        let host = host as *mut u32;
        // SAFETY: `host` is a fresh allocation of 4 bytes, aligned for u32.
        unsafe { host.write_volatile(0) };
        let mut device: sys::CUdeviceptr = 0;
        // SAFETY: `host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP in this context.
        let mapped =
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) }.result();
        if let Err(e) = faults.check(mapped, WHAT, Some(kernel)) {
            // SAFETY: allocated above and not shared yet.
            let _ = unsafe { result::free_host(host.cast()) };
            return Err(e);
        }
        Ok(DirtyFlag { host, device })
    }

    /// Whether a record was written since the last call; lowers the flag.
    fn take(&self) -> bool {
        // SAFETY: a live allocation (see the impls above); no kernel runs (synchronised).
        unsafe {
            let up = self.host.read_volatile() != 0;
            if up {
                self.host.write_volatile(0);
            }
            up
        }
    }
}

impl Drop for DirtyFlag {
    fn drop(&mut self) {
        // SAFETY: allocated by malloc_host in DirtyFlag::new; the device (and with it
        // every module that points here) is being dropped.
        let _ = unsafe { result::free_host(self.host.cast()) };
    }
}

/// Records to read at the next synchronisation, with their kernels' names.
#[derive(Default)]
pub(crate) struct ArmedRecords {
    armed: Mutex<Vec<(u64, &'static str)>>,
    dirty: OnceLock<DirtyFlag>,
}

impl ArmedRecords {
    /// The device address of a just-loaded module's `ws_oob` record, after pointing the
    /// module's `ws_oob_dirty` at this device's flag; `None` when the module cannot write a
    /// record: it has none (a kernel written in C by hand), or NVRTC dropped the unused
    /// `ws_oob_dirty` because no check calls `ws_oob_record` (which uses both). The context
    /// is bound.
    pub(crate) fn register(
        &self,
        module: &std::sync::Arc<CudaModule>,
        stream: &std::sync::Arc<CudaStream>,
        faults: &Faults,
        kernel: &str,
    ) -> Result<Option<u64>> {
        let Some(record) = global(module, stream, faults, kernel, "ws_oob", RECORD_BYTES)? else {
            return Ok(None);
        };
        let Some(pointer) = global(module, stream, faults, kernel, "ws_oob_dirty", 8)? else {
            return Ok(None);
        };
        let flag = match self.dirty.get() {
            Some(flag) => flag,
            None => {
                let new = DirtyFlag::new(faults, kernel)?;
                self.dirty.get_or_init(|| new)
            }
        };
        // SAFETY: `pointer` is the module's 8-byte `unsigned int*` global in the bound
        // context; no kernel of the module has run yet.
        let set = unsafe { result::memcpy_htod_sync(pointer, &flag.device.to_le_bytes()) };
        faults.check(
            set,
            "pointing the module at the bounds checks' flag",
            Some(kernel),
        )?;
        Ok(Some(record))
    }

    /// After a launch of `kernel`, whose module's record is at `address`.
    pub(crate) fn arm(&self, address: u64, kernel: &'static str) {
        let mut armed = self.armed.lock().unwrap_or_else(PoisonError::into_inner);
        if !armed.iter().any(|&(a, _)| a == address) {
            armed.push((address, kernel));
        }
    }

    /// Reads and resets every armed record, if the flag says one was written; the stream
    /// has been synchronised and the context is bound. The first written record is the
    /// error (or the driver's, should reading one fail).
    pub(crate) fn check(&self, faults: &Faults) -> Result<()> {
        const WHAT: &str = "reading the bounds records";
        let armed = std::mem::take(&mut *self.armed.lock().unwrap_or_else(PoisonError::into_inner));
        // Armed records mean a flag: every module with a record got it when loaded.
        if armed.is_empty() || !self.dirty.get().is_some_and(DirtyFlag::take) {
            return Ok(());
        }
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

/// The device address of the module global `name` of at least `bytes` bytes; `None` when
/// the module has none.
fn global(
    module: &std::sync::Arc<CudaModule>,
    stream: &std::sync::Arc<CudaStream>,
    faults: &Faults,
    kernel: &str,
    name: &str,
    bytes: usize,
) -> Result<Option<u64>> {
    let view = match module.get_global(name, stream) {
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND => return Ok(None),
        found => faults.check(
            found,
            "finding the bounds record in the CUBIN",
            Some(kernel),
        )?,
    };
    if view.len() < bytes {
        return Ok(None);
    }
    let (ptr, _sync) = view.device_ptr(stream);
    Ok(Some(ptr))
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
/// memory), read up to its NUL. The read stays inside the module's allocation
/// (`cuMemGetAddressRange`), so no copy ever fails (compute-sanitizer reports any failed
/// driver call, even one the caller handles).
fn read_c_string(address: u64) -> String {
    let mut bytes = Vec::new();
    let (mut base, mut size): (sys::CUdeviceptr, usize) = (0, 0);
    // SAFETY: queries the extent of the allocation holding `address` in the bound context.
    let found = address != 0
        && unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, address) }
            == sys::CUresult::CUDA_SUCCESS;
    if found {
        let left = (base + size as u64).saturating_sub(address) as usize;
        let mut raw = vec![0u8; left.min(1024)];
        // SAFETY: reads device memory of the bound context, inside one allocation.
        if !raw.is_empty() && unsafe { result::memcpy_dtoh_sync(&mut raw, address) }.is_ok() {
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            bytes.extend_from_slice(&raw[..end]);
        }
    } else if address != 0 {
        bytes = read_c_string_by_pieces(address);
    }
    if bytes.is_empty() {
        "<unknown file>".into()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Where the driver cannot say which allocation holds the name: small pieces up to its
/// NUL, byte by byte near the end of the memory (a failure ends the name).
fn read_c_string_by_pieces(address: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut at = address as sys::CUdeviceptr;
    while bytes.len() < 1024 {
        let mut piece = [0u8; 16];
        // SAFETY: reads device memory of the bound context.
        if unsafe { result::memcpy_dtoh_sync(&mut piece, at) }.is_err() {
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
    bytes
}
