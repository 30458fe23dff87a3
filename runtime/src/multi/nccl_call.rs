//! NCCL's calls at the level of pointers: what one call is ([`NcclCall`]), queuing it,
//! the communicator configuration, the unique id, and NCCL's result codes as text. The
//! communicator that owns the handles and watches them is `nccl_comm`.

use std::ffi::CStr;

use cudarc::nccl::sys;

use super::reduce_op::ReduceOp;
use super::rendezvous::Kind;
use crate::error::{Error, Result};

/// What one NCCL call does (counts are NCCL's: all_gather's is the part a rank sends,
/// reduce_scatter's the part it receives).
#[derive(Clone, Copy, Debug)]
pub(crate) enum NcclOp {
    Collective(Kind),
    Send { peer: usize },
    Recv { peer: usize },
}

/// One NCCL call: the operation, its device addresses (`recv` unused by a send, `send` by
/// a receive), the element count and type code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NcclCall {
    pub(crate) op: NcclOp,
    pub(crate) send: u64,
    pub(crate) recv: u64,
    pub(crate) count: usize,
    pub(crate) data_type: u32,
}

/// Queues one call.
///
/// # Safety
///
/// `comm` is live; the call's addresses are device memory of its GPU for its count.
pub(crate) unsafe fn queue(
    call: &NcclCall,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> sys::ncclResult_t {
    let (send, recv) = (call.send as *const _, call.recv as *mut _);
    let (count, ty) = (call.count, data_type(call.data_type));
    match call.op {
        NcclOp::Collective(Kind::AllReduce(op)) => {
            sys::ncclAllReduce(send, recv, count, ty, red_op(op), comm, stream)
        }
        NcclOp::Collective(Kind::Broadcast { root }) => {
            sys::ncclBroadcast(send, recv, count, ty, root as i32, comm, stream)
        }
        NcclOp::Collective(Kind::Reduce { op, root }) => {
            sys::ncclReduce(send, recv, count, ty, red_op(op), root as i32, comm, stream)
        }
        NcclOp::Collective(Kind::AllGather) => {
            sys::ncclAllGather(send, recv, count, ty, comm, stream)
        }
        NcclOp::Collective(Kind::ReduceScatter(op)) => {
            sys::ncclReduceScatter(send, recv, count, ty, red_op(op), comm, stream)
        }
        NcclOp::Send { peer } => sys::ncclSend(send, count, ty, peer as i32, comm, stream),
        NcclOp::Recv { peer } => sys::ncclRecv(recv, count, ty, peer as i32, comm, stream),
    }
}

fn red_op(op: ReduceOp) -> sys::ncclRedOp_t {
    match op {
        ReduceOp::Sum => sys::ncclRedOp_t::ncclSum,
        ReduceOp::Prod => sys::ncclRedOp_t::ncclProd,
        ReduceOp::Min => sys::ncclRedOp_t::ncclMin,
        ReduceOp::Max => sys::ncclRedOp_t::ncclMax,
        ReduceOp::Avg => sys::ncclRedOp_t::ncclAvg,
    }
}

/// `CollectiveScalar::NCCL_TYPE` as NCCL's enum.
fn data_type(code: u32) -> sys::ncclDataType_t {
    use sys::ncclDataType_t as T;
    match code {
        0 => T::ncclInt8,
        1 => T::ncclUint8,
        2 => T::ncclInt32,
        3 => T::ncclUint32,
        4 => T::ncclInt64,
        5 => T::ncclUint64,
        6 => T::ncclFloat16,
        7 => T::ncclFloat32,
        8 => T::ncclFloat64,
        _ => T::ncclBfloat16,
    }
}

/// `NCCL_CONFIG_INITIALIZER` (nccl.h) with `blocking` set: every other field NCCL's
/// default (`NCCL_CONFIG_UNDEF_INT`, null), the size, magic and version of the 2.28 layout.
pub(crate) fn config(blocking: bool) -> sys::ncclConfig_t {
    const UNDEF: i32 = i32::MIN;
    let null = std::ptr::null();
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        version: 22800,
        blocking: i32::from(blocking),
        cgaClusterSize: UNDEF,
        minCTAs: UNDEF,
        maxCTAs: UNDEF,
        netName: null,
        splitShare: UNDEF,
        trafficClass: UNDEF,
        commName: null,
        collnetEnable: UNDEF,
        CTAPolicy: UNDEF,
        shrinkShare: UNDEF,
        nvlsCTAs: UNDEF,
        nChannelsPerNetPeer: UNDEF,
        nvlinkCentricSched: UNDEF,
    }
}

/// A fresh NCCL unique id (the root rank's; the others receive it).
pub(crate) fn unique_id() -> Result<[u8; 128]> {
    super::nccl_lib::load()?;
    let mut id = sys::ncclUniqueId { internal: [0; 128] };
    // SAFETY: NCCL is loaded; `id` is a valid out-pointer.
    let status = unsafe { sys::ncclGetUniqueId(&mut id) };
    if status != sys::ncclResult_t::ncclSuccess {
        return Err(collective(format!(
            "ncclGetUniqueId failed: {}",
            describe(status)
        )));
    }
    Ok(id.internal.map(|c| c as u8))
}

pub(crate) fn ok(status: sys::ncclResult_t) -> bool {
    matches!(
        status,
        sys::ncclResult_t::ncclSuccess | sys::ncclResult_t::ncclInProgress
    )
}

pub(crate) fn describe(status: sys::ncclResult_t) -> String {
    // SAFETY: NCCL returns a static string for every result code.
    let text = unsafe { c_text(sys::ncclGetErrorString(status)) };
    format!("{status:?} ({text})")
}

/// A C string NCCL owns, copied; empty for null.
///
/// # Safety
///
/// `p` is null or a NUL-terminated string alive for the call.
pub(crate) unsafe fn c_text(p: *const std::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// An [`Error::Collective`] with `message`.
pub(crate) fn collective(message: String) -> Error {
    Error::Collective { message }
}
