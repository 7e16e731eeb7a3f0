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
        # argparse formats help texts with %: the percent sign of the default is written %%.
        help="the smallest significant slowdown of a mean, in percent, that fails "
        f"--kprof-compare (default {_DEFAULT_FAIL_ON.replace('%', '%%')})",
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
    #: Saves and comparisons that could not be made: each fails the session, with its line.
    failures: int = 0
    #: The saved results under --kprof-compare, read when the session starts, by file stem.
    baselines: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return bool(self.kept) and (self.save is not None or self.compare is not None)


def _save_folder(text: str) -> Path:
    """The folder of --kprof-save, made and written to once now: a folder that cannot take the
    files ends the session before its tests run, not after."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise pytest.UsageError(f"--kprof-save={text!r} is a file; valid: a folder")
    probe = folder / f".kprof-save-check-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"kprof")
        probe.unlink()
    except OSError as e:
        raise pytest.UsageError(
            f"--kprof-save={text!r}: kprof cannot write there ({e.strerror or e}); valid: a "
            "folder this process can write to"
        ) from None
    return folder


def _baselines(text: str) -> tuple[Path, dict[str, Any]]:
    """The folder of --kprof-compare and every result saved in it, read now: a baseline that
    cannot be read ends the session before its tests run."""
    folder = Path(text)
    if not folder.is_dir():
        raise pytest.UsageError(f"--kprof-compare={text!r}: no such folder of saved results")
    from kprof.errors import KprofError
    from kprof.results import load

    baselines = {}
    for path in sorted(folder.glob("*.json")):
        try:
            baselines[path.stem] = load(path)
        except (KprofError, OSError) as e:
            raise pytest.UsageError(
                f"--kprof-compare={text!r}: {path.name} cannot be read as kprof results: {e}"
            ) from None
    return folder, baselines


def pytest_configure(config: pytest.Config) -> None:
    save = config.getoption("--kprof-save", default=None)
    compare = config.getoption("--kprof-compare", default=None)
    fail_on = _fail_on(config.getoption("--kprof-fail-on", default=_DEFAULT_FAIL_ON))
    folder, baselines = _baselines(compare) if compare is not None else (None, {})
    # An attribute rather than config.stash: pytest before 7 has no stash, and the plugin loads
    # into every session of a Python where kprof is installed.
    config._kprof_session = _Session(  # type: ignore[attr-defined]
        _save_folder(save) if save else None, folder, fail_on, baselines=baselines
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
    if kept.stem not in session.baselines:
        session.lines.append(f"{kept.nodeid}: no saved result to compare with ({base})")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table says what differs
        df = compare(session.baselines[kept.stem], kept.results, threshold=session.fail_on)
    slower = int((df["Verdict"] == "slower").sum())
    session.slowdowns += slower
    verdict = f"{slower} row(s) slower by {session.fail_on:g}% or more" if slower else "no slowdown"
    session.lines.append(f"{kept.nodeid}: {verdict} against {base}")
    if slower:
        session.lines.extend("    " + line for line in df.attrs["table"].splitlines())


def _failed(state: _Session, kept: _Kept, what: str, error: Exception) -> None:
    """A save or comparison that could not be made: one line, and the session fails."""
    state.failures += 1
    state.lines.append(f"{kept.nodeid}: could not {what}: {type(error).__name__}: {error}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state(session.config)
    if state is None or not state.active:
        return
    from kprof.errors import KprofError

    # Whatever a comparison or a save meets (an incomparable result, a full disk) is said on one
    # line of the summary: an exception here would be pytest's internal error, after every test.
    for kept in state.kept:
        if state.compare is not None:
            try:
                _compare(state, kept)
            except (KprofError, OSError, ValueError) as e:
                _failed(state, kept, "compare", e)
        if state.save is not None:
            try:
                path = kept.results.save(state.save / f"{kept.stem}.json", overwrite=True)
            except (KprofError, OSError) as e:
                _failed(state, kept, "save", e)
            else:
                state.lines.append(f"{kept.nodeid}: saved {path}")
    if (state.slowdowns or state.failures) and session.exitstatus == pytest.ExitCode.OK:
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
    if state.failures:
        terminalreporter.write_line(
            f"kprof: {state.failures} save(s) or comparison(s) could not be made: the session "
            "fails",
            red=True,
        )
