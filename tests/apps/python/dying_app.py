"""A PyTorch program that captures two CUDA graphs, replays them a known number of times, then dies
— for `graphprof profile`: nothing it recorded before may be lost.

    python dying_app.py --death segv|abort|exit|kill|none [--replays 300]

segv: a read of address 0 (ctypes); abort: os.abort(); exit: os._exit(0), as multiprocessing
workers end; kill: SIGKILL to itself 0.3 s after the last replay; none: a normal exit. It prints
how many graph launches it made before dying.
"""
import argparse
import ctypes
import os
import signal
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--death", default="none", choices=["segv", "abort", "exit", "kill", "none"])
    ap.add_argument("--replays", type=int, default=300)
    a = ap.parse_args()
    x = torch.randn(256, 256, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture: cuBLAS makes its handle here
        (x @ x).relu_()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graphs = []
    for _ in range(2):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = (x @ x).relu_()
        graphs.append(g)
    for _ in range(a.replays):
        for g in graphs:
            g.replay()
    torch.cuda.synchronize()
    print(f"dying_app: {2 * a.replays} graph launches, now {a.death}", flush=True)
    if a.death == "segv":
        ctypes.string_at(0)
    elif a.death == "abort":
        os.abort()
    elif a.death == "exit":
        os._exit(0)
    elif a.death == "kill":
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main()
