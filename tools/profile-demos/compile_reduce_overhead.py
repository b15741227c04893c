#!/usr/bin/env python3
"""A small model under torch.compile(mode="reduce-overhead"): a plain PyTorch program (no graphprof
code) for `graphprof profile`. Inductor's CUDA-graph trees record one graph per input shape, so
running --shapes batch sizes gives several graphs. Prints its own timing per shape (CUDA events).

    graphprof profile -- python3 examples/profile-demos/compile_reduce_overhead.py
"""
import argparse
import time

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--shapes", default="8,32")
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()

    torch.manual_seed(0)
    model = nn.Sequential(*[Block(args.dim) for _ in range(args.layers)]).cuda().half().eval()
    compiled = torch.compile(model, mode="reduce-overhead")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        for batch in (int(b) for b in args.shapes.split(",")):
            x = torch.randn(batch, 128, args.dim, device="cuda", dtype=torch.half)
            t0 = time.perf_counter()
            for _ in range(3):  # compile, warm up, record the graph
                compiled(x)
            torch.cuda.synchronize()
            warm = time.perf_counter() - t0
            t0 = time.perf_counter()
            start.record()
            for _ in range(args.steps):
                y = compiled(x)
            end.record()
            torch.cuda.synchronize()
            host = (time.perf_counter() - t0) * 1e3 / args.steps
            print(f"compile_reduce_overhead: batch {batch}: {start.elapsed_time(end) / args.steps:.3f} ms per step "
                  f"(CUDA events), {host:.3f} ms host, {args.steps} steps; compile+warm-up {warm:.1f} s; "
                  f"output {tuple(y.shape)}")


if __name__ == "__main__":
    main()
