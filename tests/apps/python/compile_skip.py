"""A torch.compile(mode="reduce-overhead") decoder step in which CUDA-graph trees skip one function,
for `graphprof profile` (why a step ran eager). Unmodified PyTorch that knows nothing of graphprof.

    python compile_skip.py [--steps 200] [--hidden 1024]

Each step runs `decode` (compiled, graphed by CUDA-graph trees) and then `update_cache`, a compiled
function that also computes on a CPU tensor it is given. PyTorch releases without graph
partitions skip it and it runs eagerly every step ("skipping cudagraphs due to cpu device");
PyTorch 2.11 splits the CPU op out of its graph instead ("op1: reason=cpu ops") and graphs the rest.
--skip mutation skips it for a mutated input instead. Each step is marked
(torch.compiler.cudagraph_mark_step_begin). The batch size changes at steps 50 and 120 (new shapes:
a warm-up and a re-record of both functions). It
prints its own counts at the end: steps, compiled calls of each function, and the shapes served.
"""
import argparse
import time

import torch


class Decoder(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.l1 = torch.nn.Linear(hidden, hidden)
        self.l2 = torch.nn.Linear(hidden, hidden)

    def forward(self, x):
        return self.l2(torch.nn.functional.silu(self.l1(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--skip", default="cpu", choices=["cpu", "mutation"])
    a = ap.parse_args()
    torch.manual_seed(0)
    model = Decoder(a.hidden).cuda().eval()

    @torch.compile(mode="reduce-overhead")
    def decode(x):
        return model(x)

    if a.skip == "mutation":
        @torch.compile(mode="reduce-overhead")
        def update_cache(cache, h, counts):
            cache.add_(h.sum(dim=0))
            return cache * 0.5
    else:
        @torch.compile(mode="reduce-overhead")
        def update_cache(cache, h, counts):
            return cache * 0.5 + h.sum(dim=0), counts + 1

    cache = torch.zeros(a.hidden, device="cuda")
    counts = torch.zeros(4)  # on the CPU
    shapes = []
    t0 = time.perf_counter()
    with torch.no_grad():
        for step in range(a.steps):
            batch = 4 if step < 50 else (8 if step < 120 else 16)
            if not shapes or shapes[-1] != batch:
                shapes.append(batch)
            x = torch.randn(batch, a.hidden, device="cuda")
            # A new step: the graphs' outputs of the last one may be overwritten (as a serving loop
            # marks its steps; without it PyTorch refuses to read `h` in the skipped function).
            torch.compiler.cudagraph_mark_step_begin()
            h = decode(x)
            out = update_cache(cache, h, counts)
            if isinstance(out, tuple):
                out, counts = out
            float(out[0].item())
    host_ms = (time.perf_counter() - t0) * 1e3
    print(f"compile_skip: {a.steps} steps: decode {a.steps} calls (graphed), update_cache {a.steps} calls "
          f"(made to fall out of CUDA-graph trees by: {a.skip}); batch sizes {shapes}; {host_ms * 1e3 / a.steps:.1f} us per step (host)",
          flush=True)


if __name__ == "__main__":
    main()
