"""The torch operations the GPU timing tests measure, shared with the ncu child process."""

from __future__ import annotations

import sys

RUNS = 20


def make_ops(torch):
    """name -> callable launching one kernel of at least ~50 us on an H200."""
    x = torch.rand(64 * 2**20, device="cuda") + 0.5
    y = torch.empty_like(x)
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    c = torch.empty(2048, 2048, device="cuda")
    return {
        "spin": lambda: torch.cuda._sleep(200_000),  # ~100 us at 1980 MHz
        "scale": lambda: torch.mul(x, 2.0, out=y),  # 256 MiB read, 256 MiB written
        "matmul": lambda: torch.matmul(a, b, out=c),
    }


if __name__ == "__main__":
    from gpu_reference import run_ops_in_ranges

    run_ops_in_ranges(make_ops, sys.argv[1:], RUNS)
