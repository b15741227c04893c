#!/usr/bin/env python3
"""ResNet-50 inference replayed with torch.cuda.graph: a plain PyTorch program (no graphprof code)
for `graphprof profile`. ResNet-50 is written out in torch.nn (torchvision is not needed). It runs
--eager-steps eager forward passes, captures one forward pass into a CUDA graph, replays it
--replays times, and prints its own timing (CUDA events and host clock) so graphprof's figures can
be checked against it.

    graphprof profile --overhead -- python3 examples/profile-demos/resnet50_graph.py
"""
import argparse
import time

import torch
from torch import nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + idt)


class ResNet50(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1))
        layers, cin = [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for b in range(blocks):
                layers.append(Bottleneck(cin, width, stride if b == 0 else 1))
                cin = width * Bottleneck.expansion
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--replays", type=int, default=200)
    ap.add_argument("--eager-steps", type=int, default=20)
    args = ap.parse_args()

    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = ResNet50().to(dev).half().eval()
    x = torch.randn(args.batch, 3, 224, 224, device=dev, dtype=torch.half)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    with torch.no_grad():
        # Eager steps (also the warm-up a capture needs, on a side stream as PyTorch asks).
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        start.record()
        for _ in range(args.eager_steps):
            model(x)
        end.record()
        torch.cuda.synchronize()
        eager_host = (time.perf_counter() - t0) * 1e3 / max(1, args.eager_steps)
        eager_gpu = start.elapsed_time(end) / max(1, args.eager_steps)

        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = model(x)
        torch.cuda.synchronize()
        g.replay()  # first replay: one-off costs, not timed
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        start.record()
        for _ in range(args.replays):
            g.replay()
        end.record()
        torch.cuda.synchronize()
        replay_host = (time.perf_counter() - t0) * 1e3 / max(1, args.replays)
        replay_gpu = start.elapsed_time(end) / max(1, args.replays)
    print(f"resnet50_graph: batch {args.batch} fp16, output {tuple(y.shape)}")
    print(f"resnet50_graph: eager  {eager_gpu:.3f} ms per step (CUDA events), {eager_host:.3f} ms host, {args.eager_steps} steps")
    print(f"resnet50_graph: replay {replay_gpu:.3f} ms per replay (CUDA events), {replay_host:.3f} ms host, {args.replays} replays")


if __name__ == "__main__":
    main()
