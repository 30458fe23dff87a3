//! CPU references spread over the CPU's threads, so large GPU results are checked quickly.

/// Fills the row-major `out` (rows of `cols` elements) with `row(index, row)`, the rows
/// split into one contiguous chunk per CPU thread.
pub fn par_rows<T: Send>(out: &mut [T], cols: usize, row: impl Fn(usize, &mut [T]) + Sync) {
    if cols == 0 {
        return;
    }
    let rows = out.len() / cols;
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let rows_per = rows.div_ceil(threads).max(1);
    let row = &row;
    std::thread::scope(|s| {
        for (chunk_index, chunk) in out.chunks_mut(rows_per * cols).enumerate() {
            s.spawn(move || {
                for (r, out_row) in chunk.chunks_mut(cols).enumerate() {
                    row(chunk_index * rows_per + r, out_row);
                }
            });
        }
    });
}
