"""An application that profiles itself with torch.profiler (Kineto), for `graphprof profile`'s
"other CUPTI clients" check: a few steps of a small model eager and replayed from a CUDA graph
inside torch.profiler.profile(activities=[CPU, CUDA]); it prints how many of the profiler's events
have GPU time, and exits 0 whatever its profiler got.

    python torch_profiler_app.py
"""
import torch
from torch.profiler import ProfilerActivity, profile


def main():
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 256)).cuda().half()
    x = torch.randn(8, 256, device="cuda", dtype=torch.half)
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            model(x)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                model(x)
                g.replay()
            torch.cuda.synchronize()
    events = prof.key_averages()
    gpu = [e for e in events if getattr(e, "device_time_total", getattr(e, "cuda_time_total", 0)) > 0]
    print(f"torch_profiler_app: {len(events)} profiler events, {len(gpu)} with GPU time")


if __name__ == "__main__":
    main()
