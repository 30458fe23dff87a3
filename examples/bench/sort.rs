//! `warpspeed::algorithms::sort` (issue 22). Group `sort`: 2^28 i32, 2^28 f32 and 2^27 i64
//! keys; group `sort_pairs`: the same i32 keys with i64 indices (what torch.sort returns)
//! and the rows below. Each as the library runs them (scratch
//! given, so no allocation is timed) and with the `unchecked` kernels; peers cupy.sort
//! (CUB's radix sort) and torch.sort. The sort is in place, so each run first restores
//! the input from a pristine copy: that copy is timed alone in the same rounds and taken
//! off (the note gives it). Results checked: ascending, the same multiset of keys (sums
//! and xors of the bits), and for pairs `keys[i] == input[values[i]]` with equal keys in
//! increasing index order (stable) and every index once. Beside the i64 pairs row,
//! `sort_with_indices` makes the same result (torch.sort's) from the keys alone: its
//! positions made on the device, moved as `u32`, widened to i64 at the end.
//!
//! Values of another type: 2^26 i32 keys with `u32` indices and, beside them, with a
//! 16-byte `#[gpu_struct]` (`Payload`), which `sort_pairs` moves by position (the keys
//! sorted with `u32` positions, then one gather of the values by 8-byte words). No peer
//! for these two: torch.sort has no struct values (its sort returns indices, and a gather
//! of each field is the user's), nor does cupy.

use warpspeed::algorithms::sort::{self, Order, Scratch, SortKey};
use warpspeed::prelude::gpu_struct;
use warpspeed::{DeviceBuffer, KernelScalar, Scalar};

/// The struct value of the struct pairs row: 16 bytes, its index in `id`.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Payload {
    id: u32,
    weight: f32,
    energy: f32,
    flags: u32,
}

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    use sort::kernels as k;
    vec![
        ("checked", k::histogram_i32::kernel()),
        ("unchecked", k::unchecked::histogram_i32::kernel()),
        // Values ride the passes as the word of their size: i64 indices as u64.
        ("checked", k::onesweep_i32::kernel::<u32, 16, 4096, false>()),
        (
            "unchecked",
            k::unchecked::onesweep_i32::kernel::<u32, 16, 4096, false>(),
        ),
        ("checked", k::onesweep_i32::kernel::<u64, 16, 4096, true>()),
        ("checked", k::onesweep_i32::kernel::<u32, 16, 4096, true>()),
        (
            "unchecked",
            k::unchecked::onesweep_i32::kernel::<u64, 16, 4096, true>(),
        ),
        ("checked", k::onesweep_f32::kernel::<u32, 16, 4096, false>()),
        (
            "unchecked",
            k::unchecked::onesweep_f32::kernel::<u32, 16, 4096, false>(),
        ),
        ("checked", k::onesweep_i64::kernel::<u32, 8, 2048, false>()),
        (
            "unchecked",
            k::unchecked::onesweep_i64::kernel::<u32, 8, 2048, false>(),
        ),
        ("checked", k::digit_bases::kernel()),
        ("checked", k::iota::kernel()),
        ("checked", k::widen_positions::kernel()),
        ("checked", k::gather_words::kernel::<u64>()),
        ("unchecked", k::unchecked::gather_words::kernel::<u64>()),
    ]
}

/// The `sort` group: keys alone, 2^log2 i32 and f32, 2^(log2 - 1) i64.
pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let mut rng = XorShift::new(n as u64 + 5);
    let i32s: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let f32s: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e6, 1e6)).collect();
    let i64s: Vec<i64> = (0..n / 2).map(|_| rng.next_u64() as i64).collect();
    Ok(vec![
        keys_row(b, "", "i32", &i32s, log2, |k| k as u32 as u64)?,
        keys_row(b, "", "f32", &f32s, log2, |k| k.to_bits() as u64)?,
        keys_row(b, "", "i64", &i64s, log2 - 1, |k| k as u64)?,
    ])
}

/// The `sort_pairs` group: the `sort` group's i32 keys with i64 indices (`sort_pairs` of
/// an uploaded `0..n`, and `sort_with_indices`: torch.sort's result), then a quarter of
/// them with u32 indices and with 16-byte struct values.
pub fn pairs_rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let mut rng = XorShift::new(n as u64 + 5);
    let i32s: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let i64_index: Vec<i64> = (0..n as i64).collect();
    let torch_sort = || b.peers(&format!("sort_pairs_2^{log2}_i32"), Unit::Ms);
    let mut rows = vec![
        pairs_row(b, "", &i32s, &i64_index, log2, "i64 indices", |v| {
            *v as usize
        })?
        .peers(torch_sort()),
        indices_row(b, &i32s, log2)?.peers(torch_sort()),
    ];
    let quarter = &i32s[..n >> 2];
    let u32s: Vec<u32> = (0..quarter.len() as u32).collect();
    rows.push(
        pairs_row(b, "", quarter, &u32s, log2 - 2, "u32 indices", |v| {
            *v as usize
        })?
        .note("torch.sort has no value argument: no peer"),
    );
    let payloads: Vec<Payload> = (0..quarter.len() as u32)
        .map(|i| Payload {
            id: i,
            weight: i as f32 * 0.5,
            energy: -(i as f32),
            flags: i ^ 0x5a5a_5a5a,
        })
        .collect();
    rows.push(
        pairs_row(
            b,
            "",
            quarter,
            &payloads,
            log2 - 2,
            "16-byte #[gpu_struct] values",
            |p| p.id as usize,
        )?
        .note("moved by position (keys sorted with u32 positions, then one gather); torch and cupy sort no struct values: no peer"),
    );
    Ok(rows)
}

/// The `top_k` group: the 100 greatest of 2^(log2 - 4) uniform f32.
pub fn top_k_rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2 - 4;
    let mut rng = XorShift::new(log2 as u64 + 11);
    let f32s: Vec<f32> = (0..1usize << log2)
        .map(|_| rng.range_f32(-1e6, 1e6))
        .collect();
    Ok(vec![top_k_row(b, &f32s, log2)?])
}

/// The multiset fingerprint of keys' bits: wrapping sum, xor, sum of squares.
fn fingerprint<K: Copy>(keys: &[K], bits: impl Fn(K) -> u64) -> (u64, u64, u64) {
    keys.iter().fold((0, 0, 0), |(s, x, q), &k| {
        let b = bits(k);
        (s.wrapping_add(b), x ^ b, q.wrapping_add(b.wrapping_mul(b)))
    })
}

/// Whether `got` is ascending in the keys' order (`bits` of the ordered form) and holds
/// the same keys as `input`.
fn sorted_same<K: Copy>(
    b: &Bench,
    what: &str,
    got: &[K],
    input: &[K],
    bits: impl Fn(K) -> u64 + Copy,
    ordered: impl Fn(K) -> u64,
) -> bool {
    if let Some(i) = (1..got.len()).find(|&i| ordered(got[i - 1]) > ordered(got[i])) {
        b.mismatch(format_args!("{what}: not ascending at {i}"));
        return false;
    }
    if fingerprint(got, bits) != fingerprint(input, bits) {
        b.mismatch(format_args!("{what}: not the input's keys"));
        return false;
    }
    true
}

/// The ordered bits of a key as the CPU sees them (`total_cmp` for floats).
fn ordered_of<K: Copy>(bits: impl Fn(K) -> u64, width: u32, float: bool) -> impl Fn(K) -> u64 {
    let sign = 1u64 << (width - 1);
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    move |k| {
        let b = bits(k);
        if float && b & sign != 0 {
            !b & mask
        } else {
            b ^ sign
        }
    }
}

/// `sort::sort_with_scratch` of `keys`, checked and unchecked; `tile` goes in the row's
/// name (the `sort_tiles` group's rows, one a forced tile).
pub fn keys_row<K: SortKey + Scalar>(
    b: &Bench,
    tile: &str,
    ty: &str,
    keys: &[K],
    log2: u32,
    bits: impl Fn(K) -> u64 + Copy,
) -> Res<Row> {
    let dev = &b.dev;
    let n = keys.len();
    let pristine = dev.upload(keys)?;
    let mut work = [dev.zeros::<K>(n)?, dev.zeros::<K>(n)?];
    let mut scratch = [Scratch::<K>::new(dev, n)?, Scratch::<K>::new(dev, n)?];
    scratch[1].use_unchecked_kernels(true);
    let t = {
        let [c, u] = &mut work;
        let [sc, su] = &mut scratch;
        let p = &pristine;
        let mut copy_only = dev.zeros::<K>(n)?;
        let mut steps: Vec<Step> = vec![
            Box::new(move || Ok(copy_only.copy_from(p)?)),
            Box::new(|| {
                c.copy_from(p)?;
                Ok(sort::sort_with_scratch(dev, c, Order::Ascending, sc)?)
            }),
            Box::new(|| {
                u.copy_from(p)?;
                Ok(sort::sort_with_scratch(dev, u, Order::Ascending, su)?)
            }),
        ];
        best_ms(b, &mut steps)?
    };
    let width = 8 * std::mem::size_of::<K>() as u32;
    let ordered = ordered_of(bits, width, ty.starts_with('f'));
    for (who, w) in ["checked", "unchecked"].iter().zip(&work) {
        sorted_same(
            b,
            &format!("sort {ty} ({who})"),
            &w.download()?,
            keys,
            bits,
            &ordered,
        );
    }
    let (checked, unchecked) = (t[1] - t[0], t[2] - t[0]);
    Ok(Row::new(
        format!("sort::sort {ty} keys{tile} (algorithms)"),
        format!("2^{log2} {ty}"),
        Unit::Ms,
    )
    .times(checked, Some(unchecked), None)
    .peers(b.peers(&format!("sort_2^{log2}_{ty}"), Unit::Ms))
    .note(format!(
        "{:.0} Mkeys/s; restoring the input ({:.3} ms) taken off",
        n as f64 / (checked * 1e-3) / 1e6,
        t[0]
    )))
}

/// `sort_pairs` of `keys` with `index` (each value names its key's input position,
/// `index_of` reads it back), checked and unchecked; `tile` as [`keys_row`]'s.
pub fn pairs_row<V: KernelScalar>(
    b: &Bench,
    tile: &str,
    keys: &[i32],
    index: &[V],
    log2: u32,
    what: &str,
    index_of: impl Fn(&V) -> usize,
) -> Res<Row> {
    let dev = &b.dev;
    let n = keys.len();
    let pristine = dev.upload(keys)?;
    let iota: DeviceBuffer<V> = dev.upload(index)?;
    let mut work = [dev.zeros::<i32>(n)?, dev.zeros::<i32>(n)?];
    let mut values = [dev.zeros::<V>(n)?, dev.zeros::<V>(n)?];
    let mut scratch = [
        Scratch::<i32, V>::with_values(dev, n)?,
        Scratch::<i32, V>::with_values(dev, n)?,
    ];
    scratch[1].use_unchecked_kernels(true);
    let t = {
        let [c, u] = &mut work;
        let [vc, vu] = &mut values;
        let [sc, su] = &mut scratch;
        let (p, i) = (&pristine, &iota);
        let mut copy_keys = dev.zeros::<i32>(n)?;
        let mut copy_values = dev.zeros::<V>(n)?;
        let mut steps: Vec<Step> = vec![
            Box::new(move || {
                copy_keys.copy_from(p)?;
                Ok(copy_values.copy_from(i)?)
            }),
            Box::new(|| {
                c.copy_from(p)?;
                vc.copy_from(i)?;
                Ok(sort::sort_pairs_with_scratch(
                    dev,
                    c,
                    vc,
                    Order::Ascending,
                    sc,
                )?)
            }),
            Box::new(|| {
                u.copy_from(p)?;
                vu.copy_from(i)?;
                Ok(sort::sort_pairs_with_scratch(
                    dev,
                    u,
                    vu,
                    Order::Ascending,
                    su,
                )?)
            }),
        ];
        best_ms(b, &mut steps)?
    };
    check_permutation(
        b,
        keys,
        &work,
        &values,
        &format!("sort_pairs i32 + {what}"),
        index_of,
    )?;
    let (checked, unchecked) = (t[1] - t[0], t[2] - t[0]);
    Ok(Row::new(
        format!("sort::sort_pairs i32 keys, {what}{tile} (algorithms)"),
        format!("2^{log2} i32"),
        Unit::Ms,
    )
    .times(checked, Some(unchecked), None)
    .note(format!(
        "{:.0} Mpairs/s; restoring the input ({:.3} ms) taken off",
        n as f64 / (checked * 1e-3) / 1e6,
        t[0]
    )))
}

/// Each contestant's (checked, unchecked) keys ascending with `index` their positions in
/// `keys`: every position once, the key there, equal keys in increasing position (stable).
fn check_permutation<V: KernelScalar>(
    b: &Bench,
    keys: &[i32],
    work: &[DeviceBuffer<i32>; 2],
    values: &[DeviceBuffer<V>; 2],
    what: &str,
    index_of: impl Fn(&V) -> usize,
) -> Res<()> {
    let n = keys.len();
    for (who, (w, v)) in ["checked", "unchecked"].iter().zip(work.iter().zip(values)) {
        let (got, index) = (w.download()?, v.download()?);
        let mut seen = vec![false; n];
        for i in 0..n {
            let j = index_of(&index[i]);
            let stable = i == 0 || got[i - 1] < got[i] || index_of(&index[i - 1]) < j;
            if j >= n || seen[j] || keys[j] != got[i] || !stable {
                b.mismatch(format_args!("{what} ({who}): wrong at {i} (index {j})"));
                break;
            }
            seen[j] = true;
        }
    }
    Ok(())
}

/// `sort::sort_with_indices` of `keys` with `i64` positions (torch.sort's result, as the
/// i64 indices row of `sort_pairs` makes it from an uploaded `0..n`), checked and
/// unchecked; the restore copies only the keys (the indices are the sort's output).
fn indices_row(b: &Bench, keys: &[i32], log2: u32) -> Res<Row> {
    let dev = &b.dev;
    let n = keys.len();
    let pristine = dev.upload(keys)?;
    let mut work = [dev.zeros::<i32>(n)?, dev.zeros::<i32>(n)?];
    let mut indices = [dev.zeros::<i64>(n)?, dev.zeros::<i64>(n)?];
    let mut scratch = [
        Scratch::<i32, i64>::with_values(dev, n)?,
        Scratch::<i32, i64>::with_values(dev, n)?,
    ];
    scratch[1].use_unchecked_kernels(true);
    let t = {
        let [c, u] = &mut work;
        let [ic, iu] = &mut indices;
        let [sc, su] = &mut scratch;
        let p = &pristine;
        let mut copy_keys = dev.zeros::<i32>(n)?;
        let asc = Order::Ascending;
        let mut steps: Vec<Step> = vec![
            Box::new(move || Ok(copy_keys.copy_from(p)?)),
            Box::new(|| {
                c.copy_from(p)?;
                Ok(sort::sort_with_indices_with_scratch(dev, c, ic, asc, sc)?)
            }),
            Box::new(|| {
                u.copy_from(p)?;
                Ok(sort::sort_with_indices_with_scratch(dev, u, iu, asc, su)?)
            }),
        ];
        best_ms(b, &mut steps)?
    };
    let what = "sort_with_indices i32 + i64";
    check_permutation(b, keys, &work, &indices, what, |&v| v as usize)?;
    let (checked, unchecked) = (t[1] - t[0], t[2] - t[0]);
    Ok(Row::new(
        "sort::sort_with_indices i32 keys, i64 indices (algorithms)",
        format!("2^{log2} i32"),
        Unit::Ms,
    )
    .times(checked, Some(unchecked), None)
    .note(format!(
        "{:.0} Mpairs/s; positions made on the device, moved as u32, widened at the end; restoring the keys ({:.3} ms) taken off",
        n as f64 / (checked * 1e-3) / 1e6,
        t[0]
    )))
}

/// `sort::top_k` of the 100 greatest of 2^(log2) f32, as a user calls it (its scratch
/// allocated in the call, its waits for the digit counts: timed), checked and unchecked;
/// peer torch.topk.
fn top_k_row(b: &Bench, x: &[f32], log2: u32) -> Res<Row> {
    let dev = &b.dev;
    let k = 100;
    let d = dev.upload(x)?;
    let (mut values, mut at) = (dev.zeros::<f32>(k)?, dev.zeros::<u32>(k)?);
    let (mut values_u, mut at_u) = (dev.zeros::<f32>(k)?, dev.zeros::<u32>(k)?);
    let t = {
        let mut steps: Vec<Step> = vec![
            Box::new(|| Ok(sort::top_k(dev, &d, k, &mut values, &mut at)?)),
            Box::new(|| Ok(sort::top_k_unchecked(dev, &d, k, &mut values_u, &mut at_u)?)),
        ];
        best_ms(b, &mut steps)?
    };
    if at_u.download()? != at.download()? {
        b.mismatch("top_k: the unchecked kernels' indices differ");
    }
    let mut want: Vec<f32> = x.to_vec();
    want.sort_by(|a, b| b.total_cmp(a));
    b.check(
        "top_k values",
        &values.download()?,
        &want[..k],
        f32::to_bits,
    );
    let got_at = at.download()?;
    if got_at
        .iter()
        .zip(values.download()?)
        .any(|(&i, v)| x[i as usize].to_bits() != v.to_bits())
    {
        b.mismatch("top_k: an index does not hold its value");
    }
    Ok(Row::new(
        "sort::top_k 100 of f32 (algorithms)",
        format!("2^{log2} f32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), None)
    .peers(b.peers(&format!("topk_100_2^{log2}_f32"), Unit::Ms))
    .note("radix select: digit passes, the kept keys sorted; allocations included".to_string()))
}
