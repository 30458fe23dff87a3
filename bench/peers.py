#!/usr/bin/env python3
"""The peers of warpspeed's bench: what a user would pick instead of warpspeed, timed on the
same GPU and the same sizes as `cargo run --release --example bench`, written as JSON for
the bench's `--peers FILE.json` (bench/run.sh runs both and prints one table).

Peers (each optional: a failed import or a failed run is written as "n/a: why"):
  copy of 2^30 bytes (device to device)      torch .copy_, cupy.copyto      the memory ceiling
  vector add of 2^28 f32                     torch.add(a, b, out=c), a copy of the same bytes
  scan of 2^28 int32                         torch.cumsum(dtype=int32), cupy.cumsum
  sum of 2^28 float32 (small integers)       torch.sum, cupy.sum (CUB)
  select of 2^28 f32 (half kept by a mask,   torch.masked_select, cupy.compress, x[x > 0.5];
    x > 0.5), unique of 2^26 sorted int32      torch.unique_consecutive, cupy boolean indexing
  256-bin histogram of 2^28 bytes            cupy.histogram, torch.bincount, Triton
    (uniform random and one value)             (tl.histogram per program + atomic add)
  histogram::even of 2^28 f32, 256 bins      cupy.histogram, torch.histc, torch.bincount
    (uniform, one value), 4096, 65536 bins     (of the indices, computed untimed)
  matmul 4096^3 f32, no TF32                 cuBLAS through torch, Triton's tutorial kernel
                                               (input_precision="ieee", autotuned)
  autotune: sum of 2^28 u32, scan of       torch.sum / cupy.sum, torch.cumsum / cupy.cumsum
    2^28 i64                                   (the histogram rows: histogram_lib's peers)
  saxpy a*x+y of 2^28 f32 (a scalar)         torch.add(y, x, alpha=a), a cupy ElementwiseKernel
  the same on views from element 1           the same, on views (misaligned by 4 bytes)
  Monte Carlo pi, 40000 x 5000 points        torch.rand / cupy.random in chunks, counted
                                               (seed 002's program without per-thread state)
  empty kernel launch + wait, us             cupy.RawKernel, an empty @triton.jit
  GEMM (bf16, f16, tf32, fp8) and attention  cuBLAS/torch SDPA and Triton kernels:
                                               bench/peers_tensor.py

Every peer's result is checked against a CPU (numpy) or float64 reference first: a peer
that computes something else is no peer. GPU times are CUDA events around back-to-back
calls, the best of several rounds; launch overhead is host time per launch, with a wait at
the end. Row names carry their sizes and units, so a --quick bench only meets --quick peers.

    python3 bench/peers.py --out peers.json [--quick] [--rounds 5] [--only gemm,attention]
"""

import argparse
import datetime
import json
import math
import sys
import time
import traceback

import numpy as np

import peers_tensor  # bench/peers_tensor.py: GEMM and attention on the tensor cores


def log(msg):
    print(f"peers.py: {msg}", file=sys.stderr, flush=True)


def why(e):
    return f"n/a: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]


def try_import(name):
    try:
        return __import__(name), None
    except Exception as e:  # noqa: BLE001 (any failure makes the peer n/a)
        return None, why(e)


torch, torch_err = try_import("torch")
cupy, cupy_err = try_import("cupy")
triton, triton_err = try_import("triton")
tl = None
if triton is not None:
    try:
        import triton.language as tl  # noqa: F811
    except Exception as e:  # noqa: BLE001
        triton, triton_err = None, why(e)


class Timer:
    """Best ms per call of `run`, by CUDA events (torch's or CuPy's) around back-to-back
    calls: one call to warm up, one to size a round to about `round_ms`, then `rounds`."""

    def __init__(self, rounds, round_ms):
        self.rounds, self.round_ms = rounds, round_ms

    def best_ms(self, run, lib="torch"):
        if lib == "torch":
            event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
            elapsed = lambda s, e: s.elapsed_time(e)  # noqa: E731
        else:
            event = cupy.cuda.Event
            elapsed = cupy.cuda.get_elapsed_time
        run()

        def timed(iters):
            start, end = event(), event()
            start.record()
            for _ in range(iters):
                run()
            end.record()
            end.synchronize()
            return elapsed(start, end) / iters

        one = timed(1)
        iters = max(2, min(10000, int(self.round_ms / max(one, 1e-4))))
        return min(timed(iters) for _ in range(self.rounds))


class Peers:
    def __init__(self, args):
        self.args = args
        self.timer = Timer(args.rounds, args.round_ms)
        self.rows = {}

    def peer(self, row, name, available, measure):
        """Runs `measure()` (checks the peer's result, returns its time) into rows[row][name];
        an unavailable library or any failure is recorded as "n/a: why"."""
        entry = self.rows.setdefault(row, {})
        if available is not True:
            entry[name] = available
            return
        try:
            value = measure()
            entry[name] = round(float(value), 6)
            log(f"{row}: {name} {value:.4f}")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            entry[name] = why(e)
        finally:
            if torch is not None:
                torch.cuda.empty_cache()
            if cupy is not None:
                cupy.get_default_memory_pool().free_all_blocks()


def have(*libs):
    """True when every library imported, else the first one's "n/a: ..."."""
    errors = {"torch": torch_err, "cupy": cupy_err, "triton": triton_err}
    for lib in libs:
        if errors[lib]:
            return errors[lib]
    return True


def require(ok, what):
    if not ok:
        raise RuntimeError(f"wrong result: {what}")


# ---- copy and vector add ------------------------------------------------------------------


def copy_rows(p, copy_log2, vector_log2):
    nbytes = 1 << copy_log2
    row = f"copy_2^{copy_log2}_bytes_ms"

    def torch_copy(n=nbytes):
        src = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = p.timer.best_ms(lambda: dst.copy_(src))
        require(torch.equal(dst, src), "the copy differs from its source")
        return ms

    def cupy_copy():
        src = cupy.random.randint(0, 256, nbytes, dtype=cupy.uint8)
        dst = cupy.empty_like(src)
        ms = p.timer.best_ms(lambda: cupy.copyto(dst, src), lib="cupy")
        require(bool((dst == src).all()), "the copy differs from its source")
        return ms

    p.peer(row, "torch.copy_", have("torch"), torch_copy)
    p.peer(row, "cupy.copyto", have("cupy"), cupy_copy)

    n = 1 << vector_log2
    row = f"vector_add_2^{vector_log2}_f32_ms"

    def torch_add():
        a = torch.rand(n, device="cuda") * 2000 - 1000
        b = torch.rand(n, device="cuda") * 2000 - 1000
        c = torch.full_like(a, float("nan"))
        ms = p.timer.best_ms(lambda: torch.add(a, b, out=c))
        want = a.cpu().numpy() + b.cpu().numpy()
        require(np.array_equal(c.cpu().numpy().view(np.uint32), want.view(np.uint32)),
                "torch.add differs from numpy's a + b")
        return ms

    p.peer(row, "torch.add", have("torch"), torch_add)
    # Vector add reads 2 and writes 1 vector: a copy of 1.5 vectors moves as many bytes.
    p.peer(row, "d2d copy, same bytes", have("torch"), lambda: torch_copy(3 * n * 4 // 2))


# ---- scan -----------------------------------------------------------------------------------


def scan_rows(p, log2):
    n = 1 << log2
    row = f"scan_2^{log2}_i32_ms"
    # Small values keep the int32 prefix sums far from overflow; the time does not
    # depend on the values.
    host = np.random.default_rng(log2).integers(-8, 9, n, dtype=np.int32)
    want = np.cumsum(host, dtype=np.int64)

    def torch_cumsum():
        x = torch.from_numpy(host).cuda()
        out = torch.empty_like(x)
        ms = p.timer.best_ms(lambda: torch.cumsum(x, 0, dtype=torch.int32, out=out))
        require(np.array_equal(out.cpu().numpy(), want), "torch.cumsum differs from numpy")
        return ms

    def cupy_cumsum():
        x = cupy.asarray(host)
        out = [None]

        def run():
            out[0] = cupy.cumsum(x, dtype=cupy.int32)

        ms = p.timer.best_ms(run, lib="cupy")
        require(np.array_equal(cupy.asnumpy(out[0]), want), "cupy.cumsum differs from numpy")
        return ms

    p.peer(row, "torch.cumsum", have("torch"), torch_cumsum)
    p.peer(row, "cupy.cumsum", have("cupy"), cupy_cumsum)

    # float32 running sums (the library's fixed-order look-back): small integers as floats,
    # so every prefix is exact whatever the order.
    hostf = host.astype(np.float32)

    def torch_cumsum_f32():
        x = torch.from_numpy(hostf).cuda()
        out = torch.empty_like(x)
        ms = p.timer.best_ms(lambda: torch.cumsum(x, 0, out=out))
        require(np.array_equal(out.cpu().numpy(), want.astype(np.float32)), "torch.cumsum f32 differs")
        return ms

    p.peer(f"scan_2^{log2}_f32_ms", "torch.cumsum", have("torch"), torch_cumsum_f32)
    scan_i64_peers(p, log2)


def scan_i64_peers(p, log2):
    """torch.cumsum and cupy.cumsum of 2^log2 int64 (the scan and autotune groups' i64 rows)."""
    n = 1 << log2
    row = f"scan_2^{log2}_i64_ms"
    host = np.random.default_rng(log2 + 2207).integers(-8, 9, n).astype(np.int64)
    want_last = int(host.sum())

    def torch_cumsum():
        x = torch.from_numpy(host).cuda()
        out = torch.empty_like(x)
        ms = p.timer.best_ms(lambda: torch.cumsum(x, 0, out=out))
        require(int(out[-1].item()) == want_last, "torch.cumsum's last differs from numpy's")
        return ms

    def cupy_cumsum():
        x = cupy.asarray(host)
        out = cupy.empty_like(x)
        ms = p.timer.best_ms(lambda: cupy.cumsum(x, out=out), lib="cupy")
        require(int(out[-1]) == want_last, "cupy.cumsum's last differs from numpy's")
        return ms

    p.peer(row, "torch.cumsum", have("torch"), torch_cumsum)
    p.peer(row, "cupy.cumsum (CUB)", have("cupy"), cupy_cumsum)


# ---- reduce ---------------------------------------------------------------------------------


def reduce_rows(p, log2):
    n = 1 << log2
    row = f"sum_2^{log2}_f32_ms"
    # Integers in [-8, 8] as floats: every partial sum is exact, whatever the order.
    host = np.random.default_rng(log2 + 22).integers(-8, 9, n).astype(np.float32)
    want = float(host.astype(np.float64).sum())

    def torch_sum():
        x = torch.from_numpy(host).cuda()
        out = torch.empty((), device="cuda", dtype=torch.float32)
        ms = p.timer.best_ms(lambda: torch.sum(x, 0, out=out))
        require(float(out.item()) == want, "torch.sum differs from numpy's")
        return ms

    def cupy_sum():
        x = cupy.asarray(host)
        out = cupy.empty((), dtype=cupy.float32)
        ms = p.timer.best_ms(lambda: cupy.sum(x, out=out), lib="cupy")
        require(float(out) == want, "cupy.sum differs from numpy's")
        return ms

    p.peer(row, "torch.sum", have("torch"), torch_sum)
    p.peer(row, "cupy.sum (CUB)", have("cupy"), cupy_sum)

    # The max, the min-max pair and the arg-max of the same data (many ties: the first of
    # the greatest is the arg-max, as torch.argmax documents and numpy does).
    hi, lo, arg = float(host.max()), float(host.min()), int(host.argmax())

    def torch_max():
        x = torch.from_numpy(host).cuda()
        out = torch.empty((), device="cuda", dtype=torch.float32)
        ms = p.timer.best_ms(lambda: torch.amax(x, 0, out=out))
        require(float(out.item()) == hi, "torch.amax differs from numpy's")
        return ms

    def cupy_max():
        x = cupy.asarray(host)
        out = cupy.empty((), dtype=cupy.float32)
        ms = p.timer.best_ms(lambda: cupy.max(x, out=out), lib="cupy")
        require(float(out) == hi, "cupy.max differs from numpy's")
        return ms

    def torch_aminmax():
        x = torch.from_numpy(host).cuda()
        got = []
        ms = p.timer.best_ms(lambda: got.append(torch.aminmax(x)))
        require((float(got[-1].min), float(got[-1].max)) == (lo, hi), "torch.aminmax differs")
        return ms

    def torch_argmax():
        x = torch.from_numpy(host).cuda()
        got = []
        ms = p.timer.best_ms(lambda: got.append(torch.argmax(x)))
        require(int(got[-1].item()) == arg, "torch.argmax differs from numpy's")
        return ms

    def cupy_argmax():
        x = cupy.asarray(host)
        got = []
        ms = p.timer.best_ms(lambda: got.append(cupy.argmax(x)), lib="cupy")
        require(int(got[-1]) == arg, "cupy.argmax differs from numpy's")
        return ms

    # Row sums of a 2^(log2 - 10) x 1024 matrix (the same data): the segmented reduce.
    rows = host.reshape(-1, 1024)
    want_rows = rows.astype(np.float64).sum(axis=1).astype(np.float32)

    def torch_rows():
        x = torch.from_numpy(rows).cuda()
        out = torch.empty(rows.shape[0], device="cuda", dtype=torch.float32)
        ms = p.timer.best_ms(lambda: torch.sum(x, 1, out=out))
        require(np.array_equal(out.cpu().numpy(), want_rows), "torch row sums differ")
        return ms

    def cupy_rows():
        x = cupy.asarray(rows)
        out = cupy.empty(rows.shape[0], dtype=cupy.float32)
        ms = p.timer.best_ms(lambda: cupy.sum(x, axis=1, out=out), lib="cupy")
        require(np.array_equal(cupy.asnumpy(out), want_rows), "cupy row sums differ")
        return ms

    p.peer(f"row_sums_2^{log2}_f32_ms", "torch.sum(dim=1)", have("torch"), torch_rows)
    p.peer(f"row_sums_2^{log2}_f32_ms", "cupy.sum(axis=1)", have("cupy"), cupy_rows)

    # Running sums of each row (the same matrix): the segmented scan. Integers in [-8, 8],
    # so every partial sum is exact in f32 and each peer's equals numpy's.
    want_cumsum = np.cumsum(rows, axis=1, dtype=np.float32)

    def torch_row_cumsum():
        x = torch.from_numpy(rows).cuda()
        out = torch.empty_like(x)
        ms = p.timer.best_ms(lambda: torch.cumsum(x.view(-1, 1024), dim=1, out=out))
        require(np.array_equal(out.cpu().numpy(), want_cumsum), "torch.cumsum rows differ")
        return ms

    def cupy_row_cumsum():
        x = cupy.asarray(rows)
        out = cupy.empty_like(x)
        ms = p.timer.best_ms(lambda: cupy.cumsum(x, axis=1, out=out), lib="cupy")
        require(np.array_equal(cupy.asnumpy(out), want_cumsum), "cupy.cumsum rows differ")
        return ms

    p.peer(f"row_cumsum_2^{log2}_f32_ms", "torch.cumsum(dim=1)", have("torch"), torch_row_cumsum)
    p.peer(f"row_cumsum_2^{log2}_f32_ms", "cupy.cumsum(axis=1)", have("cupy"), cupy_row_cumsum)
    p.peer(f"max_2^{log2}_f32_ms", "torch.amax", have("torch"), torch_max)
    p.peer(f"max_2^{log2}_f32_ms", "cupy.max (CUB)", have("cupy"), cupy_max)
    p.peer(f"min_max_2^{log2}_f32_ms", "torch.aminmax", have("torch"), torch_aminmax)
    p.peer(f"arg_max_2^{log2}_f32_ms", "torch.argmax", have("torch"), torch_argmax)
    p.peer(f"arg_max_2^{log2}_f32_ms", "cupy.argmax (CUB)", have("cupy"), cupy_argmax)


# ---- random ---------------------------------------------------------------------------------


def random_rows(p, log2):
    # Fills of 2^log2 f32 into a preallocated tensor: torch's Philox (cuRAND's algorithm)
    # and CuPy's default generator. Checked for range and moments, not bits: each library
    # has its own stream.
    n = 1 << log2

    def torch_fill(normal):
        def run():
            x = torch.empty(n, device="cuda", dtype=torch.float32)
            fill = (lambda: x.normal_()) if normal else (lambda: x.uniform_())
            ms = p.timer.best_ms(fill)
            m = float(x.mean())
            require(abs(m - (0.0 if normal else 0.5)) < 0.01, "torch fill's mean is off")
            return ms
        return run

    def cupy_fill(normal):
        def run():
            out = [None]
            rs = cupy.random.default_rng(7)

            def fill():
                out[0] = rs.standard_normal(n, dtype=cupy.float32) if normal else \
                    rs.random(n, dtype=cupy.float32)

            ms = p.timer.best_ms(fill, lib="cupy")
            m = float(out[0].mean())
            require(abs(m - (0.0 if normal else 0.5)) < 0.01, "cupy fill's mean is off")
            return ms
        return run

    p.peer(f"uniform_2^{log2}_f32_ms", "torch.rand (uniform_)", have("torch"), torch_fill(False))
    p.peer(f"uniform_2^{log2}_f32_ms", "cupy.random", have("cupy"), cupy_fill(False))
    p.peer(f"normal_2^{log2}_f32_ms", "torch.randn (normal_)", have("torch"), torch_fill(True))
    p.peer(f"normal_2^{log2}_f32_ms", "cupy.random", have("cupy"), cupy_fill(True))


def sort_rows(p, log2):
    # Sorts of 2^log2 random i32 keys (and with their int64 indices: torch.sort's result),
    # f32 keys and 2^(log2-1) i64 keys: cupy.sort (CUB's radix sort, keys only; it copies
    # the input first, as our restore does) and torch.sort (keys and indices, out of
    # place). Checked ascending.
    n = 1 << log2

    def inputs(dtype, count):
        g = torch.Generator(device="cuda").manual_seed(5)
        if dtype == torch.float32:
            return (torch.rand(count, device="cuda", generator=g) * 2e6 - 1e6)
        info = torch.iinfo(dtype)
        return torch.randint(info.min, info.max, (count,), device="cuda", dtype=dtype,
                             generator=g)

    def torch_sort(dtype, count):
        def run():
            x = inputs(dtype, count)
            out = [None]

            def go():
                out[0] = torch.sort(x)

            ms = p.timer.best_ms(go)
            v = out[0].values
            require(bool((v[1:] >= v[:-1]).all()), "torch.sort not ascending")
            return ms
        return run

    def cupy_sort(dtype, count):
        def run():
            x = cupy.asarray(inputs(dtype, count))
            out = [None]

            def go():
                out[0] = cupy.sort(x)

            ms = p.timer.best_ms(go, lib="cupy")
            v = out[0]
            require(bool((v[1:] >= v[:-1]).all()), "cupy.sort not ascending")
            return ms
        return run

    for name, dtype, count, lg in [("i32", torch.int32, n, log2) if torch else ("i32", None, n, log2),
                                   ("f32", torch.float32 if torch else None, n, log2),
                                   ("i64", torch.int64 if torch else None, n // 2, log2 - 1)]:
        p.peer(f"sort_2^{lg}_{name}_ms", "cupy.sort (CUB radix)", have("torch", "cupy"),
               cupy_sort(dtype, count))
        p.peer(f"sort_2^{lg}_{name}_ms", "torch.sort", have("torch"), torch_sort(dtype, count))
    p.peer(f"sort_pairs_2^{log2}_i32_ms", "torch.sort (values + int64 indices)", have("torch"),
           torch_sort(torch.int32 if torch else None, n))
    # The bench's 2^(log2-2) rows of i32 keys with u32 indices and with a 16-byte
    # #[gpu_struct] value have no peer: torch.sort and cupy.sort take no values (torch
    # returns int64 indices, and a struct would be one gather a field, the user's code).

def topk_rows(p, log2):
    # torch.topk of the 100 greatest of 2^(log2 - 4) f32 (torch's radix select).
    n = 1 << (log2 - 4)

    def torch_topk():
        x = torch.rand(n, device="cuda", dtype=torch.float32) * 2e6 - 1e6
        out = [None]

        def go():
            out[0] = torch.topk(x, 100)

        ms = p.timer.best_ms(go)
        v = out[0].values
        require(bool((v[1:] <= v[:-1]).all()), "torch.topk not descending")
        return ms

    p.peer(f"topk_100_2^{log2 - 4}_f32_ms", "torch.topk", have("torch"), torch_topk)


# ---- select ---------------------------------------------------------------------------------


def select_rows(p, log2):
    # Stream compaction, as the bench's select group: 2^log2 uniform f32 with a random bool
    # mask keeping about half (masked_select, compress), the same data with x > 0.5
    # (boolean indexing: the comparison's launch is part of what a user pays), and
    # 2^(log2 - 2) sorted int32 with 2^(log2 - 8) distinct values (unique_consecutive).
    # Each output is compared with numpy's.
    n = 1 << log2
    rng = np.random.default_rng(log2 + 28)
    host = rng.random(n, dtype=np.float32)
    mask = rng.integers(0, 2, n).astype(bool)
    want_flagged = host[mask]
    want_above = host[host > 0.5]

    def torch_masked_select():
        x, m = torch.from_numpy(host).cuda(), torch.from_numpy(mask).cuda()
        out = [None]
        ms = p.timer.best_ms(lambda: out.__setitem__(0, torch.masked_select(x, m)))
        require(np.array_equal(out[0].cpu().numpy(), want_flagged), "torch.masked_select differs")
        return ms

    def cupy_compress():
        x, m = cupy.asarray(host), cupy.asarray(mask)
        out = [None]
        ms = p.timer.best_ms(lambda: out.__setitem__(0, cupy.compress(m, x)), lib="cupy")
        require(np.array_equal(cupy.asnumpy(out[0]), want_flagged), "cupy.compress differs")
        return ms

    def torch_above():
        x = torch.from_numpy(host).cuda()
        out = [None]
        ms = p.timer.best_ms(lambda: out.__setitem__(0, x[x > 0.5]))
        require(np.array_equal(out[0].cpu().numpy(), want_above), "torch x[x > 0.5] differs")
        return ms

    def cupy_above():
        x = cupy.asarray(host)
        out = [None]
        ms = p.timer.best_ms(lambda: out.__setitem__(0, x[x > 0.5]), lib="cupy")
        require(np.array_equal(cupy.asnumpy(out[0]), want_above), "cupy x[x > 0.5] differs")
        return ms

    p.peer(f"flagged_2^{log2}_f32_ms", "torch.masked_select", have("torch"), torch_masked_select)
    p.peer(f"flagged_2^{log2}_f32_ms", "cupy.compress", have("cupy"), cupy_compress)
    p.peer(f"select_if_2^{log2}_f32_ms", "torch x[x > 0.5]", have("torch"), torch_above)
    p.peer(f"select_if_2^{log2}_f32_ms", "cupy x[x > 0.5]", have("cupy"), cupy_above)
    del host, mask, want_flagged, want_above

    ulog2, dlog2 = log2 - 2, log2 - 8
    m = 1 << ulog2
    sorted_host = np.sort(rng.integers(0, 1 << dlog2, m).astype(np.int32))
    heads = np.concatenate(([True], sorted_host[1:] != sorted_host[:-1]))
    want_unique = sorted_host[heads]

    def torch_unique():
        x = torch.from_numpy(sorted_host).cuda()
        out = [None]
        ms = p.timer.best_ms(lambda: out.__setitem__(0, torch.unique_consecutive(x)))
        require(np.array_equal(out[0].cpu().numpy(), want_unique), "torch.unique_consecutive differs")
        return ms

    def cupy_unique():
        # CuPy has no unique_consecutive: the heads' mask, then boolean indexing.
        x = cupy.asarray(sorted_host)
        out = [None]

        def run():
            keep = cupy.empty(m, dtype=cupy.bool_)
            keep[0] = True
            cupy.not_equal(x[1:], x[:-1], out=keep[1:])
            out[0] = x[keep]

        ms = p.timer.best_ms(run, lib="cupy")
        require(np.array_equal(cupy.asnumpy(out[0]), want_unique), "cupy's unique differs")
        return ms

    p.peer(f"unique_2^{ulog2}_i32_ms", "torch.unique_consecutive", have("torch"), torch_unique)
    p.peer(f"unique_2^{ulog2}_i32_ms", "cupy x[x[1:] != x[:-1]]", have("cupy"), cupy_unique)
# ---- map ------------------------------------------------------------------------------------


def map_rows(p, vector_log2):
    # The elementwise a * x + y (a scalar) as a torch or cupy user writes it, into a
    # preallocated output: one kernel each. Checked against numpy within an ulp or so
    # (torch may fuse the multiply and the add; warpspeed does not). Two rows, as the
    # bench's: whole tensors (aligned), and views from element 1 of each (misaligned by 4
    # bytes, which keeps torch and cupy off their 16-byte vector accesses, as warpspeed's
    # map off its vector path).
    n = 1 << vector_log2
    a = 1.5

    def check(got, x, y):
        want = np.float32(a) * x + y
        require(np.allclose(got, want, rtol=1e-6, atol=1e-3), "a * x + y differs from numpy's")

    def torch_saxpy(off):
        def run():
            x = (torch.rand(n, device="cuda") * 2000 - 1000)[off:]
            y = (torch.rand(n, device="cuda") * 2000 - 1000)[off:]
            out = torch.full((n,), float("nan"), device="cuda")[off:]
            ms = p.timer.best_ms(lambda: torch.add(y, x, alpha=a, out=out))
            check(out.cpu().numpy(), x.cpu().numpy(), y.cpu().numpy())
            return ms
        return run

    def cupy_saxpy(off):
        def run():
            kernel = cupy.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z",
                                            "z = a * x + y", "saxpy")
            x = (cupy.random.random(n, dtype=cupy.float32) * 2000 - 1000)[off:]
            y = (cupy.random.random(n, dtype=cupy.float32) * 2000 - 1000)[off:]
            out = cupy.full(n, cupy.nan, dtype=cupy.float32)[off:]
            ms = p.timer.best_ms(lambda: kernel(cupy.float32(a), x, y, out), lib="cupy")
            check(cupy.asnumpy(out), cupy.asnumpy(x), cupy.asnumpy(y))
            return ms
        return run

    for off, row in [(0, f"saxpy_2^{vector_log2}_f32_ms"),
                     (1, f"saxpy_2^{vector_log2}_f32_offset1_ms")]:
        p.peer(row, "torch.add(alpha=a)", have("torch"), torch_saxpy(off))
        p.peer(row, "cupy.ElementwiseKernel", have("cupy"), cupy_saxpy(off))


# ---- xoroshiro -----------------------------------------------------------------------------


def xoroshiro_rows(p, threads=625 * 64, iterations=5000):
    # Seed 002's Monte Carlo pi as a torch or cupy user writes it without per-thread
    # generators: uniform (x, y) in chunks of 2^25 points, the points inside the quarter
    # circle counted on the device, one number back at the end. The same number of points
    # as the bench's kernel (threads x iterations). Checked: the estimate within 1e-3.
    points = threads * iterations
    chunk = 1 << 25
    chunks = [chunk] * (points // chunk) + ([points % chunk] if points % chunk else [])
    row = f"monte_carlo_pi_{threads}x{iterations}_ms"

    def torch_pi():
        buf = torch.empty(2, chunk, device="cuda", dtype=torch.float32)
        out = [None]

        def run():
            inside = torch.zeros((), device="cuda", dtype=torch.int64)
            for c in chunks:
                xy = buf[:, :c].uniform_()
                inside += ((xy * xy).sum(0) <= 1.0).sum()
            out[0] = inside

        ms = p.timer.best_ms(run)
        pi = 4.0 * float(out[0]) / points
        require(abs(pi - math.pi) < 1e-3, f"torch's pi is {pi}")
        return ms

    def cupy_pi():
        rs = cupy.random.default_rng(1)
        out = [None]

        def run():
            inside = cupy.zeros((), dtype=cupy.int64)
            for c in chunks:
                xy = rs.random((2, c), dtype=cupy.float32)
                inside += cupy.count_nonzero((xy * xy).sum(0) <= 1.0)
            out[0] = inside

        ms = p.timer.best_ms(run, lib="cupy")
        pi = 4.0 * float(out[0]) / points
        require(abs(pi - math.pi) < 1e-3, f"cupy's pi is {pi}")
        return ms

    p.peer(row, "torch.rand chunks", have("torch"), torch_pi)
    p.peer(row, "cupy.random chunks", have("cupy"), cupy_pi)


# ---- histogram ------------------------------------------------------------------------------

if triton is not None:

    @triton.jit
    def _histogram_kernel(x_ptr, bins_ptr, BLOCK: tl.constexpr, NBINS: tl.constexpr):
        # One program counts BLOCK bytes (the length is a multiple of BLOCK) with
        # tl.histogram and adds its counts to the global bins atomically.
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs).to(tl.int32)
        counts = tl.histogram(x, NBINS)
        tl.atomic_add(bins_ptr + tl.arange(0, NBINS), counts)

    @triton.jit
    def _empty_kernel():
        pass


def histogram_rows(p, log2):
    n = 1 << log2
    rng = np.random.default_rng(log2 + 1)
    for name, host in [("uniform", rng.integers(0, 256, n, dtype=np.uint8)),
                       ("one_value", np.full(n, 97, dtype=np.uint8))]:
        row = f"histogram_2^{log2}_u8_{name}_ms"
        want = np.bincount(host, minlength=256)

        def cupy_histogram(host=host, want=want):
            x = cupy.asarray(host)
            out = [None]

            def run():
                out[0] = cupy.histogram(x, bins=256, range=(0, 256))[0]

            ms = p.timer.best_ms(run, lib="cupy")
            require(np.array_equal(cupy.asnumpy(out[0]), want), "cupy.histogram differs")
            return ms

        def torch_bincount(host=host, want=want):
            x = torch.from_numpy(host).cuda()
            out = [None]
            ms = p.timer.best_ms(lambda: out.__setitem__(0, torch.bincount(x, minlength=256)))
            require(np.array_equal(out[0].cpu().numpy(), want), "torch.bincount differs")
            return ms

        def triton_histogram(host=host, want=want):
            x = torch.from_numpy(host).cuda()
            bins = torch.zeros(256, dtype=torch.int32, device="cuda")
            best = math.inf
            for block in (1024, 4096, 16384):
                assert n % block == 0
                run = lambda block=block: _histogram_kernel[(n // block,)](  # noqa: E731
                    x, bins, BLOCK=block, NBINS=256)
                bins.zero_()
                run()
                torch.cuda.synchronize()
                require(np.array_equal(bins.cpu().numpy(), want),
                        f"the Triton histogram (BLOCK={block}) differs")
                best = min(best, p.timer.best_ms(run))  # the bins keep adding up, unread
            return best

        p.peer(row, "cupy.histogram", have("cupy"), cupy_histogram)
        p.peer(row, "torch.bincount", have("torch"), torch_bincount)
        p.peer(row, "triton", have("torch", "triton"), triton_histogram)


def histogram_lib_rows(p, log2):
    # warpspeed::algorithms::histogram::even of 2^log2 f32 over [0, 1): 256 bins of uniform
    # samples and of one value (0.0), 4096 and 65536 bins of uniform samples. Uniform
    # samples are multiples of 2^-24 and the bin counts powers of two, so every bin edge is
    # exact and every library's binning agrees with numpy's.
    n = 1 << log2
    rng = np.random.default_rng(log2 + 22)
    uniform = rng.random(n, dtype=np.float32)
    one = np.zeros(n, dtype=np.float32)
    for bins, name, host in [(256, "uniform", uniform), (256, "one_value", one),
                             (4096, "uniform", uniform), (65536, "uniform", uniform)]:
        row = f"histogram_lib_2^{log2}_f32_{bins}_{name}_ms"
        want = np.bincount((host * bins).astype(np.int64), minlength=bins)

        def cupy_histogram(host=host, want=want, bins=bins):
            x = cupy.asarray(host)
            out = [None]

            def run():
                out[0] = cupy.histogram(x, bins=bins, range=(0.0, 1.0))[0]

            ms = p.timer.best_ms(run, lib="cupy")
            require(np.array_equal(cupy.asnumpy(out[0]), want), "cupy.histogram differs")
            return ms

        def torch_histc(host=host, want=want, bins=bins):
            x = torch.from_numpy(host).cuda()
            out = [None]
            ms = p.timer.best_ms(
                lambda: out.__setitem__(0, torch.histc(x, bins=bins, min=0.0, max=1.0)))
            require(np.array_equal(out[0].cpu().numpy().astype(np.int64), want),
                    "torch.histc differs")
            return ms

        def torch_bincount(host=host, want=want, bins=bins):
            # The samples scaled to bin indices first (not timed): bincount counts integers.
            idx = torch.from_numpy((host * bins).astype(np.int64)).cuda()
            out = [None]
            ms = p.timer.best_ms(
                lambda: out.__setitem__(0, torch.bincount(idx, minlength=bins)))
            require(np.array_equal(out[0].cpu().numpy(), want), "torch.bincount differs")
            return ms

        p.peer(row, "cupy.histogram", have("cupy"), cupy_histogram)
        p.peer(row, "torch.histc", have("torch"), torch_histc)
        p.peer(row, "torch.bincount (indices given)", have("torch"), torch_bincount)


# ---- matmul ---------------------------------------------------------------------------------

if triton is not None:

    def _matmul_configs():
        shapes = [(128, 256, 32, 3, 8), (128, 128, 32, 4, 4), (64, 256, 32, 4, 4),
                  (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 128, 16, 4, 8)]
        return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k,
                               "GROUP_SIZE_M": 8}, num_stages=s, num_warps=w)
                for m, n, k, s, w in shapes]

    @triton.autotune(configs=_matmul_configs(), key=["M", "N", "K"])
    @triton.jit
    def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        # Triton's matrix-multiplication tutorial, with IEEE f32 inputs to tl.dot (no TF32).
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def matmul_rows(p, n):
    row = f"matmul_{n}_f32_ms"

    def inputs():
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.randn(n, n, device="cuda", generator=g)
        b = torch.randn(n, n, device="cuda", generator=g)
        return a, b, (a.double() @ b.double())

    def true_f32(c, ref, who):
        # f32 with f32 accumulation stays near 1e-6 of the largest element; TF32 inputs
        # (10-bit mantissas) land near 1e-3.
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        require(err < 1e-4, f"{who}: relative error {err:.2e} vs float64 (TF32 used?)")

    def cublas():
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        a, b, ref = inputs()
        c = torch.empty_like(a)
        ms = p.timer.best_ms(lambda: torch.matmul(a, b, out=c))
        true_f32(c, ref, "torch.matmul")
        return ms

    def triton_matmul():
        a, b, ref = inputs()
        c = torch.empty_like(a)

        def run():
            grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE_M"])  # noqa: E731
                                 * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
            _matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1),
                                 b.stride(0), b.stride(1), c.stride(0), c.stride(1))

        run()  # autotunes
        ms = p.timer.best_ms(run)
        true_f32(c, ref, "the Triton matmul")
        return ms

    p.peer(row, "cuBLAS (torch)", have("torch"), cublas)
    p.peer(row, "triton", have("torch", "triton"), triton_matmul)


# ---- launch overhead ------------------------------------------------------------------------


def launch_rows(p, launches):
    row = "empty_launch_us"

    def per_launch_us(launch, sync):
        launch()
        sync()
        best = math.inf
        for _ in range(p.args.rounds):
            start = time.perf_counter()
            for _ in range(launches):
                launch()
            sync()
            best = min(best, (time.perf_counter() - start) / launches * 1e6)
        return best

    def cupy_raw():
        kernel = cupy.RawKernel(r'extern "C" __global__ void empty() {}', "empty")
        return per_launch_us(lambda: kernel((1,), (32,), ()),
                             cupy.cuda.get_current_stream().synchronize)

    def triton_empty():
        return per_launch_us(lambda: _empty_kernel[(1,)](), torch.cuda.synchronize)

    p.peer(row, "cupy.RawKernel", have("cupy"), cupy_raw)
    p.peer(row, "triton", have("torch", "triton"), triton_empty)


# ---- main -----------------------------------------------------------------------------------


def device_name():
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.get_device_name(0)
    if cupy is not None:
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else name
    return "unknown (neither torch nor cupy could open a GPU)"


def autotune_rows(p, reduce_log2, scan_log2):
    """The autotune group's peers: the sum of 2^28 uint32 (torch.sum of int32 into int32,
    cupy.sum of uint32), the inclusive scan of 2^28 int64 (torch.cumsum, cupy.cumsum); the
    histogram rows reuse the histogram_lib group's peers (--only autotune,histogram_lib)."""
    n = 1 << reduce_log2
    row = f"sum_2^{reduce_log2}_u32_ms"
    # The bench's values are below 2^28: a wrapping 32-bit sum, the same in int32 and uint32.
    host = np.random.default_rng(reduce_log2 + 2206).integers(0, 1 << 28, n, dtype=np.uint32)
    want = int(host.astype(np.uint64).sum() % (1 << 32))

    def torch_sum():
        x = torch.from_numpy(host.view(np.int32)).cuda()
        out = torch.empty((), device="cuda", dtype=torch.int32)
        ms = p.timer.best_ms(lambda: torch.sum(x, 0, dtype=torch.int32, out=out))
        require(int(out.item()) % (1 << 32) == want, "torch.sum differs from numpy's")
        return ms

    def cupy_sum():
        x = cupy.asarray(host)
        out = cupy.empty((), dtype=cupy.uint32)
        ms = p.timer.best_ms(lambda: cupy.sum(x, dtype=cupy.uint32, out=out), lib="cupy")
        require(int(out) == want, "cupy.sum differs from numpy's")
        return ms

    p.peer(row, "torch.sum", have("torch"), torch_sum)
    p.peer(row, "cupy.sum (CUB)", have("cupy"), cupy_sum)

    scan_i64_peers(p, scan_log2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the JSON file to write")
    ap.add_argument("--quick", action="store_true", help="the bench's --quick sizes")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds (the best counts)")
    ap.add_argument("--round-ms", type=float, default=200.0, help="GPU ms per round")
    ap.add_argument("--only", default="",
                    help="comma-separated groups to measure (copy, scan, histogram, matmul, "
                         "launch, gemm, attention, reduce, random, sort, sort_tiles, select, select_tiling "
                         "(the select group's peers), "
                         "histogram_lib, xoroshiro, map, autotune); default all")
    args = ap.parse_args()
    only = {g for g in args.only.split(",") if g}
    want = lambda g: not only or g in only  # noqa: E731
    if args.quick:
        args.rounds, args.round_ms = min(args.rounds, 2), 50.0
    sizes = dict(copy_log2=26, vector_log2=22, scan_log2=22, histogram_log2=22, matmul=512,
                 launches=10_000, reduce_log2=22) if args.quick else \
        dict(copy_log2=30, vector_log2=28, scan_log2=28, histogram_log2=28, matmul=4096,
             launches=100_000, reduce_log2=28)
    p = Peers(args)
    if want("copy"):
        copy_rows(p, sizes["copy_log2"], sizes["vector_log2"])
    if want("scan"):
        scan_rows(p, sizes["scan_log2"])
    if want("histogram"):
        histogram_rows(p, sizes["histogram_log2"])
    if want("matmul"):
        matmul_rows(p, sizes["matmul"])
    if want("launch"):
        launch_rows(p, sizes["launches"])
    if want("reduce"):
        reduce_rows(p, sizes["reduce_log2"])
    if want("random"):
        random_rows(p, sizes["reduce_log2"])
    if want("sort") or want("sort_pairs") or want("sort_tiles"):
        # sort_pairs' and sort_tiles' rows (each tile of the radix sort) share the sort
        # group's peers.
        sort_rows(p, sizes["reduce_log2"])
    if want("top_k"):
        topk_rows(p, sizes["reduce_log2"])
    if want("select") or want("select_tiling"):
        select_rows(p, sizes["reduce_log2"])
    if want("histogram_lib"):
        histogram_lib_rows(p, sizes["reduce_log2"])
    if want("xoroshiro"):
        xoroshiro_rows(p)
    if want("map"):
        map_rows(p, sizes["vector_log2"])
    if want("autotune"):
        autotune_rows(p, sizes["reduce_log2"], sizes["scan_log2"])
    sizes["tensor"] = peers_tensor.rows(p, have, args.quick, want("gemm"), want("attention"))
    versions = {"python": sys.version.split()[0], "numpy": np.__version__}
    for name, lib, err in [("torch", torch, torch_err), ("triton", triton, triton_err),
                           ("cupy", cupy, cupy_err)]:
        versions[name] = lib.__version__ if lib is not None else err
    if torch is not None:
        versions["cuda (torch)"] = str(torch.version.cuda)
    out = {
        "device": device_name(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": versions,
        "sizes": sizes,
        "rows": p.rows,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
