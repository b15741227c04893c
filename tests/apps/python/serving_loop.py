#!/usr/bin/env python3
"""A host-bound serving-like loop (a decode step of a small model, the common case for serving): six
captured CUDA graphs, one per batch bucket (1..32), each a 5-layer MLP block (~20 kernel nodes), and
about ten small eager operations per step around the replay (token ids, embedding gather, copy into
the graph's static input, sampling). It times its own steady-state loop (host clock, and CUDA events)
and prints it, so a profiler's overhead can be read off the program's own figures: the whole loop,
and the median over chunks of --chunk steps of the host time per step (one slow moment of the host
moves the total, not the median).

    python3 serving_loop.py --steps 2000
"""
import argparse
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--sync-every", type=int, default=8)
    ap.add_argument("--chunk", type=int, default=64, help="steps per chunk of the per-step median")
    ap.add_argument("--chunk-log", default="", help="append each chunk's start and end (CLOCK_MONOTONIC ns) to this file")
    args = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    h, vocab = args.hidden, 4096
    buckets = [1, 2, 4, 8, 16, 32]
    layers = [torch.nn.Linear(h, h).to(dev).half() for _ in range(5)]
    norm_w = torch.ones(h, device=dev, dtype=torch.half)
    embedding = torch.randn(vocab, h, device=dev, dtype=torch.half)

    def block(x):
        for lin in layers:
            y = torch.nn.functional.gelu(lin(x))
            y = torch.nn.functional.layer_norm(y, (h,), norm_w)
            x = x + y
        return x

    static_in = {b: torch.zeros(b, h, device=dev, dtype=torch.half) for b in buckets}
    static_out, graphs = {}, {}
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for b in buckets:
                for _ in range(3):
                    block(static_in[b])
        torch.cuda.current_stream().wait_stream(side)
        pool = None
        for b in buckets:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, pool=pool):
                static_out[b] = block(static_in[b])
            pool = g.pool()
            graphs[b] = g
        torch.cuda.synchronize()

        base = torch.arange(32, device=dev)
        counter = torch.zeros(1, device=dev, dtype=torch.long)

        def step(i):
            b = buckets[i % len(buckets)]
            ids = (base[:b] + i) % vocab                      # 2 kernels
            static_in[b].copy_(embedding.index_select(0, ids))  # 2
            graphs[b].replay()                                 # the graph
            out = static_out[b]
            score = out.float().sum(-1)                        # 2
            tok = torch.argmax(score)                          # 1
            nxt = torch.where(tok > 5, tok + 1, tok)           # 3
            counter.add_(nxt)                                  # 1
            if args.sync_every and i % args.sync_every == args.sync_every - 1:
                torch.cuda.synchronize()

        for i in range(args.warmup):
            step(i)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.nvtx.range_push("steady")
        chunk = max(1, args.chunk)
        marks = []
        t0 = time.perf_counter()
        start.record()
        for i in range(args.steps):
            if i % chunk == 0:
                marks.append(time.perf_counter_ns())
            step(i)
        end.record()
        torch.cuda.synchronize()
        host_ms = (time.perf_counter() - t0) * 1e3
        torch.cuda.nvtx.range_pop()
    gpu_ms = start.elapsed_time(end)
    # marks are chunk starts: each chunk but the last is timed up to the next one's start
    per_step = sorted((b - a) * 1e-3 / chunk for a, b in zip(marks, marks[1:]))
    if args.chunk_log:
        with open(args.chunk_log, "a") as f:  # appended: several runs (graphprof --overhead-windows N) in one file
            for a, b in zip(marks, marks[1:]):
                f.write(f"{a} {b} {chunk}\n")
    print(f"serving_loop: steady {args.steps} steps {host_ms:.2f} ms host ({host_ms * 1e3 / args.steps:.2f} us per step), "
          f"{gpu_ms:.2f} ms CUDA events; counter {int(counter.item())}")
    if per_step:
        mid = per_step[len(per_step) // 2]
        print(f"serving_loop: chunk median {mid:.2f} us per step over {len(per_step)} chunks of {chunk} steps "
              f"(p10 {per_step[len(per_step) // 10]:.2f}, p90 {per_step[(9 * len(per_step)) // 10]:.2f})")


if __name__ == "__main__":
    main()
