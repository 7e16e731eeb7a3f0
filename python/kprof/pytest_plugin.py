# SPDX-License-Identifier: Apache-2.0
"""kprof in a pytest suite: keep each test's profile, save it, and fail on a slowdown.

Installed with kprof (entry point ``pytest11``), the plugin does nothing until a test uses its
fixture or one of its options is given, and it imports nothing of kprof before then::

    def test_matmul(kprof_benchmark):
        @kprof.analyze.kernel(configs=[1024, 4096], runs=10)
        def matmul(n):
            ...

        results = kprof_benchmark(matmul)  # profiles and keeps the results for this test

``kprof_benchmark(fn)`` calls a function decorated with :func:`kprof.analyze.kernel` (or any
function that returns :class:`kprof.ProfileResults`) and keeps what it returns;
``kprof_benchmark.keep(results)`` keeps results made otherwise (a loaded file, say). A test may
keep several, each under a name of its own (``name=``).

- ``pytest --kprof-save DIR`` writes each kept result to ``DIR/<test>[-<name>].json``.
- ``pytest --kprof-compare DIR`` compares each kept result with the file of the same name under
  DIR through :func:`kprof.compare` (Mann-Whitney U test per row) and fails the session when a
  row is ``slower``: significant at ``alpha`` 0.05 and slower by at least ``--kprof-fail-on``
  percent (default 5), as pytest-benchmark's ``--benchmark-compare-fail`` does. A result with
  no file under DIR is reported, not failed.

Both options may be given together (compare with one run, save the new one elsewhere). The
session's summary lists every comparison; the exit status of a session with a slowdown is 1.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["KprofBenchmark"]

_DEFAULT_FAIL_ON = "5%"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kprof", "kprof: GPU profiles kept and compared")
    group.addoption(
        "--kprof-save",
        metavar="DIR",
        help="save the kprof results each test keeps under DIR, one JSON file per result",
    )
    group.addoption(
        "--kprof-compare",
        metavar="DIR",
        help="compare the kprof results each test keeps with the files saved under DIR; a "
        "significant slowdown fails the session",
    )
    group.addoption(
        "--kprof-fail-on",
        metavar="PCT",
        default=_DEFAULT_FAIL_ON,
        help="the smallest significant slowdown of a mean, in percent, that fails "
        f"--kprof-compare (default {_DEFAULT_FAIL_ON})",
    )


def _fail_on(text: str) -> float:
    """``"5%"`` or ``"5"`` -> 5.0; anything else is a usage error naming the option."""
    value = text.strip().removesuffix("%")
    try:
        pct = float(value)
    except ValueError:
        pct = float("nan")
    if not pct >= 0:
        raise pytest.UsageError(
            f"--kprof-fail-on={text!r} is not valid; valid: a percentage >= 0, such as 5%"
        )
    return pct


def file_stem(nodeid: str, name: str | None = None) -> str:
    """The file name (without ``.json``) of a result a test kept: its node id made safe for
    every file system, e.g. ``tests_test_mm.py_test_matmul_1024``."""
    stem = _UNSAFE.sub("_", nodeid).strip("._") or "test"
    if name:
        stem += "-" + (_UNSAFE.sub("_", name).strip("._") or "result")
    return stem


@dataclass
class _Kept:
    stem: str
    nodeid: str
    results: Any  # kprof.ProfileResults


@dataclass
class _Session:
    save: Path | None
    compare: Path | None
    fail_on: float
    kept: list[_Kept] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    slowdowns: int = 0

    @property
    def active(self) -> bool:
        return bool(self.kept) and (self.save is not None or self.compare is not None)


def pytest_configure(config: pytest.Config) -> None:
    save = config.getoption("--kprof-save", default=None)
    compare = config.getoption("--kprof-compare", default=None)
    fail_on = _fail_on(config.getoption("--kprof-fail-on", default=_DEFAULT_FAIL_ON))
    if compare is not None and not Path(compare).is_dir():
        raise pytest.UsageError(f"--kprof-compare={compare!r}: no such folder of saved results")
    # An attribute rather than config.stash: pytest before 7 has no stash, and the plugin loads
    # into every session of a Python where kprof is installed.
    config._kprof_session = _Session(  # type: ignore[attr-defined]
        Path(save) if save else None, Path(compare) if compare else None, fail_on
    )


def _state(config: pytest.Config) -> _Session | None:
    return getattr(config, "_kprof_session", None)


class KprofBenchmark:
    """The ``kprof_benchmark`` fixture: keeps a test's kprof results for ``--kprof-save`` and
    ``--kprof-compare``."""

    def __init__(self, nodeid: str, session: _Session) -> None:
        self._nodeid = nodeid
        self._session = session

    def __call__(self, fn: Any, *args: Any, name: str | None = None, **kwargs: Any) -> Any:
        """Calls ``fn(*args, **kwargs)``, a function decorated with
        :func:`kprof.analyze.kernel`, and keeps and returns the results it gives."""
        return self.keep(fn(*args, **kwargs), name=name)

    def keep(self, results: Any, name: str | None = None) -> Any:
        """Keeps ``results`` (a :class:`kprof.ProfileResults`) under this test, and ``name``
        when the test keeps several; returns them."""
        from kprof.results import ProfileResults

        if not isinstance(results, ProfileResults):
            raise TypeError(
                "kprof_benchmark keeps kprof.ProfileResults (what a function decorated with "
                f"kprof.analyze.kernel returns), not {type(results).__name__}"
            )
        stem = file_stem(self._nodeid, name)
        if any(k.stem == stem for k in self._session.kept):
            raise ValueError(
                f"this test already kept results named {name!r}: give each its own name="
            )
        self._session.kept.append(_Kept(stem, self._nodeid, results))
        return results


@pytest.fixture
def kprof_benchmark(request: pytest.FixtureRequest) -> KprofBenchmark:
    """Keeps the kprof results of this test: ``kprof_benchmark(fn)`` calls a function
    decorated with ``kprof.analyze.kernel`` and keeps what it returns; ``.keep(results)`` keeps
    results made otherwise. See ``pytest --kprof-save`` and ``--kprof-compare``."""
    state = _state(request.config)
    assert state is not None  # pytest_configure made it
    return KprofBenchmark(request.node.nodeid, state)


def _compare(session: _Session, kept: _Kept) -> None:
    import warnings

    from kprof.comparison import compare

    base = session.compare / f"{kept.stem}.json"
    if not base.is_file():
        session.lines.append(f"{kept.nodeid}: no saved result to compare with ({base})")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table says what differs
        df = compare(base, kept.results, threshold=session.fail_on)
    slower = int((df["Verdict"] == "slower").sum())
    session.slowdowns += slower
    verdict = f"{slower} row(s) slower by {session.fail_on:g}% or more" if slower else "no slowdown"
    session.lines.append(f"{kept.nodeid}: {verdict} against {base}")
    if slower:
        session.lines.extend("    " + line for line in df.attrs["table"].splitlines())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state(session.config)
    if state is None or not state.active:
        return
    for kept in state.kept:
        if state.compare is not None:
            _compare(state, kept)
        if state.save is not None:
            path = kept.results.save(os.fspath(state.save / f"{kept.stem}.json"), overwrite=True)
            state.lines.append(f"{kept.nodeid}: saved {path}")
    if state.slowdowns and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = _state(config)
    if state is None or not state.lines:
        return
    terminalreporter.section("kprof")
    for line in state.lines:
        terminalreporter.write_line(line)
    if state.slowdowns:
        terminalreporter.write_line(
            f"kprof: {state.slowdowns} row(s) slower than the saved results by "
            f"{state.fail_on:g}% or more (--kprof-fail-on): the session fails",
            red=True,
        )
