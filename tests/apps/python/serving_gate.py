"""A vLLM-style serving loop for the app gate (`graphprof profile` + `graphprof compare`), unmodified
PyTorch that knows nothing of graphprof. Six batch-size buckets (1, 2, 4, 8, 16, 32) are captured
into one shared graph pool, largest first; a fixed-seed schedule of request sizes from 1 to 40 is
served one step each: a size up to 32 is copied into the smallest bucket that fits and that
bucket's graph is replayed, a larger one runs the model eagerly (above the largest bucket); each
step then picks tokens eagerly (argmax) and reads one value back (a synchronisation).

    python serving_gate.py [--steps 400] [--hidden 2048] [--variant V] [--seed 7]

Variants (what a commit might do to the program):
  as-is        nothing
  slow         every graph does more GPU work with the same nodes (a larger scratch buffer)
  slow-nodes   every graph gets one more kernel doing that work (its node count changes)
  moved        the last activation runs eagerly after the replay (an op moved out of the graphs)
  bad-capture  the bucket-4 capture synchronises inside (it fails; that bucket then runs eagerly)
  dispatch-bug requests of exactly 8 run eagerly although bucket 8 is captured (a dispatch off by one)
It prints its own counts and clock at the end: graph steps, eager steps, launches per bucket, and
the loop's time per step on CUDA events and on the host clock, to hold graphprof's figures against.
"""
import argparse
import random
import time

import torch

BUCKETS = [1, 2, 4, 8, 16, 32]


class Model(torch.nn.Module):
    def __init__(self, hidden, variant):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(4))
        self.variant = variant
        # Work inside each graph that scales with the variant (a cache refresh, say).
        scratch = 5 << 19 if variant == "slow" else 1 << 20
        self.scratch = torch.zeros(scratch, device="cuda", dtype=torch.half)
        self.extra = torch.zeros(3 << 19, device="cuda", dtype=torch.half) if variant == "slow-nodes" else None

    def forward(self, x, last_activation=True):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers) or last_activation:
                x = torch.nn.functional.gelu(x)
        self.scratch.mul_(0.5)
        if self.extra is not None:
            self.extra.mul_(0.5)
        return x


def capture(model, hidden, variant):
    pool = torch.cuda.graph_pool_handle()
    graphs, inputs, outputs = {}, {}, {}
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for b in BUCKETS:
            model(torch.zeros(b, hidden, device="cuda", dtype=torch.half), variant != "moved")
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    for b in sorted(BUCKETS, reverse=True):
        inputs[b] = torch.zeros(b, hidden, device="cuda", dtype=torch.half)
        g = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(g, pool=pool), torch.no_grad():
                outputs[b] = model(inputs[b], variant != "moved")
                if variant == "bad-capture" and b == 4:
                    torch.cuda.synchronize()
        except RuntimeError as e:
            print(f"serving_gate: capture of bucket {b} failed: {str(e).splitlines()[0]}", flush=True)
            torch.cuda.synchronize()
            continue
        graphs[b] = g
    return graphs, inputs, outputs


def serve(model, graphs, inputs, outputs, steps, hidden, seed, variant):
    rng = random.Random(seed)
    requests = torch.randn(40, hidden, device="cuda", dtype=torch.half)
    eager_steps, eager_captured, replays = 0, 0, {b: 0 for b in graphs}
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    with torch.no_grad():
        for _ in range(steps):
            n = rng.randint(1, 40)
            b = next((x for x in sorted(graphs) if x >= n), None)
            if variant == "dispatch-bug" and n == 8:
                b = None
                eager_captured += 1
            if b is None:  # above the largest captured bucket (or the dispatch bug): eager
                out = model(requests[:n])
                eager_steps += 1
            else:
                inputs[b][:n].copy_(requests[:n])
                graphs[b].replay()
                out = outputs[b][:n]
                replays[b] += 1
                if variant == "moved":
                    out = torch.nn.functional.gelu(out)
            int(out.argmax(dim=-1)[0].item())
    end.record()
    torch.cuda.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    gpu_ms = start.elapsed_time(end)
    print(f"serving_gate: {steps} steps: {steps - eager_steps} graph steps, {eager_steps} eager steps "
          f"({eager_steps - eager_captured} above the largest bucket, {eager_captured} at a captured size); "
          f"replays {dict(sorted(replays.items()))}; {gpu_ms * 1e3 / steps:.1f} us per step (CUDA events), "
          f"{host_ms * 1e3 / steps:.1f} us per step (host)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--variant", default="as-is", choices=["as-is", "slow", "slow-nodes", "moved", "bad-capture", "dispatch-bug"])
    a = ap.parse_args()
    torch.manual_seed(0)
    model = Model(a.hidden, a.variant).cuda().half().eval()
    graphs, inputs, outputs = capture(model, a.hidden, a.variant)
    serve(model, graphs, inputs, outputs, a.steps, a.hidden, a.seed, a.variant)


if __name__ == "__main__":
    main()
