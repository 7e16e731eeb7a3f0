"""Wall-clock helpers the benchmarks share."""

from __future__ import annotations

import subprocess
import time


def timed(fn, *args):
    """(seconds, result) of fn(*args)."""
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def child_wall(cmd, env=None):
    """Seconds a child process takes (in ``env``, else this one's), output discarded; raises
    when it fails."""
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0
