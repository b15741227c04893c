"""An ordinary torch.distributed (NCCL) program with a CUDA-graph-captured step, for profiling a
multi-GPU job with `graphprof profile -- torchrun --nproc_per_node=N allreduce_step.py`.

It knows nothing of graphprof. Each rank (one process per GPU, LOCAL_RANK picks the GPU):
  - sets up NCCL and runs --warmup eager steps on a side stream (NCCL's communicator is created
    lazily, at the first collective: it must exist before capture);
  - captures one step with torch.cuda.graph: --kernels small elementwise kernels on a tensor of
    --bytes bytes (float32), then dist.all_reduce (sum) of that tensor;
  - replays the graph --replays times back to back and prints its own timing (CUDA events) and
    the sum it computed, so its figures can be set next to graphprof's.

The same message size and shape as `graphprof run -w allreduce -p bytes=B -p kernels=K -p steps=1`
(one all-reduce of B bytes behind K small kernels): docs/profile.md ("Several ranks") gives the
commands that compare the two.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=1 << 20, help="bytes each all-reduce sums (float32)")
    ap.add_argument("--kernels", type=int, default=4, help="small kernels before the all-reduce")
    ap.add_argument("--warmup", type=int, default=10, help="eager steps before the capture")
    ap.add_argument("--replays", type=int, default=200, help="graph replays")
    ap.add_argument("--gpu", type=int, default=None,
                    help="put every rank on this GPU instead of GPU LOCAL_RANK (NCCL refuses two ranks on one GPU: "
                         "this only shows how it refuses)")
    args = ap.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local_rank if args.gpu is None else args.gpu)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()

    n = max(1, args.bytes // 4)
    x = torch.ones(n, device=device, dtype=torch.float32)

    def step():
        for _ in range(args.kernels):
            x.mul_(0.5).add_(0.5)  # stays 1.0: the all-reduce sums world copies of 1.0 ...
        dist.all_reduce(x)
        x.div_(world)  # ... and this brings it back, so replays neither grow nor shrink it

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(args.warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    torch.cuda.synchronize()
    dist.barrier()

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    for _ in range(args.replays):
        graph.replay()
    end.record()
    torch.cuda.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    gpu_ms = start.elapsed_time(end)
    value = float(x[0].item())
    print(f"allreduce_step: rank {rank} of {world} on GPU {device.index}: {args.replays} replays, "
          f"{1e3 * gpu_ms / args.replays:.2f} us per replay (CUDA events), host {1e3 * host_ms / args.replays:.2f} us, "
          f"message {4 * n} bytes, x[0] = {value:g} (expected 1)", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
