"""A serving loop with one torch.cuda graph per batch-size bucket, all captured into one shared
graph pool (as vLLM and SGLang do), for `graphprof profile`. Unmodified PyTorch; it knows nothing
of graphprof. Each step takes a request batch of some size, copies it into the smallest bucket that
fits (an eager copy), replays that bucket's graph and picks tokens eagerly (argmax). Around each
capture it prints its own memory figures (torch.cuda.memory_reserved(), memory_allocated() and
torch.cuda.mem_get_info()), to check graphprof's memory ledger against.

    python serving_buckets.py [--steps N] [--buckets 1,2,4,8,16] [--hidden H] [--busy-thread] [--nvtx-step NAME]

--busy-thread runs a pure-Python loop on a second thread all along (a tokenizer, a scheduler), so
the serving thread has to win the GIL back after each operator. --nvtx-step NAME makes each step
one NVTX range NAME (torch.cuda.nvtx.range_push/range_pop), for `graphprof profile --step-range NAME`.
"""
import argparse
import threading

import torch


def memory(tag):
    free, total = torch.cuda.mem_get_info()
    print(f"serving_buckets: {tag}: memory_reserved {torch.cuda.memory_reserved()} "
          f"memory_allocated {torch.cuda.memory_allocated()} mem_get_info_free {free} total {total}", flush=True)


def build_model(hidden):
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(hidden, hidden), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).cuda().half().eval()


def capture_buckets(model, buckets, hidden):
    pool = torch.cuda.graph_pool_handle()
    graphs, inputs, outputs = {}, {}, {}
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():  # warm-up, as torch.cuda.graph's docs ask
        for b in buckets:
            model(torch.zeros(b, hidden, device="cuda", dtype=torch.half))
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    for b in sorted(buckets, reverse=True):  # largest first: the smaller ones reuse its pool memory
        inputs[b] = torch.zeros(b, hidden, device="cuda", dtype=torch.half)
        memory(f"before capture of bucket {b}")
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool), torch.no_grad():
            outputs[b] = model(inputs[b])
        torch.cuda.synchronize()
        memory(f"after capture of bucket {b}")
        graphs[b] = g
    return graphs, inputs, outputs


def serve(graphs, inputs, outputs, steps, hidden, nvtx_step=None):
    buckets = sorted(graphs)
    requests = torch.randn(max(buckets), hidden, device="cuda", dtype=torch.half)
    sizes = [1, 3, 2, 8, 5, 16, 7, 4]
    tokens = 0
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for step in range(steps):
        if nvtx_step:
            torch.cuda.nvtx.range_push(nvtx_step)
        n = min(sizes[step % len(sizes)], max(buckets))
        b = next(x for x in buckets if x >= n)
        inputs[b][:n].copy_(requests[:n])
        graphs[b].replay()
        tokens += int(outputs[b][:n].argmax(dim=-1).sum().item() >= 0)
        if nvtx_step:
            torch.cuda.nvtx.range_pop()
    end.record()
    torch.cuda.synchronize()
    print(f"serving_buckets: {steps} steps in {start.elapsed_time(end):.3f} ms ({tokens} batches served)", flush=True)


def busy():
    n = 0
    while True:
        n = (n * 31 + 7) % 1000003


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--buckets", default="1,2,4,8,16")
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--busy-thread", action="store_true")
    ap.add_argument("--nvtx-step", default=None)
    a = ap.parse_args()
    if a.busy_thread:
        threading.Thread(target=busy, daemon=True).start()
    buckets = [int(x) for x in a.buckets.split(",")]
    memory("start")
    model = build_model(a.hidden)
    memory("model loaded")
    graphs, inputs, outputs = capture_buckets(model, buckets, a.hidden)
    memory("all buckets captured")
    serve(graphs, inputs, outputs, a.steps, a.hidden, a.nvtx_step)


if __name__ == "__main__":
    main()
