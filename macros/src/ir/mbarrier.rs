//! The methods of an mbarrier in a kernel (`full[i].init(1)`, `full[i].wait(phase)`, on
//! an element of a `SharedArray::<Mbarrier, N>`): one row each, with its C helper
//! (prelude_hopper.cuh) and its simulator method (`SimMbarriers`), which have its name.
//! docs/tensor-cores.md, "Hopper: mbarriers and TMA".

/// An mbarrier method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarMethod {
    Init,
    Arrive,
    ArriveExpectTx,
    Wait,
    TryWait,
}

impl MbarMethod {
    pub const ALL: [MbarMethod; 5] = [
        MbarMethod::Init,
        MbarMethod::Arrive,
        MbarMethod::ArriveExpectTx,
        MbarMethod::Wait,
        MbarMethod::TryWait,
    ];

    /// What users write, and the simulator's method.
    pub fn name(self) -> &'static str {
        match self {
            MbarMethod::Init => "init",
            MbarMethod::Arrive => "arrive",
            MbarMethod::ArriveExpectTx => "arrive_expect_tx",
            MbarMethod::Wait => "wait",
            MbarMethod::TryWait => "try_wait",
        }
    }

    pub fn from_name(name: &str) -> Option<MbarMethod> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Its one `u32` argument's name (`count`, `bytes`, `parity`), if it takes one.
    pub fn arg(self) -> Option<&'static str> {
        match self {
            MbarMethod::Init => Some("count"),
            MbarMethod::Arrive => None,
            MbarMethod::ArriveExpectTx => Some("bytes"),
            MbarMethod::Wait | MbarMethod::TryWait => Some("parity"),
        }
    }

    /// `try_wait` gives a `bool`; the others nothing.
    pub fn gives_bool(self) -> bool {
        self == MbarMethod::TryWait
    }

    /// `wait` suspends the simulated thread until the phase completes.
    pub fn suspends(self) -> bool {
        self == MbarMethod::Wait
    }

    /// The C helper: `ws_mbarrier_init`.
    pub fn c_name(self) -> String {
        format!("ws_mbarrier_{}", self.name())
    }

    /// "`init(count)`", for messages.
    pub fn signature(self) -> String {
        format!("`{}({})`", self.name(), self.arg().unwrap_or(""))
    }
}
