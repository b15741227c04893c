#!/usr/bin/env python3
"""Writes app_node.jsonl and app_killed.jsonl: hand-made line files of the injection library in the
shape tests/apps/graph_app.cu produces (see README.md). Run from this folder."""
import json

L = []


def w(**k):
    L.append(json.dumps(k, separators=(',', ':')))


T0 = 1_700_000_000_000_000_000
w(t="process", pid=4242, ppid=4200, ts=T0, cupti=130001, level=2, cmdline="graph_app --launches 4 --eager 3")
co = [100]


def nco():
    co[0] += 1
    return co[0]


t = T0 + 1_000_000
# eager: HtoD copy, 3 kernels, sync
c = nco(); w(t="a", n="cudaMemcpyAsync", cb=41, dr=0, s=t, e=t + 5000, p=4242, th=1, co=c, r=0)
w(t="mc", k="HtoD", b=262144, s=t + 6000, e=t + 16000, d=0, c=1, st=13, co=c, g=0, gn=0)
t += 20000
gpu = t + 30000
for i in range(3):
    c = nco(); w(t="a", n="cudaLaunchKernel", cb=211, dr=0, s=t, e=t + 3000, p=4242, th=1, co=c, r=0)
    w(t="k", n="_Z7k_scalePfif", s=gpu, e=gpu + 2000, d=0, c=1, st=13, co=c, g=0, gn=0, gr=[256, 1, 1], bl=[256, 1, 1], sh=0, rg=16)
    gpu += 2500; t += 4000
c = nco(); w(t="a", n="cudaStreamSynchronize", cb=131, dr=0, s=t, e=gpu + 1000, p=4242, th=1, co=c, r=0)
t = gpu + 2000
# capture graph 1 on stream 13
c = nco(); w(t="a", n="cudaStreamBeginCapture", cb=315, dr=0, s=t, e=t + 2000, p=4242, th=1, co=c, r=0)
w(t="capture_begin", stream=13, mode=0, co=c, r=0); t += 3000
for i in range(5):
    c = nco(); w(t="a", n="cudaLaunchKernel" if i else "cudaMemsetAsync", cb=211 if i else 51, dr=0, s=t, e=t + 1000, p=4242, th=1, co=c, r=0); t += 1500
c = nco(); w(t="a", n="cudaStreamEndCapture", cb=319, dr=0, s=t, e=t + 4000, p=4242, th=1, co=c, r=0)
w(t="capture_end", stream=13, graph=1, co=c, r=0); t += 5000
# explicit graph 2 (no capture records); instantiate both
for graph, exec_, nodes, edges in ((1, 3, 5, 4), (2, 4, 4, 4)):
    c = nco(); w(t="a", n="cudaGraphInstantiate", cb=443, dr=0, s=t, e=t + 50000, p=4242, th=1, co=c, r=0)
    for i in range(nodes):
        w(t="nm", x=(exec_ << 32) | i, o=(graph << 32) | i)
    # Exec 3's dump lies next to the records; the path recorded is stale (the folder moved).
    dot = "/moved-away/profile-data/p4242-exec3.dot" if exec_ == 3 else ""
    w(t="exec", exec=exec_, graph=graph, nodes=nodes, edges=edges, co=c, ts=t + 40000, dot=dot, dot_verbose="")
    t += 60000
c = nco(); w(t="a", n="cudaGraphUpload", cb=348, dr=0, s=t, e=t + 20000, p=4242, th=1, co=c, r=0); w(t="upload", exec=3, co=c); t += 30000
# 4 launches of exec 3: the first three to an idle GPU (short calls), the last waits for a full queue
gpu = t + 10000
names = ["memset", "_Z7k_scalePfif", "_Z7k_scalePfif", "_Z7k_scalePfif", "_Z5k_addPfPKfi"]
durs = [8000, 5000, 6000, 7000, 200000]
for launch in range(4):
    c = nco()
    if launch < 2:
        s = t; e = t + 2000; t = e + 400000; g0 = s + 5000
    else:
        s = t; e = t + 150000 if launch == 3 else t + 2000; t = e + 1000; g0 = max(gpu, s + 5000)
    w(t="a", n="cudaGraphLaunch", cb=311, dr=0, s=s, e=e, p=4242, th=1, co=c, r=0)
    g = g0
    for i, (nm, d) in enumerate(zip(names, durs)):
        if nm == "memset":
            w(t="ms", v=0, b=262144, s=g, e=g + d, d=0, c=1, st=20, co=c, g=3, gn=(3 << 32) | i)
        else:
            w(t="k", n=nm, s=g, e=g + d, d=0, c=1, st=20, co=c, g=3, gn=(3 << 32) | i, gr=[256, 1, 1], bl=[256, 1, 1], sh=0, rg=16)
        g += d + 1000
    gpu = g
# one launch of exec 4 (fork-join: nodes 1 and 2 run side by side)
c = nco(); s = max(t, gpu) + 1000; w(t="a", n="cudaGraphLaunch", cb=311, dr=0, s=s, e=s + 3000, p=4242, th=1, co=c, r=0)
g = s + 8000
for i, nm in enumerate(["_Z7k_scalePfif", "_Z7k_scalePfif", "_Z5k_addPfPKfi", "_Z5k_addPfPKfi"]):
    w(t="k", n=nm, s=g, e=g + 3000, d=0, c=1, st=21 if i == 1 else 20, co=c, g=4, gn=(4 << 32) | i, gr=[256, 1, 1], bl=[256, 1, 1], sh=0, rg=16)
    g += 3000 if i != 1 else 0
t = g + 10000
# broken capture: a synchronisation inside it
c = nco(); w(t="a", n="cudaStreamBeginCapture", cb=315, dr=0, s=t, e=t + 2000, p=4242, th=1, co=c, r=0); w(t="capture_begin", stream=13, mode=0, co=c, r=0); t += 3000
c = nco(); w(t="a", n="cudaLaunchKernel", cb=211, dr=0, s=t, e=t + 1000, p=4242, th=1, co=c, r=0); t += 2000
c = nco(); w(t="a", n="cudaStreamSynchronize", cb=131, dr=0, s=t, e=t + 1000, p=4242, th=1, co=c, r=900); t += 2000
c = nco(); w(t="a", n="cudaStreamEndCapture", cb=319, dr=0, s=t, e=t + 1000, p=4242, th=1, co=c, r=901); w(t="capture_end", stream=13, graph=0, co=c, r=901); t += 2000
c = nco(); w(t="a", n="cudaMemcpy", cb=31, dr=0, s=t, e=t + 30000, p=4242, th=1, co=c, r=0)
w(t="mc", k="DtoH", b=262144, s=t + 5000, e=t + 25000, d=0, c=1, st=7, co=c, g=0, gn=0)
t += 40000
w(t="end", reason="exit", ts=t, dropped=0, lost_buffers=0)
open("app_node.jsonl", "w").write("\n".join(L) + "\n")
# killed variant: no end line, a torn last line
open("app_killed.jsonl", "w").write("\n".join(L[:-1]) + "\n" + L[-2][:25])
