# SPDX-License-Identifier: Apache-2.0
"""``kprof.StoppingRule``: run each config until its mean is known well enough
(``analyze.kernel(runs=kprof.StoppingRule(...))``; ``runs="auto"`` is the default rule)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StoppingRule"]


@dataclass(frozen=True)
class StoppingRule:
    """When a config has run often enough.

    A config stops as soon as, for every annotation and measured metric of the config (and
    every kernel, with ``per_kernel=True``), the half-width of the Student-t 95% confidence
    interval of the mean is at most ``rel_half_width`` of the mean, after at least ``min_runs``
    runs. It also stops at ``max_runs`` runs, or once its runs took ``time_budget_s`` seconds
    (thermal pauses excluded; 0: no budget). Annotations whose runs all failed are left out;
    derived metrics are not judged (they are computed from the measured ones). Which rule
    stopped each config, and after how many runs, is in the results (``StoppedBy``,
    ``RunsDone``).

    Durations are collected in batches, never after every run (a collection synchronizes the
    GPU and flushes CUPTI's buffers): first after ``min_runs`` runs, then at checkpoints that
    grow by 25% to 100%, aimed at the number of runs the interval so far predicts. A config may
    therefore run up to one batch more than it needed.

    Attributes:
        rel_half_width: The target, as a share of the mean: 0.01 is +/-1%.
        min_runs: Runs before the first check (>= 2).
        max_runs: The most runs per config.
        time_budget_s: The most seconds per config (0: none). NVBench's timeout is 15 s.
    """

    rel_half_width: float = 0.01
    min_runs: int = 5
    max_runs: int = 100
    time_budget_s: float = 15.0
