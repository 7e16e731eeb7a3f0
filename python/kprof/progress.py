# SPDX-License-Identifier: Apache-2.0
"""What :func:`kprof.analyze.kernel` shows while it profiles.

The C++ core logs ``[kprof]`` lines: one when the sweep starts (configs, runs, GPU, backend)
and one per finished config. Before a profile, the front end hands a :class:`ProgressDisplay`
to the core (``kprof._core._set_progress``); during that profile the core gives it every log
line instead of printing it, calls ``run_done(config)`` after each measured run (not after the
unmeasured calls and extra passes of hardware counters) and ``close(failed)`` at the end,
failure included. So the display shows each piece of
information once:

- ``INFO`` in a terminal (``sys.stdout`` is a TTY): one bar redrawn in place with ``\\r``: the
  function, percent done, the current config, runs done of all runs, elapsed time and ETA. The
  core's per-config lines are replaced by the bar; any other line is printed above it.
- ``INFO`` elsewhere (a log file, a pipe, CI): plain lines, nothing redrawn: the core's line
  of the first and the last config and, between them, of a config that ends a few seconds
  after the last line shown (the core's rule, ``_core.config_line_due``), each with the ETA
  added. A sweep of 1,000 short configs writes a handful of lines, not 1,000.
- ``INFO`` in a Jupyter notebook: an ``ipywidgets`` progress bar with the same text when
  ipywidgets is installed, plain lines otherwise.
- ``DEBUG``: plain lines for every step: each core line and each finished run.
- ``SILENT``: no display at all, and the core prints nothing.

Every line starts with ``[kprof]``. A display never raises into the profile: the core reports
an observer's exception as unraisable and goes on.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from kprof._native import core as _core
from kprof.verbosity import VerbosityLevel

__all__ = ["ProgressDisplay", "choose_mode", "make_display", "format_seconds"]

PREFIX = "[kprof]"

#: The core's line for a finished config (src/api/profile.cpp): ``[kprof] config 3/4
#: (n=2048): 20 run(s), 1.23 s`` (``... 7 run(s) (stopped by interval), ...`` with a stopping
#: rule; ``... s elapsed`` in older cores). A line of another shape is printed as it is, so a
#: change of the core's wording shows twice rather than not at all.
CONFIG_LINE = re.compile(
    r"^\[kprof\] config (?P<index>\d+)/(?P<count>\d+)(?: \((?P<params>.*?)\))?: "
    r"(?P<runs>\d+) run\(s\)(?: \((?P<why>stopped by [^)]*)\))?, "
    r"(?P<seconds>[0-9.]+) s(?: elapsed)?$"
)

MODES = ("bar", "lines", "widget", "debug")
_REDRAW_S = 0.1  # at most ten redraws a second in a terminal


def format_seconds(s: float) -> str:
    """``0.42 s``, ``12 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if s != s or s < 0:  # NaN
        return "?"
    if s < 10:
        return f"{s:.2f} s" if round(s, 2) < 1 else f"{s:.1f} s"
    if s < 60:
        return f"{s:.0f} s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def _in_notebook() -> bool:
    if "google.colab" in sys.modules:
        return True
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _have_ipywidgets() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def choose_mode(verbosity: VerbosityLevel | int) -> str | None:
    """The display for a verbosity here: None (SILENT), ``"debug"``, ``"widget"`` (notebook
    with ipywidgets), ``"bar"`` (terminal) or ``"lines"``."""
    level = int(verbosity)
    if level < VerbosityLevel.INFO:
        return None
    if level >= VerbosityLevel.DEBUG:
        return "debug"
    if _in_notebook():
        return "widget" if _have_ipywidgets() else "lines"
    return "bar" if _isatty(sys.stdout) else "lines"


class ProgressDisplay:
    """Shows the progress of one profile: given to the core, which calls :meth:`line`,
    :meth:`run_done` and :meth:`close`.

    Args:
        name: The benchmark function's name.
        configs: A description of each config (``"n=1024, dtype='fp16'"``), in sweep order.
        runs: Runs per config (the most a config gets).
        mode: One of :data:`MODES`.
        upper_bound: ``runs`` is only the most a config gets (a stopping rule ends configs
            when their mean is known well enough): the run count and ETA say "at most".
        stream: Where to write; by default ``sys.stdout`` at the time of each write.
        clock: A monotonic clock in seconds (for tests).
    """

    def __init__(
        self,
        name: str,
        configs: Sequence[str],
        runs: int,
        mode: str,
        stream: TextIO | None = None,
        clock: Any = time.monotonic,
        upper_bound: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode={mode!r}; valid: {', '.join(MODES)}")
        self.name = name
        self.configs = list(configs)
        self.runs = max(int(runs), 1)
        self.mode = mode
        self.upper_bound = upper_bound
        self._stream = stream
        self._clock = clock
        self._t0 = clock()
        self._last_draw = -1.0
        self._last_line = -1e9  # when the last config line was shown (lines mode)
        self._bar_width = 0  # characters of the bar on screen now (bar mode)
        self._config = -1  # the config of the last run
        self._config_runs = 0  # runs done in it
        self._finished = 0  # configs before the current one
        self._runs_done = 0  # runs done in all
        self._closed = False
        self._widget: Any = None
        self._stops: dict[str, int] = {}  # what stopped the configs (a stopping rule), counted

    # --- what the core calls -----------------------------------------------------------------

    def line(self, text: str) -> None:
        """A line the core logged."""
        m = CONFIG_LINE.match(text)
        if m is not None and m["why"]:
            why = m["why"].removeprefix("stopped by ")
            self._stops[why] = self._stops.get(why, 0) + 1
        if m is not None and self.mode != "debug":
            self._finished = max(self._finished, int(m["index"]))
            if self.mode == "lines":
                self._config_line(text, int(m["index"]))
            else:
                self._draw(force=True)
            return
        self._print(text)

    def _config_line(self, text: str, index: int) -> None:
        """A finished config in lines mode: the first, the last, and one every few seconds."""
        now = self._clock()
        done = index >= len(self.configs)
        if not _core.config_line_due(index - 1, len(self.configs), now, self._last_line):
            return
        self._last_line = now
        left = self._eta()
        self._print(text if done or left is None else f"{text}, ETA {left}")

    def run_done(self, config: int) -> None:
        """A run of config ``config`` (its index) finished."""
        if config != self._config:
            if self._config >= 0:
                self._finished = max(self._finished, config)
            self._config, self._config_runs = config, 0
        self._config_runs += 1
        self._runs_done += 1
        if self.mode == "debug":
            self._print(
                f"{PREFIX} {self.name}: run {self._config_runs}/{self.runs} of config "
                f"{config + 1}/{len(self.configs)}{self._params(config)} done, "
                f"{format_seconds(self.elapsed())} elapsed"
            )
        elif self.mode in ("bar", "widget"):
            self._draw(force=self._config_runs == 1)

    def close(self, failed: bool = False) -> None:
        """The profile ended (``failed``: it raised)."""
        if self._closed:
            return
        self._closed = True
        if self._runs_done == 0:  # it failed before the first run: the error says why
            self._clear()
            return
        if failed:
            text = (
                f"{PREFIX} {self.name}: stopped in config {self._config + 1}/{len(self.configs)}"
                f" after {self._runs_done} run(s), {format_seconds(self.elapsed())}"
            )
        else:
            text = (
                f"{PREFIX} {self.name}: {len(self.configs)} config(s), {self._runs_done} run(s) "
                f"in {format_seconds(self.elapsed())}"
            )
            if self._stops:
                text += " (stopped by " + ", ".join(f"{k}: {n}" for k, n in self._stops.items())
                text += ")"
        if self.mode == "bar":  # the bar gives way to one line that stays
            self._clear()
            self._write(text + "\n")
        elif self.mode == "widget" and self._widget is not None:
            bar, label = self._widget
            if not failed:
                bar.value = bar.max
            bar.bar_style = "danger" if failed else "success"
            label.value = text.removeprefix(PREFIX + " ")
        elif self.mode in ("lines", "debug"):
            self._print(text)

    # --- state ---------------------------------------------------------------------------------

    def elapsed(self) -> float:
        return max(self._clock() - self._t0, 0.0)

    def fraction(self) -> float:
        """How much of the sweep is done, from 0 to 1. A config the core finished early counts
        as whole."""
        total = len(self.configs) * self.runs
        if total == 0:
            return 1.0
        current = 0 if self._config < self._finished else min(self._config_runs, self.runs)
        return min((self._finished * self.runs + current) / total, 1.0)

    def _eta(self) -> str | None:
        f = self.fraction()
        if f <= 0 or f >= 1:
            return None
        left = format_seconds(self.elapsed() / f * (1 - f))
        return f"<= {left}" if self.upper_bound else left

    def _params(self, config: int) -> str:
        if 0 <= config < len(self.configs) and self.configs[config]:
            return f" ({self.configs[config]})"
        return ""

    def status(self) -> str:
        """The bar's text without the bar: config, runs, elapsed time and ETA."""
        c = max(self._config, 0)
        parts = [
            f"config {min(c + 1, len(self.configs))}/{len(self.configs)}{self._params(c)}",
            f"run {self._runs_done}/{'<=' if self.upper_bound else ''}"
            f"{len(self.configs) * self.runs}",
            format_seconds(self.elapsed()),
        ]
        eta = self._eta()
        if eta is not None:
            parts.append(f"ETA {eta}")
        return " | ".join(parts)

    # --- output -----------------------------------------------------------------------------------

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stdout

    def _write(self, text: str) -> None:
        out = self.stream
        if out is None:
            return
        out.write(text)
        out.flush()

    def _print(self, text: str) -> None:
        """A whole line; in bar mode above the bar, which is drawn again after it."""
        if self.mode == "bar" and self._bar_width:
            self._clear()
            self._write(text + "\n")
            self._draw(force=True)
        else:
            self._write(text + "\n")

    def _clear(self) -> None:
        if self.mode == "bar" and self._bar_width:
            self._write("\r" + " " * self._bar_width + "\r")
            self._bar_width = 0

    def _bar_text(self, width: int) -> str:
        f = self.fraction()
        head = f"{PREFIX} {self.name} "
        tail = f" {f * 100:3.0f}% | {self.status()}"
        cells = max(min(30, width - len(head) - len(tail) - 2), 10)
        encoding = (getattr(self.stream, "encoding", None) or "").lower()
        full, empty = ("█", "░") if "utf" in encoding else ("#", "-")
        filled = int(round(f * cells))
        text = f"{head}[{full * filled}{empty * (cells - filled)}]{tail}"
        return text[: max(width - 1, 20)]

    def _draw(self, force: bool = False) -> None:
        now = self._clock()
        if not force and now - self._last_draw < _REDRAW_S:
            return
        self._last_draw = now
        if self.mode == "bar":
            width = shutil.get_terminal_size((100, 24)).columns
            text = self._bar_text(width)
            pad = " " * max(self._bar_width - len(text), 0)
            self._write("\r" + text + pad)
            self._bar_width = len(text)
        elif self.mode == "widget":
            self._draw_widget()

    def _draw_widget(self) -> None:
        total = len(self.configs) * self.runs
        if self._widget is None:
            try:
                import ipywidgets
                from IPython.display import display
            except ImportError:  # went away: fall back to lines
                self.mode = "lines"
                return
            bar = ipywidgets.IntProgress(min=0, max=max(total, 1), description=self.name)
            label = ipywidgets.HTML()
            self._widget = (bar, label)
            display(ipywidgets.HBox([bar, label]))
        bar, label = self._widget
        bar.value = int(round(self.fraction() * total))
        label.value = self.status()


def make_display(
    name: str,
    configs: Sequence[str],
    runs: int,
    verbosity: VerbosityLevel | int,
    upper_bound: bool = False,
) -> ProgressDisplay | None:
    """The display for a profile at this verbosity, here; None for SILENT. ``upper_bound``:
    ``runs`` is a stopping rule's ``max_runs``."""
    mode = choose_mode(verbosity)
    if mode is None:
        return None
    return ProgressDisplay(name, configs, runs, mode, upper_bound=upper_bound)
