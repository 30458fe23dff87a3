//! Autotuning: choosing among a kernel's configurations (const-generic instances, items
//! per thread, grid and block sizes) by timing them on the GPU the first time a problem of
//! a kind is seen, and keeping the choice in memory and on disk (issue 22).
//!
//! A [`Tuner`] is given a [`Key`] (the algorithm, its element type, power-of-two buckets of
//! its sizes and the GPU), the candidates, each with a stable text label, the default's
//! label, and an optional validity check of each candidate for the input at hand;
//! [`Tuner::choose`] returns the one to launch:
//!
//! - **Off, or on the simulator**: the default, and nothing runs. The simulator's timings
//!   say nothing about a GPU's. `WARPSPEED_AUTOTUNE=off` (or `0`, `false`, `no`) turns
//!   tuning off.
//! - **Seen before** (this process, or an earlier one through the file): the fastest of the
//!   stored ranking that is valid for this input, with nothing run; the default when none
//!   is.
//! - **Else** every valid candidate runs once untimed (so NVRTC's compilation and the first
//!   launch's costs are not timed), then `repetitions` times (5 by default) between two
//!   CUDA events on the target's queue; the median decides, and the winner runs once
//!   more, last, so that the outputs hold its results. The ranking is kept in a
//!   process-wide map and written to the file. A candidate whose launch fails (too much
//!   shared memory for this GPU, say) is left out of the ranking.
//!
//! `choose` never launches the choice for the caller: only the call that tunes runs
//! anything, so the caller launches `choice.config` after every call (after a tuning,
//! that is the winner's output written once more).
//!
//! **What the autotuners of Triton and CubeCL taught**, and what this one does about it:
//!
//! - *Retuning for every new shape*: keys hold `bucket(n)` ([`bucket`]: `ilog2(n) + 1`), so
//!   sizes from 2^k to 2^(k+1) - 1 share one tuning.
//! - *A cached winner invalid for a new input* (the same bucket, another shape): each call
//!   checks validity; an invalid winner falls to the next valid one of the ranking, else
//!   the default; an invalid candidate is never run. If no candidate is valid,
//!   `choose` returns [`Error::InvalidArgument`] before anything runs.
//! - *Winners that change results*: a winner may differ from GPU to GPU and run to run
//!   (timings are noisy), so tune only parameters that do not change results. The
//!   library's algorithms say which of theirs are tuned (docs/algorithms.md,
//!   "Autotuning"): never a float sum's chunking, which changes its rounding.
//! - *Tuning that mutates inputs*: the closure runs several times, so it must leave its
//!   inputs as it found them; it may write outputs that the chosen configuration's real run
//!   then overwrites. An in-place kernel tunes on a copy, or restores its input inside the
//!   closure, before each run (what Triton's `restore_value` does).
//!
//! **The file** is `autotune-v1.txt` in the CUBIN cache's directory (`WARPSPEED_CACHE_DIR`,
//! else `$XDG_CACHE_HOME/warpspeed`, else `~/.cache/warpspeed`; [`file_path`]), none with
//! `WARPSPEED_CACHE=off` (then choices live for the process only). One line a key: the key,
//! the ranked labels with their median times in nanoseconds, and the candidates' labels
//! (a ranking made for another candidate list is retuned). It is rewritten whole, to a
//! temporary file renamed into place, so readers never see half of it; a file with another
//! header (another version) or a line that does not parse is ignored, silently, and
//! replaced at the next write. Two processes writing at once may lose one's entry, which
//! is then tuned again. Delete the file to retune everything.
//!
//! **Tuning synchronizes**: the first call for a key waits for the target's queue, its own
//! runs included. Later calls queue as before. One thread tunes at a time (so candidates
//! are not timed against another thread's); a candidate that itself calls a tuned
//! algorithm (a pipeline around `reduce::sum`) tunes that inside its untimed run.
//!
//! ```
//! use warpspeed::autotune::{Key, Tuner};
//! use warpspeed::prelude::*;
//!
//! /// `y = a x`, `IPT` elements a thread.
//! #[gpu_kernel]
//! fn scale<const IPT: usize>(y: &mut [f32], x: &[f32], a: f32) {
//!     let base = grid_1d() * IPT;
//!     for k in 0..IPT {
//!         let i = base + k;
//!         if i < y.len() && i < x.len() {
//!             y[i] = a * x[i];
//!         }
//!     }
//! }
//!
//! /// A launch configuration: items a thread (the instance) and threads a block.
//! struct Shape {
//!     ipt: usize,
//!     block: u32,
//! }
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::new()?;
//! let n = 100_000;
//! let x = dev.upload(&vec![1.5f32; n])?;
//! let mut y = dev.zeros::<f32>(n)?;
//! let candidates = [
//!     ("ipt1-b256", Shape { ipt: 1, block: 256 }),
//!     ("ipt2-b256", Shape { ipt: 2, block: 256 }),
//!     ("ipt4-b128", Shape { ipt: 4, block: 128 }),
//! ];
//! // The closure launches one candidate; it writes only `y`, which the final run overwrites
//! // (the call that tunes runs every candidate, the chosen one last; the others run none).
//! let mut run = |s: &Shape| {
//!     let cfg = LaunchConfig::new(n.div_ceil(s.ipt * s.block as usize) as u32, s.block);
//!     match s.ipt {
//!         1 => scale::launch::<1>(&dev, cfg, &mut y, &x, 2.0),
//!         2 => scale::launch::<2>(&dev, cfg, &mut y, &x, 2.0),
//!         _ => scale::launch::<4>(&dev, cfg, &mut y, &x, 2.0),
//!     }
//! };
//! let key = Key::new(&dev, "my_crate::scale", "f32", &[n]);
//! let choice = Tuner::new(key, &candidates, "ipt1-b256")
//!     .valid(|s| s.block <= 1024)
//!     .choose(&dev, &mut run)?;
//! // Not launched by `choose` (except as the last run of a tuning): launch it.
//! run(choice.config)?;
//! assert_eq!(y.download()?[n - 1], 3.0);
//! # Ok(())
//! # }
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::cuda::compile::DiskCache;
use crate::device::{Backend, Device};
use crate::error::{Error, Result};
use crate::launch::LaunchTarget;

/// The file's name in the cache directory; the version is in the name and the header.
pub const FILE_NAME: &str = "autotune-v1.txt";
/// The file's first line.
const HEADER: &str = "warpspeed autotune v1";

/// The size bucket of `n`: 0 for 0, else `ilog2(n) + 1`, so that `2^k ..= 2^(k+1) - 1`
/// share bucket `k + 1`.
pub fn bucket(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        n.ilog2() + 1
    }
}

/// What a tuning is for: an algorithm, its element type, the buckets of its sizes and the
/// GPU (its name, compute capability and multiprocessor count), as one line of text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    algorithm: String,
    text: String,
}

impl Key {
    /// The key of `algorithm` (a stable name, `"my_crate::scale"`) over `type_name`
    /// elements with `sizes` (each bucketed by [`bucket`]) on `device`.
    pub fn new(device: &Device, algorithm: &str, type_name: &str, sizes: &[usize]) -> Key {
        let buckets: Vec<String> = sizes.iter().map(|&n| bucket(n).to_string()).collect();
        let cc = device
            .compute_capability()
            .map_or("sim".to_string(), |(major, minor)| {
                format!("sm_{major}{minor}")
            });
        let text = format!(
            "{}|{}|{}|{}|{}|{}sm",
            clean(algorithm),
            clean(type_name),
            buckets.join(","),
            clean(device.name()),
            cc,
            device.limits().multiprocessor_count
        );
        Key {
            algorithm: algorithm.to_string(),
            text,
        }
    }

    /// The algorithm's name, as given.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The key as it is stored.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// `s` without the file's separators (tabs, line breaks, `|`).
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if matches!(c, '\t' | '\n' | '\r' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// How [`Tuner::choose`] came to its choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Tuning is off or the target is the simulator: the default (or, when the default is
    /// invalid for the input, the first valid candidate). Nothing ran.
    Default,
    /// The stored ranking's best valid candidate. Nothing ran.
    Cached,
    /// No valid candidate of the stored ranking: the default (or the first valid one).
    /// Nothing ran.
    Fallback,
    /// Every valid candidate was timed now, and ([`Tuner::choose`]) the chosen one ran
    /// last.
    Tuned,
    /// Forced by [`force`] (the bench's and the tests' hook). Nothing ran.
    Forced,
}

/// The candidate to launch.
#[derive(Debug)]
pub struct Choice<'a, C> {
    /// Its label.
    pub label: &'a str,
    /// Its configuration.
    pub config: &'a C,
    /// How it was chosen.
    pub how: How,
}

/// Whether to tune, and where the file is: the environment's ([`Settings::from_env`]), or
/// a test's. Not an API.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `false`: always the default.
    pub enabled: bool,
    /// The file; `None`: memory only.
    pub file: Option<PathBuf>,
}

impl Settings {
    /// `WARPSPEED_AUTOTUNE` (`off`, `0`, `false`, `no`: disabled) and the cache directory
    /// ([`file_path`]).
    pub fn from_env() -> Settings {
        Settings {
            enabled: enabled_by(&std::env::var("WARPSPEED_AUTOTUNE").unwrap_or_default()),
            file: file_path(),
        }
    }
}

/// Whether `WARPSPEED_AUTOTUNE=value` leaves tuning on: all but `off`, `0`, `false`, `no`.
fn enabled_by(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    !matches!(value.as_str(), "off" | "0" | "false" | "no")
}

/// Where the choices are kept: [`FILE_NAME`] in the CUBIN cache's directory, `None` when
/// `WARPSPEED_CACHE=off` (or no directory can be named).
pub fn file_path() -> Option<PathBuf> {
    DiskCache::from_env().map(|cache| cache.dir().join(FILE_NAME))
}

/// A stored tuning: the labels timed, fastest first, with their median times, and the
/// labels of every candidate there was.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    ranking: Vec<(String, u64)>,
    candidates: Vec<String>,
}

impl Entry {
    /// Whether it was made for exactly these candidates (else: retune).
    fn matches(&self, labels: &[&str]) -> bool {
        let mut mine: Vec<&str> = self.candidates.iter().map(String::as_str).collect();
        let mut theirs = labels.to_vec();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs
    }
}

/// The choices of this process, by key text.
static MEMORY: Mutex<Option<HashMap<String, Entry>>> = Mutex::new(None);
/// Held while tuning, so two threads do not time their candidates against each other.
static TUNING: Mutex<()> = Mutex::new(());

thread_local! {
    /// Forced labels, by algorithm name ([`force`]).
    static FORCED: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    /// Whether this thread holds [`TUNING`]: a candidate that itself calls a tuned
    /// algorithm (a user's pipeline around `reduce::sum`) tunes it inside, without taking
    /// the lock again (which would deadlock).
    static TUNING_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`TUNING`], unless this thread holds it already; released (and the thread's flag
/// cleared) on drop.
struct TuningLock {
    _guard: Option<std::sync::MutexGuard<'static, ()>>,
}

impl TuningLock {
    fn take() -> TuningLock {
        if TUNING_HERE.with(|t| t.get()) {
            return TuningLock { _guard: None };
        }
        let guard = TUNING.lock().unwrap_or_else(PoisonError::into_inner);
        TUNING_HERE.with(|t| t.set(true));
        TuningLock {
            _guard: Some(guard),
        }
    }
}

impl Drop for TuningLock {
    fn drop(&mut self) {
        if self._guard.is_some() {
            TUNING_HERE.with(|t| t.set(false));
        }
    }
}

/// Makes this thread's tunings of `algorithm` choose `label` (when it is a candidate valid
/// for the input; else they go on as usual), or, with `None`, stops forcing. For the bench
/// and the tests, which measure or compare each candidate. Not an API.
#[doc(hidden)]
pub fn force(algorithm: &str, label: Option<&str>) {
    FORCED.with(|f| {
        let mut f = f.borrow_mut();
        match label {
            Some(label) => f.insert(algorithm.to_string(), label.to_string()),
            None => f.remove(algorithm),
        };
    });
}

/// The label this thread's tunings of `algorithm` are forced to ([`force`]). Not an API:
/// the library tunes small inputs only when forced, so the tests can run every candidate
/// on the simulator.
#[doc(hidden)]
pub fn forced(algorithm: &str) -> Option<String> {
    FORCED.with(|f| f.borrow().get(algorithm).cloned())
}

/// The ranking stored for `key` (in memory, else in `settings`' file), fastest first.
/// Not an API: for tests.
#[doc(hidden)]
pub fn ranking(key: &Key, settings: &Settings) -> Option<Vec<String>> {
    lookup(key, settings).map(|e| e.ranking.into_iter().map(|(l, _)| l).collect())
}

/// A validity check of a candidate for the input at hand.
type Valid<'a, C> = Box<dyn Fn(&C) -> bool + 'a>;

/// Chooses among labelled candidates for one [`Key`]; see the [module](self).
pub struct Tuner<'a, C> {
    key: Key,
    candidates: &'a [(&'a str, C)],
    default: &'a str,
    valid: Option<Valid<'a, C>>,
    repetitions: usize,
    settings: Option<Settings>,
    on_simulator: bool,
}

impl<'a, C> Tuner<'a, C> {
    /// A tuner of `key` among `candidates` (each with a label that is stable from build to
    /// build, since it is what the file keeps: non-empty, without whitespace, `,` or `=`),
    /// whose default is the one labelled `default`.
    pub fn new(key: Key, candidates: &'a [(&'a str, C)], default: &'a str) -> Self {
        Tuner {
            key,
            candidates,
            default,
            valid: None,
            repetitions: 5,
            settings: None,
            on_simulator: false,
        }
    }

    /// Which candidates may run for this input (by default, all): an invalid one is never
    /// run, by tuning or by being chosen.
    pub fn valid(mut self, valid: impl Fn(&C) -> bool + 'a) -> Self {
        self.valid = Some(Box::new(valid));
        self
    }

    /// Timed runs of each candidate (at least 1; 5 by default), after one untimed run.
    pub fn repetitions(mut self, n: usize) -> Self {
        self.repetitions = n.max(1);
        self
    }

    /// Settings other than the environment's. Not an API: for tests.
    #[doc(hidden)]
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Times the candidates on the simulator too, by its wall clock (which says nothing of
    /// a GPU's). Not an API: for tests of what the call that tunes runs.
    #[doc(hidden)]
    pub fn tune_on_simulator(mut self) -> Self {
        self.on_simulator = true;
        self
    }

    /// The candidate to launch on `target` for this input. `choose` does not launch it for
    /// you: **launch `choice.config` after every call.** Only the call that tunes
    /// ([`How::Tuned`]) runs anything: every valid candidate several times, in their order,
    /// then the chosen one once more, last, so that what `run` writes holds the chosen
    /// candidate's output, not the last candidate's, when `choose` returns (launching it
    /// again after that is harmless). Every other call (a stored choice, a forced one,
    /// tuning off, the simulator) runs nothing and leaves the outputs as they were.
    ///
    /// `run` launches one candidate on `target`; it is called only when tuning, never on
    /// the simulator, and must leave the inputs unchanged (the module says why).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`], before anything runs, when there are no candidates, a
    /// label is malformed or repeated, the default is not among them, or no candidate is
    /// valid; when tuning, the error of the last failing candidate if every one failed,
    /// whatever synchronizing or timing returns, and whatever the chosen candidate's last
    /// run returns.
    pub fn choose(
        self,
        target: &impl LaunchTarget,
        mut run: impl FnMut(&C) -> Result<()>,
    ) -> Result<Choice<'a, C>> {
        let settings = self.settings.clone().unwrap_or_else(Settings::from_env);
        let reps = self.repetitions;
        let simulator = target.device().backend() == Backend::Simulator && !self.on_simulator;
        let choice =
            self.choose_in(&settings, simulator, |c| measure(target, reps, &mut run, c))?;
        if choice.how == How::Tuned {
            // The candidates ran in their order, so the outputs hold the last one's: the
            // winner once more leaves its own (one launch, once a key).
            run(choice.config)?;
        }
        Ok(choice)
    }

    /// [`Tuner::choose`] with the settings given and the timing by `time` (a test's). Not
    /// an API.
    #[doc(hidden)]
    pub fn choose_in(
        self,
        settings: &Settings,
        simulator: bool,
        mut time: impl FnMut(&C) -> Result<Duration>,
    ) -> Result<Choice<'a, C>> {
        let labels = self.check()?;
        let valid: Vec<bool> = self
            .candidates
            .iter()
            .map(|(_, c)| self.valid.as_ref().is_none_or(|v| v(c)))
            .collect();
        let index = |label: &str| labels.iter().position(|&l| l == label);
        let pick = |i: usize, how: How| Choice {
            label: self.candidates[i].0,
            config: &self.candidates[i].1,
            how,
        };
        let default = index(self.default).expect("checked");
        let Some(fallback) = (if valid[default] {
            Some(default)
        } else {
            valid.iter().position(|&v| v)
        }) else {
            return Err(Error::InvalidArgument {
                what: format!("autotune: the candidates of {}", self.key),
                reason: "no candidate is valid for this input".into(),
            });
        };
        if let Some(i) = forced(&self.key.algorithm).and_then(|label| index(&label)) {
            if valid[i] {
                return Ok(pick(i, How::Forced));
            }
        }
        if !settings.enabled || simulator {
            return Ok(pick(fallback, How::Default));
        }
        let from_ranking = |entry: &Entry| {
            let best = entry
                .ranking
                .iter()
                .filter_map(|(label, _)| index(label))
                .find(|&i| valid[i]);
            match best {
                Some(i) => pick(i, How::Cached),
                None => pick(fallback, How::Fallback),
            }
        };
        if let Some(entry) = lookup(&self.key, settings).filter(|e| e.matches(&labels)) {
            return Ok(from_ranking(&entry));
        }
        let _one_at_a_time = TuningLock::take();
        // Another thread may have tuned this key while this one waited.
        if let Some(entry) = lookup(&self.key, settings).filter(|e| e.matches(&labels)) {
            return Ok(from_ranking(&entry));
        }
        let mut times = Vec::new();
        let mut failed = None;
        for (i, (label, c)) in self.candidates.iter().enumerate() {
            if !valid[i] {
                continue;
            }
            match time(c) {
                Ok(t) => times.push((i, label.to_string(), t.as_nanos() as u64)),
                Err(e) => failed = Some(e),
            }
        }
        if times.is_empty() {
            return Err(failed.expect("a valid candidate was run"));
        }
        // Stable: equal times keep the candidates' order.
        times.sort_by_key(|&(_, _, t)| t);
        let winner = times[0].0;
        let entry = Entry {
            ranking: times.into_iter().map(|(_, l, t)| (l, t)).collect(),
            candidates: labels.iter().map(|l| l.to_string()).collect(),
        };
        remember(&self.key, entry.clone());
        if let Some(file) = &settings.file {
            store(file, self.key.as_str(), &entry);
        }
        Ok(pick(winner, How::Tuned))
    }

    /// The labels, or why they cannot be used.
    fn check(&self) -> Result<Vec<&'a str>> {
        let refuse = |reason: String| Error::InvalidArgument {
            what: format!("autotune: the candidates of {}", self.key),
            reason,
        };
        if self.candidates.is_empty() {
            return Err(refuse("there are no candidates".into()));
        }
        let labels: Vec<&str> = self.candidates.iter().map(|(l, _)| *l).collect();
        for (i, l) in labels.iter().enumerate() {
            if l.is_empty() || l.chars().any(|c| c.is_whitespace() || c == ',' || c == '=') {
                return Err(refuse(format!(
                    "label {l:?}: a label is non-empty, without whitespace, `,` or `=`"
                )));
            }
            if labels[..i].contains(l) {
                return Err(refuse(format!("label {l:?} is given twice")));
            }
        }
        if !labels.contains(&self.default) {
            return Err(refuse(format!(
                "the default {:?} is not among the labels {labels:?}",
                self.default
            )));
        }
        Ok(labels)
    }
}

/// The median time of `repetitions` runs of `c` on `target`, after an untimed one (which
/// compiles the kernels and pays the first launch's costs).
fn measure<C>(
    target: &impl LaunchTarget,
    repetitions: usize,
    run: &mut impl FnMut(&C) -> Result<()>,
    c: &C,
) -> Result<Duration> {
    let record = || match target.stream() {
        Some(stream) => stream.record(),
        None => target.device().record_queue(),
    };
    run(c)?;
    record()?.synchronize()?;
    let mut times = Vec::with_capacity(repetitions);
    for _ in 0..repetitions {
        let start = record()?;
        run(c)?;
        let end = record()?;
        times.push(end.elapsed_since(&start)?);
    }
    times.sort_unstable();
    Ok(times[times.len() / 2])
}

/// The entry of `key` in memory, else in `settings`' file (then remembered).
fn lookup(key: &Key, settings: &Settings) -> Option<Entry> {
    {
        let memory = MEMORY.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = memory.as_ref().and_then(|m| m.get(key.as_str())) {
            return Some(entry.clone());
        }
    }
    let entry = load(settings.file.as_deref()?).remove(key.as_str())?;
    remember(key, entry.clone());
    Some(entry)
}

fn remember(key: &Key, entry: Entry) {
    MEMORY
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(key.as_str().to_string(), entry);
}

/// The entries of the file at `path`; none when it is missing, unreadable, of another
/// version, or has a line that does not parse.
fn load(path: &Path) -> HashMap<String, Entry> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| parse(&text))
        .unwrap_or_default()
}

/// The file's text as entries; `None` when the header is another or a line is damaged.
fn parse(text: &str) -> Option<HashMap<String, Entry>> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let mut entries = HashMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let mut fields = line.split('\t');
        let (key, ranking, candidates) = (fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() || key.is_empty() {
            return None;
        }
        let ranking = ranking
            .split(',')
            .map(|item| {
                let (label, nanos) = item.split_once('=')?;
                (!label.is_empty()).then_some(())?;
                Some((label.to_string(), nanos.parse().ok()?))
            })
            .collect::<Option<Vec<_>>>()?;
        let candidates: Vec<String> = candidates.split(',').map(str::to_string).collect();
        let known = |l: &String| !l.is_empty() && candidates.contains(l);
        if candidates.iter().any(String::is_empty) || !ranking.iter().all(|(l, _)| known(l)) {
            return None;
        }
        entries.insert(
            key.to_string(),
            Entry {
                ranking,
                candidates,
            },
        );
    }
    Some(entries)
}

/// The file's text for `entries`, sorted by key (so a rewrite of the same choices is the
/// same file).
fn format(entries: &HashMap<String, Entry>) -> String {
    let mut keys: Vec<&String> = entries.keys().collect();
    keys.sort();
    let mut text = format!("{HEADER}\n");
    for key in keys {
        let e = &entries[key];
        let ranking: Vec<String> = e.ranking.iter().map(|(l, t)| format!("{l}={t}")).collect();
        text += &format!("{key}\t{}\t{}\n", ranking.join(","), e.candidates.join(","));
    }
    text
}

/// Adds `key`'s `entry` to the file at `path`: the file is read, changed and written
/// whole to a temporary file that is renamed over it. A failure only means the choice is
/// not kept for the next process (the CUBIN cache warns about an unusable directory).
fn store(path: &Path, key: &str, entry: &Entry) {
    let _ = try_store(path, key, entry);
}

fn try_store(path: &Path, key: &str, entry: &Entry) -> std::io::Result<()> {
    static UNIQUE: AtomicU64 = AtomicU64::new(0);
    let mut entries = load(path);
    entries.insert(key.to_string(), entry.clone());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // Unique among processes and threads writing at once, as the CUBIN cache's names.
    let tmp = dir.join(format!(
        ".{FILE_NAME}.{}.{}.tmp",
        std::process::id(),
        UNIQUE.fetch_add(1, Ordering::Relaxed)
    ));
    let written = std::fs::write(&tmp, format(&entries)).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A key of its own for each test (the memory is process-wide).
    fn key(name: &str) -> Key {
        Key::new(&Device::simulator(), name, "u32", &[1000])
    }

    /// A fresh directory under the system's temporary one.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "warpspeed-autotune-{name}-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn on(file: Option<PathBuf>) -> Settings {
        Settings {
            enabled: true,
            file,
        }
    }

    const CANDIDATES: [(&str, u32); 3] = [("a", 1), ("b", 2), ("c", 3)];

    /// Times that make `c` fastest, then `b`, then `a`.
    fn fake_time(c: &u32) -> Result<Duration> {
        Ok(Duration::from_nanos(100 - u64::from(*c)))
    }

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1), 1);
        assert_eq!((bucket(2), bucket(3)), (2, 2));
        assert_eq!((bucket(1023), bucket(1024), bucket(2047)), (10, 11, 11));
        assert_eq!(bucket(usize::MAX), usize::BITS);
        let dev = Device::simulator();
        let k = |n: usize| Key::new(&dev, "alg", "u32", &[n, 7]);
        assert_eq!(k(1 << 20), k((1 << 21) - 1), "one bucket");
        assert_ne!(k(1 << 20), k(1 << 21));
        assert_ne!(k(5), Key::new(&dev, "alg", "u64", &[5, 7]));
        assert_ne!(k(5), Key::new(&dev, "alg2", "u32", &[5, 7]));
        assert_ne!(k(5), Key::new(&dev, "alg", "u32", &[5, 8]));
        let text = Key::new(&dev, "a|b\tc", "u32", &[5]).as_str().to_string();
        assert!(text.starts_with("a_b_c|u32|3|"), "{text}");
        assert!(!text.contains('\t'));
    }

    #[test]
    fn tunes_once_then_remembers() {
        let runs = Cell::new(0);
        let time = |c: &u32| {
            runs.set(runs.get() + 1);
            fake_time(c)
        };
        let choose = || {
            Tuner::new(key("tunes_once"), &CANDIDATES, "a")
                .choose_in(&on(None), false, time)
                .unwrap()
        };
        let first = choose();
        assert_eq!((first.label, first.how), ("c", How::Tuned));
        assert_eq!(runs.get(), 3, "each candidate once");
        let second = choose();
        assert_eq!((second.label, second.how), ("c", How::Cached));
        assert_eq!(runs.get(), 3, "nothing runs the second time");
    }

    #[test]
    fn the_call_that_tunes_runs_the_winner_last_and_no_other_call_runs() {
        let dev = Device::simulator();
        let ran = RefCell::new(Vec::new());
        let run = |c: &u32| {
            ran.borrow_mut().push(*c);
            Ok(())
        };
        let tuner = || {
            Tuner::new(key("winner_last"), &CANDIDATES, "a")
                .settings(on(None))
                .repetitions(2)
                .tune_on_simulator()
        };
        let c = tuner().choose(&dev, run).unwrap();
        assert_eq!(c.how, How::Tuned);
        // In their order, each untimed once and timed twice; then the winner.
        let mut want: Vec<u32> = CANDIDATES.iter().flat_map(|(_, c)| [*c; 3]).collect();
        want.push(*c.config);
        assert_eq!(*ran.borrow(), want);
        // A stored choice and a forced one run nothing.
        ran.borrow_mut().clear();
        assert_eq!(tuner().choose(&dev, run).unwrap().how, How::Cached);
        force("winner_last", Some("b"));
        let forced = tuner().choose(&dev, run).unwrap();
        force("winner_last", None);
        assert_eq!((forced.label, forced.how), ("b", How::Forced));
        assert!(ran.borrow().is_empty(), "{:?}", ran.borrow());
    }

    #[test]
    fn invalid_candidates_never_run_and_cached_winners_fall_back() {
        let ran = RefCell::new(Vec::new());
        let time = |c: &u32| {
            ran.borrow_mut().push(*c);
            fake_time(c)
        };
        let k = key("invalid_fall_back");
        let first = Tuner::new(k.clone(), &CANDIDATES, "a")
            .valid(|&c| c != 2)
            .choose_in(&on(None), false, time)
            .unwrap();
        assert_eq!(first.label, "c");
        assert_eq!(*ran.borrow(), vec![1, 3], "b is invalid: never run");
        // The winner is invalid for the next input: the next of the ranking.
        let never = |_: &u32| -> Result<Duration> { panic!("nothing runs") };
        let next = Tuner::new(k.clone(), &CANDIDATES, "a")
            .valid(|&c| c != 3)
            .choose_in(&on(None), false, never)
            .unwrap();
        assert_eq!((next.label, next.how), ("a", How::Cached));
        // Nothing of the ranking is valid: the default, else the first valid one.
        let only_b = Tuner::new(k.clone(), &CANDIDATES, "b")
            .valid(|&c| c == 2)
            .choose_in(&on(None), false, never)
            .unwrap();
        assert_eq!((only_b.label, only_b.how), ("b", How::Fallback));
        let default_invalid = Tuner::new(k.clone(), &CANDIDATES, "a")
            .valid(|&c| c == 2)
            .choose_in(&on(None), false, never)
            .unwrap();
        assert_eq!(default_invalid.label, "b");
        // None valid: an error, and nothing runs.
        let none =
            Tuner::new(k, &CANDIDATES, "a")
                .valid(|_| false)
                .choose_in(&on(None), false, never);
        assert!(
            matches!(none, Err(Error::InvalidArgument { .. })),
            "{none:?}"
        );
    }

    #[test]
    fn a_new_candidate_list_is_retuned() {
        let k = key("new_candidates");
        let runs = Cell::new(0);
        let time = |c: &u32| {
            runs.set(runs.get() + 1);
            fake_time(c)
        };
        Tuner::new(k.clone(), &CANDIDATES[..2], "a")
            .choose_in(&on(None), false, time)
            .unwrap();
        assert_eq!(runs.get(), 2);
        let again = Tuner::new(k, &CANDIDATES, "a")
            .choose_in(&on(None), false, time)
            .unwrap();
        assert_eq!((again.label, again.how), ("c", How::Tuned));
        assert_eq!(runs.get(), 5);
    }

    #[test]
    fn off_and_the_simulator_run_nothing() {
        let never = |_: &u32| -> Result<Duration> { panic!("nothing runs") };
        let off = Settings {
            enabled: false,
            file: None,
        };
        let c = Tuner::new(key("off"), &CANDIDATES, "b")
            .choose_in(&off, false, never)
            .unwrap();
        assert_eq!((c.label, c.how), ("b", How::Default));
        let c = Tuner::new(key("sim"), &CANDIDATES, "b")
            .choose_in(&on(None), true, never)
            .unwrap();
        assert_eq!((c.label, c.how), ("b", How::Default));
        // Through `choose` on the simulator: the closure is never called.
        let c = Tuner::new(key("sim_choose"), &CANDIDATES, "a")
            .settings(on(None))
            .choose(&Device::simulator(), |_| panic!("nothing runs"))
            .unwrap();
        assert_eq!((c.label, c.how), ("a", How::Default));
    }

    #[test]
    fn a_candidate_that_tunes_inside_does_not_deadlock() {
        let inner = |c: &u32| {
            let nested = Tuner::new(key(&format!("nested_inner_{c}")), &CANDIDATES, "a")
                .choose_in(&on(None), false, fake_time)
                .unwrap();
            assert_eq!(nested.how, How::Tuned);
            fake_time(c)
        };
        let outer = Tuner::new(key("nested_outer"), &CANDIDATES, "a")
            .choose_in(&on(None), false, inner)
            .unwrap();
        assert_eq!((outer.label, outer.how), ("c", How::Tuned));
        // The lock is free again: another thread tunes.
        std::thread::spawn(|| {
            Tuner::new(key("nested_after"), &CANDIDATES, "a")
                .choose_in(&on(None), false, fake_time)
                .unwrap()
                .how
        })
        .join()
        .unwrap();
    }

    #[test]
    fn forcing_picks_a_valid_label_on_this_thread() {
        let never = |_: &u32| -> Result<Duration> { panic!("nothing runs") };
        force("forced_alg", Some("c"));
        let c = Tuner::new(key("forced_alg"), &CANDIDATES, "a")
            .choose_in(&on(None), true, never)
            .unwrap();
        assert_eq!((c.label, c.how), ("c", How::Forced));
        // Invalid for the input: not forced.
        let c = Tuner::new(key("forced_alg"), &CANDIDATES, "a")
            .valid(|&c| c != 3)
            .choose_in(&on(None), true, never)
            .unwrap();
        assert_eq!((c.label, c.how), ("a", How::Default));
        force("forced_alg", None);
        let c = Tuner::new(key("forced_alg"), &CANDIDATES, "a")
            .choose_in(&on(None), true, never)
            .unwrap();
        assert_eq!(c.how, How::Default);
    }

    #[test]
    fn bad_candidate_lists_are_refused() {
        let never = |_: &u32| -> Result<Duration> { panic!("nothing runs") };
        let refused = |cands: &[(&str, u32)], default: &str| {
            let r = Tuner::new(key("refused"), cands, default).choose_in(&on(None), false, never);
            assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{cands:?}");
        };
        refused(&[], "a");
        refused(&[("a", 1)], "b");
        refused(&[("a", 1), ("a", 2)], "a");
        refused(&[("a b", 1)], "a b");
        refused(&[("a,b", 1)], "a,b");
        refused(&[("a=1", 1)], "a=1");
        refused(&[("", 1)], "");
    }

    #[test]
    fn failing_candidates_are_left_out() {
        let time = |c: &u32| {
            if *c == 3 {
                Err(Error::InvalidArgument {
                    what: "c".into(),
                    reason: "too big".into(),
                })
            } else {
                fake_time(c)
            }
        };
        let c = Tuner::new(key("failing"), &CANDIDATES, "a")
            .choose_in(&on(None), false, time)
            .unwrap();
        assert_eq!(c.label, "b");
        let all_fail = Tuner::new(key("all_fail"), &CANDIDATES, "a").choose_in(
            &on(None),
            false,
            |_| -> Result<Duration> {
                Err(Error::InvalidArgument {
                    what: "x".into(),
                    reason: "y".into(),
                })
            },
        );
        assert!(all_fail.is_err());
    }

    #[test]
    fn the_file_round_trips() {
        let dir = temp_dir("round_trip");
        let file = dir.join(FILE_NAME);
        let k = key("file_round_trip");
        let c = Tuner::new(k.clone(), &CANDIDATES, "a")
            .choose_in(&on(Some(file.clone())), false, fake_time)
            .unwrap();
        assert_eq!(c.how, How::Tuned);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("warpspeed autotune v1\n"), "{text}");
        assert!(text.contains("\tc=97,b=98,a=99\ta,b,c\n"), "{text}");
        let entries = parse(&text).unwrap();
        assert_eq!(
            entries[k.as_str()].ranking,
            vec![("c".into(), 97), ("b".into(), 98), ("a".into(), 99)]
        );
        assert_eq!(format(&entries), text);
        // Another key joins the file; the first stays.
        let k2 = key("file_round_trip_2");
        Tuner::new(k2.clone(), &CANDIDATES, "a")
            .choose_in(&on(Some(file.clone())), false, fake_time)
            .unwrap();
        let both = load(&file);
        assert!(both.contains_key(k.as_str()) && both.contains_key(k2.as_str()));
        // A process that has not seen the key reads it from the file: simulated by a key
        // written to the file by hand.
        let k3 = key("file_round_trip_3");
        let mut entries = load(&file);
        entries.insert(
            k3.as_str().to_string(),
            Entry {
                ranking: vec![("b".into(), 5), ("a".into(), 6)],
                candidates: vec!["a".into(), "b".into(), "c".into()],
            },
        );
        std::fs::write(&file, format(&entries)).unwrap();
        let never = |_: &u32| -> Result<Duration> { panic!("nothing runs") };
        let c = Tuner::new(k3, &CANDIDATES, "a")
            .choose_in(&on(Some(file.clone())), false, never)
            .unwrap();
        assert_eq!((c.label, c.how), ("b", How::Cached));
        // No temporary file is left behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(FILE_NAME)]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn damaged_and_foreign_files_are_ignored() {
        let good = format!("{HEADER}\nk|u32|1\tb=5,a=6\ta,b,c\n");
        assert!(parse(&good).is_some());
        for bad in [
            String::new(),
            "garbage".to_string(),
            "warpspeed autotune v2\nk|u32|1\tb=5,a=6\ta,b,c\n".to_string(),
            format!("{HEADER}\nk|u32|1\tb=5,a=6\n"),
            format!("{HEADER}\nk|u32|1\tb=x,a=6\ta,b,c\n"),
            format!("{HEADER}\nk|u32|1\tb5\ta,b,c\n"),
            format!("{HEADER}\nk|u32|1\td=5\ta,b,c\n"),
            format!("{HEADER}\nk|u32|1\tb=5\ta,b,c\textra\n"),
            format!("{HEADER}\n\tb=5\ta,b\n"),
            good[..good.len() - 8].to_string(),
        ] {
            assert_eq!(parse(&bad), None, "{bad:?}");
        }
        // On disk: a damaged file is no error, tuning runs and replaces it.
        let dir = temp_dir("damaged");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(FILE_NAME);
        std::fs::write(&file, "warpspeed autotune v0\n\u{0}\u{1}binary").unwrap();
        let c = Tuner::new(key("damaged_file"), &CANDIDATES, "a")
            .choose_in(&on(Some(file.clone())), false, fake_time)
            .unwrap();
        assert_eq!((c.label, c.how), ("c", How::Tuned));
        assert!(parse(&std::fs::read_to_string(&file).unwrap()).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn readers_never_see_half_a_file() {
        let dir = temp_dir("atomic");
        let file = dir.join(FILE_NAME);
        let entry = Entry {
            ranking: vec![("a".into(), 1)],
            candidates: vec!["a".into(), "b".into()],
        };
        std::thread::scope(|s| {
            for t in 0..3 {
                let (file, entry) = (&file, &entry);
                s.spawn(move || {
                    for i in 0..40 {
                        store(file, &format!("key-{t}-{i}|{}", "x".repeat(200)), entry);
                    }
                });
            }
            for _ in 0..200 {
                match std::fs::read_to_string(&file) {
                    Ok(text) => assert!(parse(&text).is_some(), "a torn file: {text:?}"),
                    Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::NotFound),
                }
            }
        });
        assert!(parse(&std::fs::read_to_string(&file).unwrap()).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_file_is_no_error() {
        let file = PathBuf::from("/proc/warpspeed-cannot-exist").join(FILE_NAME);
        let c = Tuner::new(key("unwritable"), &CANDIDATES, "a")
            .choose_in(&on(Some(file)), false, fake_time)
            .unwrap();
        assert_eq!(c.how, How::Tuned);
    }

    #[test]
    fn warpspeed_autotune_off_turns_it_off() {
        for off in ["off", "OFF", "0", "false", "no", " off "] {
            assert!(!enabled_by(off), "{off:?}");
        }
        for on in ["", "on", "1", "yes"] {
            assert!(enabled_by(on), "{on:?}");
        }
    }

    #[test]
    fn the_environment_is_read() {
        // Only the parsing of a value given here: tests in other threads read the
        // environment, so it is not changed.
        let s = Settings::from_env();
        assert_eq!(
            s.file.is_some(),
            DiskCache::from_env().is_some(),
            "the file is beside the CUBIN cache"
        );
        if let Some(file) = s.file {
            assert!(file.ends_with(FILE_NAME));
        }
    }
}
