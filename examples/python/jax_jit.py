"""Profile a jax.jit function. JAX dispatches asynchronously: block_until_ready() inside the
annotation keeps the region open until its kernels were launched (kprof attributes kernels by
their launch, so the region must enclose it). JAX takes most of the GPU's memory at start
unless told not to; the variable must be set before jax is imported.
"""

import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import kprof  # noqa: E402


@jax.jit
def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@kprof.analyze.kernel(configs=[2**20, 2**24], runs=10, warmup=1)
def jitted(n):
    x = jnp.ones(n, dtype=jnp.float32)
    with kprof.annotate("gelu"):
        gelu(x).block_until_ready()


df = jitted().to_dataframe()
print(df[["Annotation", "n", "Kernel", "AvgValue", "NumRuns"]].to_string())
