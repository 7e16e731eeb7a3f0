"""The pytest plugin on an H200 recording, in pytest sessions of their own: results kept per
test, saved, compared with a saved run, and a planted slowdown failing the session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import planted
import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDING = DATA / "h200-python-demo-2026-11-30.json"

SUITE = """
import os
import kprof

def test_demo(kprof_benchmark):
    kprof_benchmark.keep(kprof.load(os.environ["KPROF_RECORDING"]))

def test_two(kprof_benchmark):
    results = kprof_benchmark(lambda: kprof.load(os.environ["KPROF_RECORDING"]), name="again")
    assert results.to_dataframe().shape[0] > 0

def test_without_kprof():
    pass
"""


def run_suite(tmp_path: Path, recording: Path, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_suite.py").write_text(SUITE)
    env = {**os.environ, "KPROF_RECORDING": str(recording)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark"]
        + ["test_suite.py", *options],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def slower_copy(tmp_path: Path, factor: float) -> Path:
    """The recording with every duration `factor` times longer, statistics included."""
    return planted.slower_copy(RECORDING, tmp_path, factor)


def test_the_plugin_is_inert_unless_used(tmp_path):
    done = run_suite(tmp_path, RECORDING)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert "kprof" not in done.stdout.replace("kprof_benchmark", "")
    # Python's own byte code aside (written unless PYTHONDONTWRITEBYTECODE is set), nothing new.
    assert [p.name for p in tmp_path.iterdir() if p.name != "__pycache__"] == ["test_suite.py"]


def test_save_keeps_one_file_per_result_and_compare_passes_on_the_same_run(tmp_path):
    saved = tmp_path / "saved"
    done = run_suite(tmp_path, RECORDING, "--kprof-save", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    files = sorted(p.name for p in saved.iterdir())
    assert files == ["test_suite.py_test_demo.json", "test_suite.py_test_two-again.json"]
    done = run_suite(tmp_path, RECORDING, "--kprof-compare", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_suite.py::test_demo: no slowdown against" in done.stdout


def test_a_planted_slowdown_fails_the_session_with_the_rows_named(tmp_path):
    saved = tmp_path / "saved"
    assert run_suite(tmp_path, RECORDING, "--kprof-save", str(saved)).returncode == 0
    done = run_suite(tmp_path, slower_copy(tmp_path, 1.2), "--kprof-compare", str(saved))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 passed" in done.stdout  # the tests passed; the comparison failed the session
    assert "row(s) slower by 5% or more" in done.stdout
    assert "slower" in done.stdout and "+20.00%" in done.stdout
    # Below the threshold the same slowdown passes.
    done = run_suite(
        tmp_path,
        slower_copy(tmp_path, 1.2),
        "--kprof-compare",
        str(saved),
        "--kprof-fail-on",
        "25%",
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_result_without_a_saved_file_is_reported_not_failed(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_suite(tmp_path, RECORDING, "--kprof-compare", str(empty))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no saved result to compare with" in done.stdout


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--kprof-fail-on", "lots"], "--kprof-fail-on='lots' is not valid"),
        (["--kprof-compare", "missing"], "no such folder of saved results"),
    ],
)
def test_bad_options_are_usage_errors(tmp_path, options, message):
    done = run_suite(tmp_path, RECORDING, *options)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert message in done.stdout + done.stderr


def test_keep_takes_profile_results_only():
    from kprof.pytest_plugin import KprofBenchmark, _Session

    bench = KprofBenchmark("t.py::test", _Session(None, None, 5.0))
    with pytest.raises(TypeError, match="keeps kprof.ProfileResults"):
        bench.keep({"not": "results"})


def test_pytest_help_works_where_kprof_is_installed(tmp_path):
    """The plugin loads into every pytest run of this Python: its help must not break it."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--kprof-fail-on=PCT" in done.stdout and "(default 5%)" in done.stdout


def _one_usage_line(done: subprocess.CompletedProcess, expected: str) -> None:
    output = done.stdout + done.stderr
    assert done.returncode == 4, output  # pytest's usage error, before any test ran
    assert expected in output, output
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    assert "passed" not in done.stdout, output


def test_a_save_folder_that_cannot_be_written_ends_the_session_at_once(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    done = run_suite(tmp_path, RECORDING, "--kprof-save", str(a_file))
    _one_usage_line(done, f"--kprof-save='{a_file}' is a file; valid: a folder")
    if Path("/proc/self").exists():  # a folder in which no one can make one
        done = run_suite(tmp_path, RECORDING, "--kprof-save", "/proc/kprof-nope")
        _one_usage_line(done, "--kprof-save='/proc/kprof-nope': kprof cannot write there")


def test_a_baseline_that_cannot_be_read_ends_the_session_at_once(tmp_path):
    saved = tmp_path / "saved"
    saved.mkdir()
    text = RECORDING.read_text()
    (saved / "test_suite.py_test_demo.json").write_text(text[: len(text) // 2])
    done = run_suite(tmp_path, RECORDING, "--kprof-compare", str(saved))
    _one_usage_line(done, "test_suite.py_test_demo.json cannot be read as kprof results")


def _limit_file_size() -> None:
    """In the child: files stop growing at 8 KiB (EFBIG, as a full disk stops them with
    ENOSPC); the signal that would end the process is ignored so that the write fails."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))


def test_a_save_that_fails_at_the_end_is_one_line_and_fails_the_session(tmp_path):
    saved = tmp_path / "saved"
    (tmp_path / "test_suite.py").write_text(SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark"]
        + ["test_suite.py", "--kprof-save", str(saved)],
        cwd=tmp_path,
        env={**os.environ, "KPROF_RECORDING": str(RECORDING)},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit_file_size,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "3 passed" in done.stdout
    assert "test_suite.py::test_demo: could not save:" in done.stdout, output
    assert str(saved / "test_suite.py_test_demo.json") in done.stdout, output
    assert "save(s) or comparison(s) could not be made: the session fails" in done.stdout
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
