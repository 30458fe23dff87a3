//! The one error type of warpspeed.
//!
//! Every failure a user can meet — no GPU, no NVRTC, a kernel that does not compile, a
//! launch configuration over the device's limits, an out-of-bounds access, a driver error —
//! is one [`Error`] variant that carries the evidence a person needs to fix it: the kernel's
//! name, the NVRTC log, the configuration and the limit it broke, the index and the line.
//! A leaf: it imports only the other leaves (`dim`, `config`, `diagnostics`).

use crate::config::LaunchConfig;
use crate::dim::Dim3;

/// `Result` with warpspeed's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong between [`Device::new`](crate::Device::new) and a download.
///
/// `{:?}` prints the same message as `{}`, hints included: it is what a `main` that returns
/// `Result<(), warpspeed::Error>` shows, and what `unwrap` panics with. Match on the
/// variant for its fields.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA device could be opened (no driver, no GPU, or the driver refused).
    #[error(
        "no CUDA device available: {reason}\n\
         hint: set WARPSPEED_BACKEND=sim to run kernels on the CPU simulator \
         (or leave WARPSPEED_BACKEND unset to fall back to it automatically)"
    )]
    NoDevice {
        /// Why: the driver's answer, in words.
        reason: String,
    },

    /// `WARPSPEED_BACKEND` holds a value warpspeed does not know.
    #[error("WARPSPEED_BACKEND={value:?} is not a backend: use `cuda`, `sim`, or leave it unset")]
    UnknownBackend {
        /// The value found in the environment.
        value: String,
    },

    /// The NVRTC library (`libnvrtc`) could not be loaded, so no kernel can be compiled.
    #[error(
        "NVRTC (the CUDA runtime compiler) is not available: {reason}\n\
         hint: install it with `pip install nvidia-cuda-nvrtc` and add the directory holding \
         libnvrtc.so.13 (site-packages/nvidia/cu13/lib) to LD_LIBRARY_PATH, or install the \
         CUDA toolkit; WARPSPEED_BACKEND=sim runs kernels without it"
    )]
    NvrtcUnavailable {
        /// What failed while loading it.
        reason: String,
    },

    /// NCCL (`libnccl.so.2`), which collectives across GPUs need, could not be loaded, or is
    /// older than the bindings (2.28). Programs on one GPU never load it.
    #[error(
        "NCCL (NVIDIA's collectives library, libnccl.so.2) is not available: {reason}\n\
         hint: install it with `pip install nvidia-nccl-cu13` and add the directory holding \
         libnccl.so.2 (under site-packages/nvidia/) to LD_LIBRARY_PATH, or install the \
         distribution's libnccl2 package; simulated devices need no NCCL"
    )]
    NcclUnavailable {
        /// What failed while loading it.
        reason: String,
    },

    /// NVRTC rejected the generated CUDA C of a kernel. The message lists every error and
    /// warning at its Rust file:line, with the generated C line it is about.
    #[error(
        "{}",
        crate::diagnostics::compile_message(kernel, diagnostics, log, options)
    )]
    Compile {
        /// The kernel's Rust name.
        kernel: String,
        /// NVRTC's log; `#line` directives make it point at the Rust source.
        log: String,
        /// The NVRTC options used.
        options: Vec<String>,
        /// The log read message by message, each placed in the Rust and the generated C.
        diagnostics: Vec<crate::diagnostics::Diagnostic>,
    },

    /// The kernel uses instructions the device's GPU lacks: `wgmma` and `setmaxnreg` exist
    /// only in the target sm_90a (compute capability 9.0), so such a kernel's launch on any
    /// other GPU is this error, before anything is compiled (docs/compilation.md). The
    /// simulator runs such kernels everywhere.
    #[error("kernel `{kernel}` cannot run on this GPU ({device}): {reason}")]
    UnsupportedArch {
        /// The kernel's Rust name.
        kernel: String,
        /// The GPU's target, `sm_80`.
        device: String,
        /// What the kernel uses and which target that needs (`sm_90a`).
        reason: String,
    },

    /// An NVRTC call other than the compilation itself failed.
    #[error("NVRTC failed while {what} for kernel `{kernel}`: {source}")]
    Nvrtc {
        /// The kernel's Rust name.
        kernel: String,
        /// What warpspeed was doing.
        what: String,
        /// NVRTC's error code.
        source: cudarc::nvrtc::result::NvrtcError,
    },

    /// The launch configuration breaks a limit of the device; nothing was launched.
    #[error("invalid launch of kernel `{kernel}` with {config}: {reason}")]
    InvalidLaunch {
        /// The kernel's Rust name.
        kernel: String,
        /// The configuration as given.
        config: LaunchConfig,
        /// Which limit broke, with the device's limit.
        reason: String,
    },

    /// A kernel indexed a slice out of its bounds.
    #[error(
        "kernel `{kernel}` indexed out of bounds at {file}:{line}: index {index}, length {len} \
         (block {block}, thread {thread})"
    )]
    OutOfBounds {
        /// The kernel's Rust name.
        kernel: String,
        /// The Rust source file of the access (as `file!()` gives it).
        file: String,
        /// The Rust source line of the access.
        line: u32,
        /// The index used.
        index: u64,
        /// The slice's length.
        len: u64,
        /// `block_idx()` of the failing thread.
        block: Dim3,
        /// `thread_idx()` of the failing thread.
        thread: Dim3,
    },

    /// A slice is shorter than the `#[len(..)]` its function declares. A kernel's launch
    /// checks its own parameters before anything runs (`at` is `None`: nothing was launched);
    /// a device function checks at its entry, on the calling thread, and then returns
    /// without touching memory (`at` names that thread).
    #[error("{}", slice_too_short(self))]
    SliceTooShort {
        /// The kernel's Rust name.
        kernel: String,
        /// The declaration the slice falls short of.
        decl: Box<DeclaredLen>,
        /// The declared length's value; `None` when it does not fit in a `u64`.
        need: Option<u64>,
        /// The slice's length.
        len: u64,
        /// `(block_idx(), thread_idx())` of the thread that called a device function.
        at: Option<(Dim3, Dim3)>,
    },

    /// The CUDA driver reported an error.
    #[error("CUDA driver error while {what}{}: {source}", kernel.as_ref().map(|k| format!(" (kernel `{k}`)")).unwrap_or_default())]
    Driver {
        /// The kernel concerned, when there is one.
        kernel: Option<String>,
        /// What warpspeed was doing.
        what: String,
        /// The driver's error code.
        source: cudarc::driver::DriverError,
    },

    /// Scalars viewed as vectors ([`DeviceBuffer::into_vectors`](crate::DeviceBuffer::into_vectors),
    /// [`Vector::from_lanes`](crate::Vector::from_lanes)) are not a whole number of vectors.
    #[error(
        "{what}: {len} `{lane}`s are not a whole number of `{vector}`s ({lanes} lanes each); \
         pad the data to a multiple of {lanes}"
    )]
    NotWholeVectors {
        /// The operation.
        what: String,
        /// The vector type (`f32x4`).
        vector: &'static str,
        /// Its lane type (`f32`).
        lane: &'static str,
        /// The number of scalars.
        len: usize,
        /// The lanes of one vector.
        lanes: usize,
    },

    /// Two lengths that must agree do not (a host slice and a device buffer).
    #[error("length mismatch in {what}: expected {expected} elements, got {found}")]
    LengthMismatch {
        /// The operation.
        what: String,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },

    /// A buffer that lives on one device was used with another.
    #[error("{what}: the buffer lives on {buffer_device}, but the operation runs on {device}")]
    DeviceMismatch {
        /// The operation (and argument) concerned.
        what: String,
        /// The device that owns the buffer.
        buffer_device: String,
        /// The device the operation runs on.
        device: String,
    },

    /// On the simulator: threads of a block wait at different barriers, or at a warp
    /// collective that cannot complete (a lane of its mask exited, does not exist, or waits
    /// elsewhere; an undefined shuffle), or nothing can go on (a deadlock). On a GPU this
    /// hangs or gives undefined results.
    #[error("kernel `{kernel}` cannot go on in block {block}: {detail}")]
    DivergentBarrier {
        /// The kernel's Rust name.
        kernel: String,
        /// `block_idx()` of the block.
        block: Dim3,
        /// Who waits where: both Rust sites and a thread at each.
        detail: String,
    },

    /// On the simulator: two threads accessed one element, at least one writing and not
    /// both atomically, with no barrier or warp synchronisation between them.
    #[error(
        "data race in kernel `{kernel}` on {memory} index {index}: thread {} of block {} {} at \
         {}:{} and thread {} of block {} {} at {}:{} {}",
        first.thread, first.block, first.verb(), first.file, first.line,
        second.thread, second.block, second.verb(), second.file, second.line, first.unordered()
    )]
    DataRace {
        /// The kernel's Rust name.
        kernel: String,
        /// Which memory: "shared array at src/x.rs:10", "global buffer `out` (parameter 2)".
        memory: String,
        /// The element's index in that memory.
        index: u64,
        /// The earlier access (boxed: keeps `Error` small).
        first: Box<RaceAccess>,
        /// The access that found the race.
        second: Box<RaceAccess>,
    },

    /// On the simulator: a thread read shared memory that no thread of its block wrote
    /// (garbage on the GPU).
    #[error(
        "kernel `{kernel}` read uninitialised shared memory at {file}:{line}: index {index} of \
         the {memory}, which no thread of the block wrote (block {block}, thread {thread})"
    )]
    UninitializedShared {
        /// The kernel's Rust name.
        kernel: String,
        /// Which memory: "shared array at src/x.rs:10".
        memory: String,
        /// The Rust source file of the read.
        file: String,
        /// The Rust source line of the read.
        line: u32,
        /// The element's index.
        index: u64,
        /// `block_idx()` of the reading thread.
        block: Dim3,
        /// `thread_idx()` of the reading thread.
        thread: Dim3,
    },

    /// A simulated kernel panicked (other than an out-of-bounds access).
    #[error(
        "kernel `{kernel}` panicked on the simulator (block {block}, thread {thread}): {message}"
    )]
    KernelPanic {
        /// The kernel's Rust name.
        kernel: String,
        /// The panic message.
        message: String,
        /// `block_idx()` of the failing thread.
        block: Dim3,
        /// `thread_idx()` of the failing thread.
        thread: Dim3,
    },

    /// Two operations on different streams touch the same device or pinned memory, at
    /// least one writing, and nothing orders them: no event the second stream waited for
    /// and no synchronisation between them. Reported by the simulator, which runs each
    /// operation when it is queued; on a GPU the two could run at the same time.
    #[error(
        "stream order: {later} on stream {later_stream} {} memory that {earlier} on stream \
         {earlier_stream} {}, with no event wait or synchronisation between them: on a GPU the \
         two may run at the same time. Record an event on stream {earlier_stream} after the \
         first (`Stream::record`) and make stream {later_stream} wait for it \
         (`Stream::wait`), or synchronise in between",
        if *later_writes { "writes" } else { "reads" },
        if *earlier_writes { "wrote" } else { "read" }
    )]
    UnorderedStreams {
        /// The earlier operation (a kernel with its configuration, or a copy).
        earlier: String,
        /// The stream it was queued on (streams are numbered from 1 per device, in the
        /// order they were created).
        earlier_stream: u64,
        /// Whether the earlier operation wrote the memory (else it read it).
        earlier_writes: bool,
        /// The later operation, which was refused (it did not run).
        later: String,
        /// The stream it was queued on.
        later_stream: u64,
        /// Whether the later operation writes the memory.
        later_writes: bool,
    },

    /// A kernel faulted on the GPU (an illegal address in `unchecked` code, a trap): CUDA's
    /// context is lost, and this device cannot be used again in this process.
    #[error(
        "kernel `{kernel}` ({config}) faulted on the GPU, seen while {what}: {source}{}\n\
         the GPU's CUDA context is lost: CUDA cannot recover it, so every later call on this \
         device returns Error::ContextLost. Restart the process to use the GPU again. To find \
         the fault: run the kernel on the simulator (WARPSPEED_BACKEND=sim), which reports the \
         Rust line, or remove `unchecked` so the GPU reports out-of-bounds indices, or run under \
         compute-sanitizer",
        later_candidates(later)
    )]
    KernelFault {
        /// The launch that faulted: the first one queued since the last successful
        /// synchronisation (docs/runtime.md says why).
        kernel: String,
        /// Its launch configuration.
        config: String,
        /// What warpspeed was doing when the driver reported the fault.
        what: String,
        /// The driver's error code.
        source: cudarc::driver::DriverError,
        /// The launches queued after `kernel` and not synchronised either, each as
        /// `kernel (config)` (past eight, the last entry counts the rest): the driver does
        /// not say which launch faulted, so it may be one of these. Empty when `kernel`
        /// is the only launch that could have faulted.
        later: Vec<String>,
    },

    /// An operation that exists only on a GPU (handing a buffer to cudarc) was asked of a
    /// simulator device or buffer.
    #[error("{what} needs a CUDA device, but this one is the simulator")]
    NotCuda {
        /// The operation.
        what: String,
    },

    /// A call on a device whose CUDA context was lost earlier by a [`Error::KernelFault`].
    #[error(
        "this device's CUDA context was lost earlier ({first}); restart the process to use the GPU again"
    )]
    ContextLost {
        /// The fault that lost it.
        first: String,
    },

    /// A texture the device cannot make: a size of zero or above the device's limits, or
    /// memory not aligned as textures need (docs/textures.md).
    #[error("invalid texture ({what}): {reason}")]
    InvalidTexture {
        /// The operation.
        what: String,
        /// What is wrong, with the numbers.
        reason: String,
    },

    /// A collective could not complete: the ranks disagree on it (kind, element type,
    /// length, root), some rank never reaches it within the communicator's timeout, or
    /// one left the world first. The message names each rank's call and its Rust line.
    #[error("collective failed: {message}")]
    Collective {
        /// What happened, rank by rank.
        message: String,
    },

    /// An argument a library call (`warpspeed::algorithms`) refuses before launching
    /// anything: a bin range with `lo >= hi`, offsets that are not monotone, an exclusive
    /// scan with an operator that has no identity.
    #[error("invalid argument to {what}: {reason}")]
    InvalidArgument {
        /// The call and the argument.
        what: String,
        /// What is wrong, with the values.
        reason: String,
    },

    /// A [`TensorMap`](crate::TensorMap) the TMA cannot read: a geometry, alignment or
    /// element size it does not support (docs/tensor-cores.md, "Hopper: mbarriers and TMA").
    #[error("invalid tensor map ({what}): {reason}")]
    InvalidTensorMap {
        /// The map asked for.
        what: String,
        /// What is wrong, with the numbers.
        reason: String,
    },
}

/// The message, as `Display` writes it: a `main` returning `Err` prints `Debug`, and a
/// derived one would show the fields without the sentences and hints made for a person.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// One side of a [`Error::DataRace`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    /// "read", "write" or "atomic"; "cp_async" for a `cp_async` copy not yet waited for
    /// (the other access touched its destination before the wait that covers it);
    /// "tma_load_2d" for a TMA copy whose mbarrier phase has not completed; "wgmma" for a
    /// `wgmma` not yet waited for (the other access wrote a tile it reads).
    pub kind: String,
    /// The Rust source file of the access.
    pub file: String,
    /// The Rust source line of the access.
    pub line: u32,
    /// `block_idx()` of the accessing thread.
    pub block: Dim3,
    /// `thread_idx()` of the accessing thread.
    pub thread: Dim3,
}

impl RaceAccess {
    /// "read", "wrote", "accessed atomically", for messages.
    fn verb(&self) -> &str {
        match self.kind.as_str() {
            "read" => "read",
            "write" => "wrote",
            "atomic" => "accessed atomically",
            "cp_async" => "started a cp_async copy",
            "tma_load_2d" => "started a tma_load_2d copy",
            "wgmma" => "started a wgmma reading it",
            other => other,
        }
    }

    /// What is missing between this (first) access and the other one.
    fn unordered(&self) -> &str {
        match self.kind.as_str() {
            "cp_async" => {
                "before a cp_async_wait covering that copy (and, in another thread, a barrier after the wait)"
            }
            "tma_load_2d" => {
                "before a completed wait on the copy's mbarrier (the phase its bytes complete)"
            }
            "wgmma" => "before the wgmma_wait_group covering that wgmma",
            _ => "with no barrier between them",
        }
    }
}

/// The text of a panic payload (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// A `#[len(..)]` declaration, as [`Error::SliceTooShort`] names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredLen {
    /// The function that declares the length (the kernel or a device function).
    pub function: String,
    /// The slice parameter.
    pub param: String,
    /// The length as declared: `n * n`.
    pub declared: String,
    /// The Rust file of the declaration (as `file!()` gives it).
    pub file: String,
    /// The Rust line of the declaration.
    pub line: u32,
}

/// The part of [`Error::KernelFault`]'s message that names the other candidates.
fn later_candidates(later: &[String]) -> String {
    if later.is_empty() {
        return String::new();
    }
    format!(
        "\nit was the first launch since the last synchronisation; these launches queued after \
         it may have faulted instead: {}",
        later.join(", ")
    )
}

/// The message of [`Error::SliceTooShort`].
fn slice_too_short(e: &Error) -> String {
    let Error::SliceTooShort {
        kernel,
        decl,
        need,
        len,
        at,
    } = e
    else {
        return String::new();
    };
    let DeclaredLen {
        function,
        param,
        declared,
        file,
        line,
    } = &**decl;
    let need = need.map_or_else(|| "more than u64::MAX".to_string(), |n| n.to_string());
    let head = format!(
        "kernel `{kernel}`: `{param}` has {len} elements, but `{function}` declares #[len({declared})] = {need} at {file}:{line}"
    );
    match at {
        None => format!("{head}; nothing was launched"),
        Some((block, thread)) => format!(
            "{head} (called by block {block}, thread {thread}); the call returned without touching memory"
        ),
    }
}
