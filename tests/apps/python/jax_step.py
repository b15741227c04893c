"""A JAX jitted training step, for `graphprof profile` on XLA: with XLA's command buffers on (the
default: XLA records fused kernels into a CUDA graph it updates in place each step) or off.
Unmodified JAX that knows nothing of graphprof.

    python jax_step.py [--steps 300] [--command-buffers on|off] [--hidden 512] [--layers 8]
                       [--step-log FILE]

Each step is one jitted SGD step of an MLP, then a read of the loss (a synchronisation). It prints
its own count of steps and its median time per step. --step-log writes each step's start and end on
CLOCK_MONOTONIC (`START_NS END_NS 1` per line, as tools/pause-stats.py reads them).
"""
import argparse
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--command-buffers", default="on", choices=["on", "off"])
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--step-log")
    a = ap.parse_args()
    if a.command_buffers == "off":
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_enable_command_buffer=").strip()
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    keys = jax.random.split(key, a.layers + 1)
    params = [jax.random.normal(k, (a.hidden, a.hidden)) * (1.0 / a.hidden ** 0.5) for k in keys[:-1]]
    x = jax.random.normal(keys[-1], (64, a.hidden))

    def loss_fn(ps, x):
        h = x
        for w in ps:
            h = jnp.tanh(h @ w)
        return jnp.mean(h * h)

    @jax.jit
    def step(ps, x):
        loss, grads = jax.value_and_grad(loss_fn)(ps, x)
        return [w - 1e-3 * g for w, g in zip(ps, grads)], loss

    params, loss = step(params, x)  # compile
    float(loss)
    times = []
    log = open(a.step_log, "w") if a.step_log else None
    for _ in range(a.steps):
        m0 = time.monotonic_ns()
        t0 = time.perf_counter()
        params, loss = step(params, x)
        float(loss)
        times.append(time.perf_counter() - t0)
        if log:
            log.write(f"{m0} {time.monotonic_ns()} 1\n")
    if log:
        log.close()
    times.sort()
    print(f"jax_step: {a.steps} steps (+1 compile), command buffers {a.command_buffers}; "
          f"median {times[len(times) // 2] * 1e6:.1f} us per step; devices {jax.devices()}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
