# SPDX-License-Identifier: Apache-2.0
"""What one call of a function decorated with :func:`kprof.analyze.kernel` prints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kprof._native import core as _core
from kprof._options import Settings
from kprof.configs import BoundConfigs
from kprof.verbosity import VerbosityLevel

__all__ = ["CallProgress"]


class CallProgress:
    """The front end's ``[kprof]`` output of one call. The core logs the sweep's header and one
    line per config; :meth:`start` hands the core a :class:`kprof.progress.ProgressDisplay`
    that receives those lines and every finished run during the profile, and shows them as a
    progress bar (terminal, notebook) or plain lines (see :mod:`kprof.progress`). Python adds
    the lines only it knows (the options at DEBUG, the files written)."""

    def __init__(self, settings: Settings, options: Any) -> None:
        self.settings = settings
        self.options = options
        self.display: Any = None

    def say(self, line: str, level: VerbosityLevel = VerbosityLevel.INFO) -> None:
        if self.settings.verbosity >= level:
            print(f"[kprof] {line}", flush=True)

    def start(self, name: str, bound: BoundConfigs) -> None:
        from kprof.progress import make_display

        self.say(
            f"{name}: {len(bound.values)} config(s), options {self.options!r}",
            VerbosityLevel.DEBUG,
        )
        configs = [bound.describe(i) for i in range(len(bound.values))]
        self.display = make_display(
            name,
            configs,
            self.settings.runs,  # with a stopping rule, its max_runs
            self.settings.verbosity,
            upper_bound=self.settings.stopping is not None,
        )
        _core._set_progress(self.display)  # taken by the next _core.profile call

    def done(self, paths: Sequence[str]) -> None:
        for p in paths:
            self.say(f"wrote {p}")
