//! The radix sort's tiles (issue 22): `sort::sort` of 2^28 i32 keys and `sort::sort_pairs`
//! of the same keys with i64 indices, each tile of `sort::TILES_32` forced
//! (`autotune::force("sort", ..)`: 16, 24, 32 and 8 keys a thread), then the tuner's own
//! choice (tuned in the untimed warm-up run the first time, or read from the file),
//! checked and unchecked, beside cupy.sort (CUB) and torch.sort, as the `sort` group's
//! rows (the same restore of the input, taken off; the same checks of the result). What
//! the default tile is chosen from.

use warpspeed::algorithms::sort::TILES_32;
use warpspeed::autotune::{self, Key, Settings};

use crate::common::XorShift;
use crate::sort::{keys_row, pairs_row};
use crate::table::{Row, Unit};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    use warpspeed::algorithms::sort::kernels as k;
    vec![
        (
            "checked",
            k::onesweep_wide_i32::kernel::<u32, 24, 6144, false>(),
        ),
        (
            "unchecked",
            k::unchecked::onesweep_wide_i32::kernel::<u32, 24, 6144, false>(),
        ),
        (
            "checked",
            k::onesweep_wide_i32::kernel::<u32, 32, 8192, false>(),
        ),
        (
            "unchecked",
            k::unchecked::onesweep_wide_i32::kernel::<u32, 32, 8192, false>(),
        ),
        ("checked", k::onesweep_i32::kernel::<u32, 8, 2048, false>()),
        (
            "unchecked",
            k::unchecked::onesweep_i32::kernel::<u32, 8, 2048, false>(),
        ),
        ("checked", k::onesweep_i32::kernel::<u64, 8, 2048, true>()),
        (
            "checked",
            k::onesweep_wide_i32::kernel::<u64, 24, 6144, true>(),
        ),
        (
            "checked",
            k::onesweep_wide_i32::kernel::<u64, 32, 8192, true>(),
        ),
    ]
}

/// `f` with this thread's sorts forced to `label` (`None`: the tuner's own choice).
fn with_forced<R>(label: Option<&str>, f: impl FnOnce() -> R) -> R {
    autotune::force("sort", label);
    let r = f();
    autotune::force("sort", None);
    r
}

/// What the tuner chose for the sort of `type_name` keys (and values), for the tuned row.
fn chosen(b: &Bench, type_name: &str, n: usize) -> String {
    let key = Key::new(&b.dev, "sort", type_name, &[n]);
    autotune::ranking(&key, &Settings::from_env())
        .map(|r| format!("tuned ranking {}", r.join(" < ")))
        .unwrap_or_else(|| "the default (not tuned: WARPSPEED_AUTOTUNE=off?)".into())
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let mut rng = XorShift::new(n as u64 + 5);
    let i32s: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let i64_index: Vec<i64> = (0..n as i64).collect();
    let labels = TILES_32.iter().map(|&(label, items)| (Some(label), items));
    let mut rows = Vec::new();
    for (label, items) in labels.chain([(None, 0)]) {
        let tile = match label {
            Some(label) => format!(", {label} ({items} a thread)"),
            None => ", tuned".to_string(),
        };
        let bits = |k: i32| k as u32 as u64;
        let keys = with_forced(label, || keys_row(b, &tile, "i32", &i32s, log2, bits))?;
        let index_of = |v: &i64| *v as usize;
        let pairs = with_forced(label, || {
            pairs_row(b, &tile, &i32s, &i64_index, log2, "i64 indices", index_of)
        })?
        .peers(b.peers(&format!("sort_pairs_2^{log2}_i32"), Unit::Ms));
        match label {
            Some(_) => rows.extend([keys, pairs]),
            None => rows.extend([
                keys.note(chosen(b, "i32", n)),
                pairs.note(chosen(b, "(i32, u64)", n)),
            ]),
        }
    }
    Ok(rows)
}
