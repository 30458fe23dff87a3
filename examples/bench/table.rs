//! The result table: one [`Row`] per kernel and size with its three warpspeed-side columns
//! (checked, unchecked, hand-written CUDA C), its peers, the ratios and their verdicts.
//!
//! Targets (docs/benchmarks.md): checked / unchecked <= 1.05 (bounds checks cost nothing
//! that matters), warpspeed / hand <= 1.03 (zero-cost translation; 1.10 for launch
//! overhead and process start). warpspeed is the checked (default) kernel throughout.
//! Peers carry no pass/fail here: ws/peer is printed, the peer targets are in the docs.

use std::fmt::Write;

/// Checked over unchecked: what bounds checks may cost.
pub const CHECKS_TARGET: f64 = 1.05;
/// warpspeed over the same algorithm written by hand.
pub const HAND_TARGET: f64 = 1.03;
/// Launch overhead and process start over raw cudarc.
pub const RAW_TARGET: f64 = 1.10;

/// The unit of a row's times.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unit {
    Ns,
    Us,
    Ms,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "us",
            Unit::Ms => "ms",
        }
    }

    /// This unit in milliseconds.
    pub fn ms(self) -> f64 {
        match self {
            Unit::Ns => 1e-6,
            Unit::Us => 1e-3,
            Unit::Ms => 1.0,
        }
    }
}

/// A peer's figure for a row, in the row's unit, or why there is none.
#[derive(Clone, Debug)]
pub struct Peer {
    pub name: String,
    pub value: Result<f64, String>,
}

/// One line of the table. `None` columns print as `-` (the contestant does not exist).
pub struct Row {
    pub kernel: String,
    pub size: String,
    pub unit: Unit,
    pub checked: Option<f64>,
    pub unchecked: Option<f64>,
    pub hand: Option<f64>,
    /// The largest checked / hand ratio that meets the target.
    pub hand_target: f64,
    pub peers: Vec<Peer>,
    /// Short facts for the last column (bandwidth, rates, why a column is empty).
    pub notes: Vec<String>,
}

impl Row {
    pub fn new(kernel: impl Into<String>, size: impl Into<String>, unit: Unit) -> Row {
        Row {
            kernel: kernel.into(),
            size: size.into(),
            unit,
            checked: None,
            unchecked: None,
            hand: None,
            hand_target: HAND_TARGET,
            peers: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The row with `(checked, unchecked, hand)` times.
    pub fn times(mut self, checked: f64, unchecked: Option<f64>, hand: Option<f64>) -> Row {
        self.checked = Some(checked);
        self.unchecked = unchecked;
        self.hand = hand;
        self
    }

    pub fn peers(mut self, peers: Vec<Peer>) -> Row {
        self.peers.extend(peers);
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Row {
        self.notes.push(note.into());
        self
    }

    /// The fastest peer that has a figure.
    fn best_peer(&self) -> Option<(&str, f64)> {
        self.peers
            .iter()
            .filter_map(|p| p.value.as_ref().ok().map(|&v| (p.name.as_str(), v)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
        Some(a? / b?)
    }

    /// The verdict on the two targets (`ok`, `MISSED ch/un+ws/hand`, or nothing when
    /// neither ratio exists), and how many were missed.
    fn verdict(&self) -> (Option<String>, usize) {
        let ratios = [
            (
                "ch/un",
                Self::ratio(self.checked, self.unchecked),
                CHECKS_TARGET,
            ),
            (
                "ws/hand",
                Self::ratio(self.checked, self.hand),
                self.hand_target,
            ),
        ];
        let missed: Vec<&str> = ratios
            .iter()
            .filter(|(_, r, target)| r.is_some_and(|r| r > *target))
            .map(|(what, _, _)| *what)
            .collect();
        let verdict = if !missed.is_empty() {
            Some(format!("MISSED {}", missed.join("+")))
        } else if ratios.iter().any(|(_, r, _)| r.is_some()) {
            Some("ok".into())
        } else {
            None
        };
        (verdict, missed.len())
    }
}

/// `1.716 ms`, `3.21 us`: three significant decimals up to 1000, fewer above.
fn time(v: Option<f64>, unit: Unit) -> String {
    match v {
        None => "-".into(),
        Some(v) if v >= 1000.0 => format!("{v:.0} {}", unit.name()),
        Some(v) if v >= 100.0 => format!("{v:.1} {}", unit.name()),
        Some(v) => format!("{v:.3} {}", unit.name()),
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |r| format!("{r:.3}"))
}

/// Prints the table; returns how many targets were missed.
pub fn print(rows: &[Row]) -> usize {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<25} {:<16} {:>9} {:>9} {:>9} {:>23} {:>6} {:>7} {:>7}  verdicts",
        "kernel",
        "size",
        "checked",
        "unchecked",
        "hand",
        "best peer",
        "ch/un",
        "ws/hand",
        "ws/peer",
    );
    let _ = writeln!(out, "{}", "-".repeat(128));
    let mut missed = 0;
    for r in rows {
        let best = r.best_peer();
        let peer = match (best, r.peers.is_empty()) {
            (Some((name, v)), _) => format!("{} {name}", time(Some(v), r.unit)),
            (None, true) => "-".into(),
            (None, false) => "n/a".into(),
        };
        let (verdict, m) = r.verdict();
        missed += m;
        let verdicts: Vec<String> = verdict.into_iter().chain(r.notes.iter().cloned()).collect();
        let _ = writeln!(
            out,
            "{:<25} {:<16} {:>9} {:>9} {:>9} {:>23} {:>6} {:>7} {:>7}  {}",
            r.kernel,
            r.size,
            time(r.checked, r.unit),
            time(r.unchecked, r.unit),
            time(r.hand, r.unit),
            peer,
            ratio(Row::ratio(r.checked, r.unchecked)),
            ratio(Row::ratio(r.checked, r.hand)),
            ratio(best.and_then(|(_, v)| Row::ratio(r.checked, Some(v)))),
            verdicts.join("; ")
        );
    }
    // Every peer figure (the table shows the fastest of each row), and why one is missing.
    let with_peers: Vec<&Row> = rows.iter().filter(|r| !r.peers.is_empty()).collect();
    if !with_peers.is_empty() {
        let _ = writeln!(
            out,
            "\npeers (ws/peer: warpspeed's checked time over the peer's):"
        );
        for r in with_peers {
            let list: Vec<String> = r
                .peers
                .iter()
                .map(|p| match &p.value {
                    Ok(v) => format!(
                        "{} {} ({})",
                        p.name,
                        time(Some(*v), r.unit),
                        ratio(Row::ratio(r.checked, Some(*v)))
                    ),
                    Err(why) => format!("{} n/a ({})", p.name, why.trim_start_matches("n/a: ")),
                })
                .collect();
            let _ = writeln!(out, "  {} {}: {}", r.kernel.trim(), r.size, list.join(", "));
        }
    }
    let _ = writeln!(
        out,
        "\ntargets: checked/unchecked <= {CHECKS_TARGET}; warpspeed/hand <= {HAND_TARGET} \
         (launch, process start: <= {RAW_TARGET}); warpspeed = the checked (default) kernel.\n\
         '-': no such contestant (launches and process starts have one form)."
    );
    print!("{out}");
    missed
}

/// The current date and time in UTC, `2026-11-23 14:05 UTC` (no date crate needed).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}
