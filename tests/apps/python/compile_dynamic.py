"""torch.compile(mode="reduce-overhead") on a model whose batch size changes, so CUDA-graph trees
record a new graph for each new shape (re-recording during what would be the steady state), for
`graphprof profile`. Unmodified PyTorch; it knows nothing of graphprof. Before and after the first
call of each new shape it prints its own memory figures (torch.cuda.memory_reserved(),
memory_allocated(), torch.cuda.mem_get_info()).

    python compile_dynamic.py [--steps N] [--shapes 8,16,32] [--hidden H]
"""
import argparse

import torch


def memory(tag):
    free, total = torch.cuda.mem_get_info()
    print(f"compile_dynamic: {tag}: memory_reserved {torch.cuda.memory_reserved()} "
          f"memory_allocated {torch.cuda.memory_allocated()} mem_get_info_free {free} total {total}", flush=True)


class Block(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.up = torch.nn.Linear(hidden, 4 * hidden)
        self.down = torch.nn.Linear(4 * hidden, hidden)
        self.norm = torch.nn.LayerNorm(hidden)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--shapes", default="8,16,32")
    ap.add_argument("--hidden", type=int, default=1024)
    a = ap.parse_args()
    shapes = [int(x) for x in a.shapes.split(",")]
    model = torch.nn.Sequential(*[Block(a.hidden) for _ in range(3)]).cuda().eval()
    step_fn = torch.compile(model, mode="reduce-overhead", dynamic=False)
    seen = set()
    with torch.no_grad():
        for round_ in range(a.steps):
            for b in shapes:
                x = torch.randn(b, a.hidden, device="cuda")
                new = b not in seen
                if new:
                    memory(f"before first call of shape {b}")
                y = step_fn(x)
                y = y.clone()  # keep the output past the next replay (CUDA-graph trees reuse it)
                if new:
                    torch.cuda.synchronize()
                    memory(f"after first call of shape {b}")
                    seen.add(b)
    torch.cuda.synchronize()
    memory("end")
    print(f"compile_dynamic: {a.steps} rounds of shapes {shapes} done", flush=True)


if __name__ == "__main__":
    main()
