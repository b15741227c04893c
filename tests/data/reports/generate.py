#!/usr/bin/env python3
"""Writes the synthetic graphprof reports that drive the `graphprof compare` tests.

Each report imitates R separate `graphprof run --repetitions 1` processes merged by
`graphprof merge` on an H200 (structure, metric keys, units, environment; settings.processes = R),
except the suite*.json reports, which imitate one process with R repetitions. Timings are drawn
from a three-level noise model:
    log(sample) = log(true value) + job offset + repetition offset + sample noise (+ a rare slow tail)
The job offset is shared by every repetition of one report: it is the between-run noise that a
single run cannot see. Seeds are fixed, so rerunning this script rewrites the same files.

Usage: python3 tests/data/reports/generate.py   (writes next to this script)
"""
import copy
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# Relative noise (sigma of log) per metric: sample, repetition, job.
NOISE = {
    "gpu_time_per_iter": (0.010, 0.004, 0.004),
    "wall_time_per_iter": (0.020, 0.008, 0.008),
    "launch_cpu_per_call": (0.080, 0.015, 0.010),
    "launch_cpu_per_iter": (0.060, 0.015, 0.010),
    "launch_cpu_isolated": (0.100, 0.030, 0.015),
    "capture_time": (0.050, 0.040, 0.020),
    "build_time": (0.050, 0.040, 0.020),
    "instantiate_time": (0.050, 0.040, 0.020),
    "upload_time": (0.050, 0.040, 0.020),
    "first_launch_time": (0.020, 0.010, 0.010),
}
ONE_OFF = {"capture_time", "build_time", "instantiate_time", "upload_time", "first_launch_time"}

# True values (ns) per (workload, mode), loosely after the H200 chain run.
BENCHMARKS = {
    ("chain", "eager"): {"gpu_time_per_iter": 321e3, "wall_time_per_iter": 334e3, "launch_cpu_per_call": 3070,
                         "launch_cpu_per_iter": 318e3, "launch_cpu_isolated": 3300},
    ("chain", "capture"): {"gpu_time_per_iter": 100.4e3, "wall_time_per_iter": 103.9e3, "launch_cpu_per_call": 1206,
                           "launch_cpu_per_iter": 1206, "launch_cpu_isolated": 1302, "capture_time": 44.2e3,
                           "instantiate_time": 79.1e3, "upload_time": 146.3e3, "first_launch_time": 105.2e3},
    ("chain", "graph"): {"gpu_time_per_iter": 100.4e3, "wall_time_per_iter": 103.9e3, "launch_cpu_per_call": 1200,
                         "launch_cpu_per_iter": 1200, "launch_cpu_isolated": 1251, "build_time": 38.2e3,
                         "instantiate_time": 80.6e3, "upload_time": 142.3e3, "first_launch_time": 105.1e3},
    ("fork_join", "eager"): {"gpu_time_per_iter": 48.0e3, "wall_time_per_iter": 61.0e3, "launch_cpu_per_call": 2900,
                             "launch_cpu_per_iter": 52.0e3, "launch_cpu_isolated": 3100},
    ("fork_join", "capture"): {"gpu_time_per_iter": 21.5e3, "wall_time_per_iter": 25.0e3, "launch_cpu_per_call": 1500,
                               "launch_cpu_per_iter": 1500, "launch_cpu_isolated": 1650, "capture_time": 12.0e3,
                               "instantiate_time": 30.0e3, "upload_time": 40.0e3, "first_launch_time": 28.0e3},
    ("fork_join", "graph"): {"gpu_time_per_iter": 21.4e3, "wall_time_per_iter": 24.9e3, "launch_cpu_per_call": 1490,
                             "launch_cpu_per_iter": 1490, "launch_cpu_isolated": 1640, "build_time": 10.0e3,
                             "instantiate_time": 29.0e3, "upload_time": 39.0e3, "first_launch_time": 27.5e3},
}
PARAMS = {"chain": {"elements": "4096", "kernels": "100", "sync_inside": "0"},
          "fork_join": {"branches": "8", "depth": "4"}}
GRAPH = {"chain": {"nodes": 100, "edges": 99}, "fork_join": {"nodes": 34, "edges": 48}}

H200 = {"clock_khz": 1980000, "compute_capability": "9.0", "cupti_version": 130001, "driver_version": 13000,
        "global_memory_bytes": 150109880320, "memory_clock_khz": 3201000, "name": "NVIDIA H200", "ordinal": 0,
        "pci_bus_id": "0000:00:06.0", "runtime_version": 13000, "sm_count": 132,
        "uuid": "GPU-00000000-0000-0000-0000-000000000000"}
HOST = {"compiler": "g++ 13.3.0", "cpu_count": 16, "cpu_model": "Intel(R) Xeon(R) Processor", "hostname": "ci-gpu",
        "kernel": "6.8.0", "os": "Ubuntu 24.04.3 LTS"}

METRIC_DESC = "synthetic"


def samples(rng, true_ns, metric, n, job, rep_noise_scale, shift):
    s_sigma, r_sigma, _ = NOISE[metric]
    rep = rng.gauss(0, r_sigma * rep_noise_scale)
    out = []
    for _ in range(n):
        v = math.log(true_ns) + shift + job + rep + rng.gauss(0, s_sigma * rep_noise_scale)
        if rng.random() < 0.02:  # preemption, a cache miss storm: a rare slow sample
            v += abs(rng.gauss(0, 0.3))
        out.append(round(math.exp(v), 1))
    return out


def report(seed, *, reps=7, n=15, noise=1.0, shift=None, revision="synthetic", benchmarks=None, params=None,
           gpu=None, tool="0.1.0"):
    """shift: {(workload, mode, metric): log shift}; noise scales the sample and repetition sigmas."""
    rng = random.Random(seed)
    shift = shift or {}
    benchmarks = benchmarks or BENCHMARKS
    params = params or PARAMS
    results = []
    # One job offset per metric kind, at its realistic size whatever `noise` says: between-run
    # noise cannot be seen from inside one report, only the practical threshold guards against it.
    jobs = {m: rng.gauss(0, NOISE[m][2]) for m in NOISE}
    for (w, mode), metrics in benchmarks.items():
        res = {"workload": w, "mode": mode, "params": dict(params[w]), "status": "ok", "metrics": {},
               "derived": {}, "checksum": "7b17e0af5c4a0488", "checksum_matches_eager": True, "sections": {}}
        if mode != "eager":
            res["sections"] = {"graph": dict(GRAPH.get(w, {"nodes": 3, "edges": 2}))}
        for metric, true_ns in metrics.items():
            count = 5 if metric in ONE_OFF else n
            d = shift.get((w, mode, metric), 0.0)
            res["metrics"][metric] = {
                "unit": "ns", "direction": "lower_is_better", "description": METRIC_DESC, "converged": True,
                "repetitions": [samples(rng, true_ns, metric, count, jobs[metric], noise, d) for _ in range(reps)]}
        results.append(res)
    return {"schema_version": "1.0.0",
            "tool": {"name": "graphprof", "version": tool, "git_revision": revision},
            "created_utc": "2026-11-29T08:00:00Z",
            "command_line": ["graphprof", "run", "--repetitions=1", "--json=report.json"],
            "environment": {"host": HOST, "gpu": dict(gpu or H200)},
            "settings": {"repetitions": 1, "processes": reps, "target_rel_ci": 0.01, "min_samples": 20, "max_samples": 200000,
                         "budget_seconds_per_pass": 0.5, "warmup_iterations": 20, "warmup_seconds": 0.05,
                         "verify_iterations": 3, "one_off_samples": 5},
            "results": results}


SUITE_RUN_SD = {  # between-run sd per benchmark: (eager, graph modes)
    "gpu_time_per_iter": (0.10, 0.015),
    "wall_time_per_iter": (0.10, 0.015),
    "launch_cpu_per_call": (0.15, 0.15),
}


def suite(seed, *, reps, slow=(), n=8):
    """Ten workloads x three modes, three gating metrics; `slow` benchmarks get +25% GPU time."""
    rng = random.Random(seed)
    results = []
    for w in range(10):
        for mode in ("eager", "capture", "graph"):
            res = {"workload": "w%d" % w, "mode": mode, "params": {"size": str(1000 * (w + 1))}, "status": "ok",
                   "metrics": {}, "derived": {}, "checksum": "", "checksum_matches_eager": None, "sections": {}}
            for metric, (eager_sd, graph_sd) in SUITE_RUN_SD.items():
                true = {"gpu_time_per_iter": 50e3, "wall_time_per_iter": 60e3, "launch_cpu_per_call": 2e3}[metric]
                true *= 1 + 0.3 * w if mode == "eager" else 0.4 + 0.1 * w
                run = rng.gauss(0, eager_sd if mode == "eager" else graph_sd)
                if metric == "gpu_time_per_iter" and ("w%d" % w, mode) in slow:
                    run += math.log(1.25)
                repetitions = []
                for _ in range(reps):
                    rep = rng.gauss(0, 0.004)
                    repetitions.append([round(math.exp(math.log(true) + run + rep + rng.gauss(0, 0.01)), 1)
                                        for _ in range(n)])
                res["metrics"][metric] = {"unit": "ns", "direction": "lower_is_better", "description": METRIC_DESC,
                                          "converged": True, "repetitions": repetitions}
            results.append(res)
    doc = report(seed, reps=reps, benchmarks={}, params={})
    doc["results"] = results
    # One process with `reps` repetitions: they agree closely, the next process lands elsewhere.
    doc["settings"]["repetitions"] = reps
    del doc["settings"]["processes"]
    doc["command_line"][2] = "--repetitions=%d" % reps
    return doc


def find(rep, workload, mode):
    for r in rep["results"]:
        if r["workload"] == workload and r["mode"] == mode:
            return r
    raise KeyError((workload, mode))


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        # One result per line keeps diffs readable and line:col messages meaningful.
        f.write("{\n")
        keys = [k for k in doc if k != "results"]
        for k in keys:
            f.write(" %s: %s,\n" % (json.dumps(k), json.dumps(doc[k], sort_keys=True)))
        f.write(' "results": [\n')
        for i, r in enumerate(doc["results"]):
            f.write("  " + json.dumps(r, sort_keys=True) + ("," if i + 1 < len(doc["results"]) else "") + "\n")
        f.write(" ]\n}\n")


def main():
    pct = lambda p: math.log1p(p / 100.0)
    write("base.json", report(1, revision="base"))
    # A/A: the same code measured again (new job offset, new repetitions).
    write("aa_noise.json", report(2, revision="rerun"))
    # A real but small change with low noise: +3% GPU time in chain/graph.
    write("small_change.json", report(3, revision="small", shift={("chain", "graph", "gpu_time_per_iter"): pct(3)}))
    # Real regressions: +10% GPU time in chain/graph, +15% launch CPU in fork_join/capture.
    write("regression.json", report(4, revision="slower", shift={("chain", "graph", "gpu_time_per_iter"): pct(10),
                                                                   ("fork_join", "capture", "launch_cpu_per_call"): pct(15)}))
    # Improvements only: every gating metric of every graph-mode benchmark 15% faster.
    faster = {}
    for (w, mode) in BENCHMARKS:
        if mode != "eager":
            for m in ("gpu_time_per_iter", "wall_time_per_iter", "launch_cpu_per_call"):
                faster[(w, mode, m)] = pct(-15)
    write("improvements.json", report(5, revision="faster", shift=faster))
    # Large noise on both sides (8x the sample and repetition sigmas), no real change.
    write("noisy_base.json", report(6, noise=8.0, revision="noisy-a"))
    write("noisy_cand.json", report(7, noise=8.0, revision="noisy-b"))
    # One repetition of chain/eager GPU time 60% slower (a hiccup), nothing else changed.
    out = report(8, revision="outlier")
    find(out, "chain", "eager")["metrics"]["gpu_time_per_iter"]["repetitions"][3] = [
        round(v * 1.6, 1) for v in find(out, "chain", "eager")["metrics"]["gpu_time_per_iter"]["repetitions"][3]]
    write("outlier_rep.json", out)
    # Missing and added: fork_join/graph gone, chain/graph lost a metric, a new workload appears.
    out = report(9, revision="reshuffled")
    out["results"] = [r for r in out["results"] if not (r["workload"] == "fork_join" and r["mode"] == "graph")]
    del find(out, "chain", "graph")["metrics"]["wall_time_per_iter"]
    extra = report(9, benchmarks={("memcpy", "eager"): {"gpu_time_per_iter": 9.0e3, "wall_time_per_iter": 15.0e3,
                                                      "launch_cpu_per_call": 2000}},
                   params={"memcpy": {"bytes": "1048576"}})
    out["results"].append(extra["results"][0])
    write("missing_added.json", out)
    # Another GPU: everything else as in an A/A rerun.
    a100 = dict(H200, name="NVIDIA A100-SXM4-80GB", compute_capability="8.0", sm_count=108, clock_khz=1410000)
    write("other_gpu.json", report(10, revision="a100", gpu=a100))
    # NaN and empty samples: null samples in one metric, an empty metric in another.
    out = report(11, revision="nan")
    reps = find(out, "chain", "eager")["metrics"]["gpu_time_per_iter"]["repetitions"]
    for r in reps:
        r[0] = None
        r[1] = None
    find(out, "chain", "capture")["metrics"]["wall_time_per_iter"]["repetitions"] = []
    write("nan_samples.json", out)
    # A mode that worked now fails, as graphprof run records it.
    out = report(12, revision="broken")
    cap = find(out, "chain", "capture")
    cap.update({"status": "failed", "metrics": {}, "sections": {}, "checksum": "", "checksum_matches_eager": None,
                "reason": "cudaStreamEndCapture returned cudaErrorStreamCaptureInvalidated",
                "failure": {"api": "cudaStreamEndCapture", "error": "cudaErrorStreamCaptureInvalidated",
                            "message": "capture was invalidated", "hint": "remove the synchronize inside the capture"}})
    write("failed_mode.json", out)
    # The SM clock dropped 11% and GPU time rose by the same factor: the code did not change.
    slow_clock = dict(H200, clock_khz=1755000)
    clk = {}
    for (w, mode) in BENCHMARKS:
        clk[(w, mode, "gpu_time_per_iter")] = math.log(1980.0 / 1755.0)
    write("clock_change.json", report(13, revision="clock", gpu=slow_clock, shift=clk))
    # Structure drift: the chain graph grew by 20 nodes.
    out = report(14, revision="drift")
    find(out, "chain", "graph")["sections"]["graph"] = {"nodes": 120, "edges": 119}
    write("drift.json", out)
    # One repetition per side: the gross rule.
    write("r1_base.json", report(15, reps=1, revision="r1-base"))
    write("r1_same.json", report(16, reps=1, revision="r1-rerun"))
    write("r1_slow.json", report(17, reps=1, revision="r1-slow",
                                 shift={("chain", "graph", "gpu_time_per_iter"): pct(30)}))
    # Hundreds of regressions: 300 benchmarks, every one 20% slower in GPU time.
    many = {}
    many_params = {}
    for i in range(300):
        name = "synthetic%03d" % i
        many[(name, "graph")] = {"gpu_time_per_iter": 10e3 + 100 * i}
        many_params[name] = {"size": str(1024 * (i + 1))}
    write("many_base.json", report(18, reps=5, n=5, benchmarks=many, params=many_params, revision="many-base"))
    write("many_cand.json", report(19, reps=5, n=5, benchmarks=many, params=many_params, revision="many-slow",
                                   shift={(w, m, "gpu_time_per_iter"): pct(20) for (w, m) in many}))
    # A suite measured twice the way an H200 VM behaves: repetitions of one run agree closely,
    # but each benchmark lands somewhere else in the next run (eager launch-bound figures and
    # launch CPU times by 10-15%, graph replays by about 1.5%).
    write("suite_a.json", suite(20, reps=5))
    write("suite_b.json", suite(21, reps=5))
    write("suite_slow.json", suite(22, reps=5, slow={("w3", "graph"), ("w7", "capture")}))
    write("suite3_a.json", suite(23, reps=3))
    write("suite3_b.json", suite(24, reps=3))

    # Unreadable inputs (exit 3 with FILE:LINE:COL).
    with open(os.path.join(HERE, "base.json")) as f:
        text = f.read()
    with open(os.path.join(HERE, "truncated.json"), "w") as f:
        f.write(text[:text.index('"results": [') + 400])  # cut inside the first result
    with open(os.path.join(HERE, "malformed.json"), "w") as f:
        f.write('{\n "schema_version": "1.0.0",\n "results": [\n  {"workload": "chain" "mode": "eager"}\n ]\n}\n')
    with open(os.path.join(HERE, "not_a_report.json"), "w") as f:
        f.write("[1, 2, 3]\n")
    with open(os.path.join(HERE, "empty.json"), "w") as f:
        f.write("")


if __name__ == "__main__":
    main()
