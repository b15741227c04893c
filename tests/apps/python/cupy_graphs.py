"""A CuPy program with a CUDA graph, for `graphprof profile`: kernels launched by CuPy (RawKernel,
through the driver's cuLaunchKernel) and a graph captured and replayed through CuPy's stream API.
Unmodified CuPy that knows nothing of graphprof.

    python cupy_graphs.py [--steps 500] [--nodes 12] [--n 1048576]

Each step replays the graph (NODES kernels) once and launches 2 kernels eagerly, then synchronises.
It prints its own counts and its time per step at the end.
"""
import argparse
import time

import cupy as cp

AXPY = cp.RawKernel(r"""
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}""", "axpy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--nodes", type=int, default=12)
    ap.add_argument("--n", type=int, default=1 << 20)
    a = ap.parse_args()
    x = cp.ones(a.n, dtype=cp.float32)
    y = cp.zeros(a.n, dtype=cp.float32)
    grid, block = ((a.n + 255) // 256,), (256,)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        AXPY(grid, block, (cp.float32(0.5), x, y, cp.int32(a.n)))  # warm-up (module load)
        stream.synchronize()
        stream.begin_capture()
        for _ in range(a.nodes):
            AXPY(grid, block, (cp.float32(0.001), x, y, cp.int32(a.n)))
        graph = stream.end_capture()
        graph.upload(stream)
        eager = 0
        t0 = time.perf_counter()
        for _ in range(a.steps):
            graph.launch(stream)
            AXPY(grid, block, (cp.float32(-0.001), x, y, cp.int32(a.n)))
            AXPY(grid, block, (cp.float32(0.0005), x, y, cp.int32(a.n)))
            eager += 2
            stream.synchronize()
        dt = time.perf_counter() - t0
    print(f"cupy_graphs: {a.steps} graph launches of 1 graph ({a.nodes} nodes), {eager} eager kernel launches "
          f"(+1 warm-up); {dt * 1e6 / a.steps:.1f} us per step (host)", flush=True)


if __name__ == "__main__":
    main()
