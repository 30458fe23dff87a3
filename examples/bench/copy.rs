//! The memory ceiling: a device-to-device copy of 1 GiB (`cuMemcpyDtoD` through cudarc),
//! beside the peers' copies. Its bandwidth (bytes read + written per second) is what the
//! streaming rows (vector add, scan, histogram) are measured against: "x% of copy".

use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Res};

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let bytes = 1usize << b.sizes.copy_log2;
    let src = b.stream.clone_htod(&vec![0x5Au8; bytes])?;
    let mut dst = b.stream.alloc_zeros::<u8>(bytes)?;
    let mut steps: Vec<Step> = vec![Box::new(|| Ok(b.stream.memcpy_dtod(&src, &mut dst)?))];
    let ms = best_ms(b, &mut steps)?[0];
    drop(steps);
    // A copy that copied nothing is no ceiling.
    let sample = b.stream.clone_dtoh(&dst.slice(bytes - 4096..))?;
    if sample.iter().any(|&v| v != 0x5A) {
        b.mismatch("device-to-device copy: the destination does not hold the source");
    }
    let gbs = 2.0 * bytes as f64 / (ms * 1e-3) / 1e9;
    b.copy_gbs.set(Some(gbs));
    let row = Row::new(
        "d2d copy (ceiling)",
        format!("2^{} B", b.sizes.copy_log2),
        Unit::Ms,
    );
    Ok(vec![Row {
        hand: Some(ms),
        ..row
    }
    .peers(b.peers(&format!("copy_2^{}_bytes", b.sizes.copy_log2), Unit::Ms))
    .note(format!("hand = cudarc, {gbs:.0} GB/s"))])
}
