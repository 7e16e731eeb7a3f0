"""What a failed or interrupted call keeps: partial_results, saved under the prefix the user
gave, and one line that says so (kprof._partial on a real H200 recording; the GPU sweep
interrupted for real is in test_gpu_faults.py)."""

from __future__ import annotations

import kprof
from conftest import DATA
from kprof import errors
from kprof._partial import keep
from kprof.collectors import CollectorCalls
from kprof.configs import bind

DEMO = DATA / "h200-python-demo-2026-11-30.json"


def keep_of(err, tmp_path, capsys, **options):
    """Runs keep() for a decorated function with `options`; returns the lines it printed."""

    @kprof.analyze.kernel(configs=[1], **options)
    def bench(n):
        pass

    profiler = bench._kprof_profiler
    bound = bind(
        profiler.params,
        args=(),
        kwargs={},
        call_configs=None,
        decorator_configs=profiler.decorator_configs,
    )
    lines = []
    keep(
        err,
        bound,
        CollectorCalls([], bound.derive_args),
        profiler.settings,
        "bench-0",
        lines.append,
    )
    return lines


def interrupt_with(partial):
    err = KeyboardInterrupt()
    err.partial_results = partial
    return err


def test_the_core_interrupt_is_a_keyboard_interrupt_with_partial_results():
    saved = kprof.load(DEMO)
    err = errors._from_core("InterruptError", "interrupted (Ctrl-C)", {}, saved.core)
    assert type(err) is KeyboardInterrupt
    assert type(err.partial_results) is kprof.ProfileResults
    assert err.partial_results == saved
    assert "Ctrl-C" in str(err)


def test_an_interrupt_saves_under_the_prefix_given_and_says_where(tmp_path, capsys):
    saved = kprof.load(DEMO)
    prefix = tmp_path / "out" / "run-"
    lines = keep_of(interrupt_with(saved), tmp_path, capsys, output_prefix=str(prefix))
    path = tmp_path / "out" / "run-partial-bench-0.json"
    assert kprof.load(path) == saved
    records = saved.records_dataframe()
    runs = len(records[[*saved.parameters, "Run"]].drop_duplicates())
    configs = len(records[saved.parameters].drop_duplicates())
    assert lines == [
        f"bench-0: interrupted; {runs} runs of {configs} configs measured before are kept in "
        f"partial_results and saved to {path}"
    ]


def test_an_interrupt_without_a_prefix_saves_nothing_but_still_says_what_was_kept(tmp_path, capsys):
    lines = keep_of(interrupt_with(kprof.load(DEMO)), tmp_path, capsys)
    assert len(lines) == 1 and lines[0].startswith("bench-0: interrupted; ")
    assert "saved" not in lines[0]


def test_with_output_csv_the_csv_files_are_saved_too(tmp_path, capsys):
    err = errors.CudaError("an illegal memory access", partial_results=kprof.load(DEMO))
    keep_of(err, tmp_path, capsys, output_prefix=str(tmp_path / "p-"), output_csv=True)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "p-partial-bench-0.json" in names
    assert "p-processed_data-partial-bench-0.csv" in names
    assert "p-profiled_data-partial-bench-0.csv" in names


def test_an_error_without_a_prefix_prints_nothing_and_one_with_it_names_the_error(tmp_path, capsys):
    err = errors.MeasurementError("failed late", partial_results=kprof.load(DEMO))
    assert keep_of(err, tmp_path, capsys) == []
    lines = keep_of(err, tmp_path, capsys, output_prefix=str(tmp_path / "x-"))
    assert len(lines) == 1 and lines[0].startswith("bench-0: MeasurementError; ")


def test_a_prefix_that_cannot_be_written_is_said_without_hiding_the_error(tmp_path, capsys):
    prefix = tmp_path / "x-"
    err = interrupt_with(kprof.load(DEMO))
    lines = keep_of(err, tmp_path, capsys, output_prefix=str(prefix))
    (tmp_path / "x-partial-bench-0.json").unlink()
    (tmp_path / "x-partial-bench-0.json").mkdir()  # a folder where the file goes
    lines = keep_of(err, tmp_path, capsys, output_prefix=str(prefix))
    assert lines[0].startswith("the partial results could not be saved: ")
    assert lines[1].startswith("bench-0: interrupted; ") and "saved" not in lines[1]


def test_no_partial_results_keeps_nothing(tmp_path, capsys):
    assert keep_of(KeyboardInterrupt(), tmp_path, capsys, output_prefix=str(tmp_path / "y-")) == []
    assert list(tmp_path.iterdir()) == []
