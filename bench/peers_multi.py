#!/usr/bin/env python3
"""torch.distributed's all-reduce across the GPUs of this host: the peer of
`cargo run --release --example all_reduce`, on the same sizes (1 MiB to 2 GiB of float32,
sum), timed the same way (CUDA events around back-to-back calls on one stream, the best of
three rounds, the slowest rank), written as JSON for its `--peers FILE.json`:

    {"versions": {...}, "all_reduce": {"2": {"1048576": {"ms": .., "bus_gbs": ..}, ...}}}

Each size is checked first (rank r holds i % 7 + r at element i: every sum is exact).

    python3 bench/peers_multi.py --gpus 2 4 --out multi.json [--max-mib 2048]
"""

import argparse
import json
import os
import socket
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sizes(max_mib):
    out, m = [], 1
    while m < max_mib:
        out.append(m << 20)
        m *= 4
    out.append(max_mib << 20)
    return out


def worker(rank, ranks, port, max_mib, queue):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=ranks,
        device_id=torch.device("cuda", rank))
    stream = torch.cuda.Stream()
    rows = {}
    for nbytes in sizes(max_mib):
        n = nbytes // 4
        i = torch.arange(n, device="cuda", dtype=torch.int64)
        buf = ((i % 7) + rank).to(torch.float32)
        del i
        torch.cuda.synchronize()  # `stream` does not wait for the default stream's fill
        with torch.cuda.stream(stream):
            dist.all_reduce(buf)
        stream.synchronize()
        add = ranks * (ranks - 1) // 2
        for lo, hi in [(0, min(n, 1 << 20)), (max(0, n - (1 << 20)), n)]:
            idx = torch.arange(lo, hi, device="cuda", dtype=torch.int64)
            want = ((idx % 7) * ranks + add).to(torch.float32)
            if not torch.equal(buf[lo:hi], want):
                raise SystemExit(f"rank {rank}: torch's all_reduce differs at {nbytes} bytes")
        iters = (64 << 20) // min(nbytes, 64 << 20) * 4 + 4
        best = float("inf")
        with torch.cuda.stream(stream):
            for _ in range(3):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record(stream)
                for _ in range(iters):
                    dist.all_reduce(buf)
                end.record(stream)
                end.synchronize()
                best = min(best, start.elapsed_time(end) / iters)
        t = torch.tensor([best], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        ms = t.item()
        factor = 2 * (ranks - 1) / ranks if ranks > 1 else 1.0
        rows[str(nbytes)] = {"ms": ms, "bus_gbs": nbytes / (ms * 1e-3) / 1e9 * factor}
        del buf
        torch.cuda.empty_cache()
    if rank == 0:
        queue.put(rows)
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, nargs="+", default=[2])
    ap.add_argument("--max-mib", type=int, default=2048)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import torch
    import torch.multiprocessing as mp

    out = {"versions": {"torch": torch.__version__,
                        "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                        "device": torch.cuda.get_device_name(0)},
           "all_reduce": {}}
    ctx = mp.get_context("spawn")
    for ranks in a.gpus:
        if ranks > torch.cuda.device_count():
            print(f"peers_multi.py: {ranks} GPUs asked, {torch.cuda.device_count()} present",
                  file=sys.stderr)
            continue
        queue = ctx.SimpleQueue()
        mp.spawn(worker, args=(ranks, free_port(), a.max_mib, queue), nprocs=ranks, join=True)
        out["all_reduce"][str(ranks)] = queue.get()
        print(f"peers_multi.py: {ranks} GPUs done", file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
