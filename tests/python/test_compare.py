"""``kprof.compare`` and ``kprof compare`` / ``kprof report`` on the H200 recordings in
tests/data.

Two of the recordings (``h200-python-demo`` and ``h200-python-normalized``) are separate
profiles of the same demo kernels and configs; the second was saved normalized, so it is
aggregated again here without normalization (the core's own aggregation of its raw records,
values unchanged) to compare two real measurements. The "slower" file is DERIVED test data:
the demo recording's memory/add durations multiplied by 1.10 and aggregated by the core; it is
written to a temporary folder and says so in its session's host field.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import kprof
import pandas as pd
import pytest
from kprof import _core
from kprof.errors import FormatError, OptionError

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
NORMALIZED = DATA / "h200-python-normalized-2026-11-30.json"
PER_KERNEL = DATA / "h200-python-per-kernel-2026-11-30.json"
MATMUL = DATA / "h200-torch-matmul-sweep-2026-11-30.json"
CLI_SOURCE = Path(__file__).resolve().parents[2] / "python" / "kprof" / "cli.py"

COLUMNS = [
    "Annotation",
    "Metric",
    "n",
    "dtype",
    "BaseMean",
    "NewMean",
    "ChangePct",
    "CIOverlap",
    "PValue",
    "Verdict",
    "BaseRuns",
    "NewRuns",
    "Unit",
    "U",
    "Test",
]


def run_cli(*args: str, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "kprof.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


def reaggregate(path: Path, scale: dict[str, float] | None = None, **session_changes: str):
    """The recording's raw records aggregated again by the core, without normalization and
    without derived metrics; records of the annotations in ``scale`` multiplied, session
    fields replaced by ``session_changes``."""
    core = _core.Results.read_json(str(path))
    records = core.records_columns()
    for annotation, factor in (scale or {}).items():
        records["value"] = [
            v * factor if a == annotation else v
            for a, v in zip(records["annotation"], records["value"], strict=True)
        ]
    session = dict(core.session, **session_changes)
    options = _core.Options()
    options.combine_kernel_metrics = "sum"  # the recordings' "memory" holds two kernels
    return kprof.ProfileResults(
        _core._aggregate(session, core.sweep_names, core.sweep_points, records, options)
    )


def runs_of(raw: pd.DataFrame, row: pd.Series):
    """The per-run values behind a compared row (configs here differ in n only)."""
    sel = (
        (raw["Annotation"] == row["Annotation"])
        & (raw["Metric"] == row["Metric"])
        & (raw["n"] == row["n"])
    )
    return raw[sel]["Value"].to_numpy()


@pytest.fixture(scope="module")
def slower_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("derived") / "derived-demo-memory-add-x1.10.json"
    derived = reaggregate(
        DEMO,
        scale={"memory/add": 1.10},
        host="derived test data (h200-python-demo-2026-11-30.json, memory/add x1.10)",
    )
    derived.save(path)
    return path


# --- the DataFrame ------------------------------------------------------------------------------


def test_a_recording_against_itself_is_the_same_everywhere():
    df = kprof.compare(DEMO, DEMO)
    assert list(df.columns) == COLUMNS
    assert len(df) == 16
    assert set(df["Verdict"]) == {"same"}
    assert (df["PValue"] == 1.0).all()
    assert (df["ChangePct"] == 0.0).all()
    assert df["CIOverlap"].all()
    assert set(df["Test"]) == {"exact"}
    assert (df["BaseRuns"] == 5).all() and (df["NewRuns"] == 5).all()
    assert df.attrs["warnings"] == []
    assert df.attrs["threshold"] == 2.0 and df.attrs["alpha"] == 0.05
    assert "16 compared: 0 slower" in df.attrs["table"]


def test_means_and_units_are_the_recordings():
    df = kprof.compare(DEMO, DEMO)
    rows = kprof.load(DEMO).to_dataframe()
    merged = df.merge(rows, on=["Annotation", "Metric", "n", "dtype"])
    assert len(merged) == 16
    assert (merged["BaseMean"] == merged["AvgValue"]).all()
    assert (merged["Unit_x"] == merged["Unit_y"]).all()


def test_paths_and_profile_results_give_the_same_frame():
    by_path = kprof.compare(str(DEMO), DEMO)
    by_results = kprof.compare(kprof.load(DEMO), kprof.load(DEMO))
    pd.testing.assert_frame_equal(by_path, by_results)


def test_twenty_runs_use_the_normal_approximation():
    df = kprof.compare(MATMUL, MATMUL)
    assert set(df["Test"]) == {"normal"}
    assert set(df["BaseRuns"]) == {20}
    assert set(df["Verdict"]) == {"same"}
    assert (df["PValue"] == 1.0).all()


def test_per_kernel_rows_carry_the_kernel_index():
    df = kprof.compare(PER_KERNEL, PER_KERNEL)
    assert list(df["KernelIndex"]) == [0, 1]
    assert list(df.columns[:4]) == ["Annotation", "Metric", "n", "KernelIndex"]


def test_two_real_profiles_of_the_same_kernels():
    """Two H200 profiles of the demo kernels, 5 runs each: nothing changed between them, and
    every p-value is scipy's (exact permutation distribution; 252 splits of 5 + 5 runs)."""
    stats = pytest.importorskip("scipy.stats")
    base, new = kprof.load(DEMO), reaggregate(NORMALIZED)
    df = kprof.compare(base, new)
    compared = df[~df["Verdict"].str.startswith("only in")]
    assert len(compared) == 8
    assert set(compared["Verdict"]) == {"same"}
    assert set(df[df["Verdict"] == "only in base"]["Metric"]) == {"throughput"}  # not derived
    raw_b, raw_n = base.raw_dataframe(), new.raw_dataframe()
    for _, row in compared.iterrows():
        x, y = runs_of(raw_b, row), runs_of(raw_n, row)
        ref = stats.mannwhitneyu(x, y, method=stats.PermutationMethod())
        assert row["U"] == ref.statistic
        assert row["PValue"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert row["ChangePct"] == pytest.approx(100 * (y.mean() - x.mean()) / x.mean())


def test_derived_slower_file_is_slower_where_the_runs_separate(slower_file):
    df = kprof.compare(DEMO, slower_file, metric="gpu__time_duration.sum")
    add = df[df["Annotation"] == "memory/add"].set_index("n")
    assert add["ChangePct"].to_numpy() == pytest.approx([10.0, 10.0])
    # n = 2^22: the runs no longer overlap, p = 2 / C(10, 5).
    assert add.loc[4194304, "Verdict"] == "slower"
    assert add.loc[4194304, "PValue"] == pytest.approx(2 / 252)
    assert not add.loc[4194304, "CIOverlap"]
    # n = 2^20: one recorded run is an outlier (6976 ns against ~5.7 us); shifted by 10 % the
    # runs still interleave and the test cannot tell them apart.
    assert add.loc[1048576, "Verdict"] == "same"
    assert add.loc[1048576, "PValue"] == pytest.approx(0.0952380952, rel=1e-9)
    others = df[df["Annotation"] != "memory/add"]
    assert set(others["Verdict"]) == {"same"}


def test_threshold_and_alpha(slower_file):
    df = kprof.compare(DEMO, slower_file, threshold=15, metric="gpu__time_duration.sum")
    assert set(df["Verdict"]) == {"same"}
    df = kprof.compare(DEMO, slower_file, alpha=0.005, metric="gpu__time_duration.sum")
    assert set(df["Verdict"]) == {"not enough runs"}  # 2 / C(10, 5) > 0.005


def test_normalized_against_plain_compares_nothing_and_raises():
    # The durations are ratios on one side and the throughput is the other's only: nothing is
    # compared, which must not pass for "nothing got slower" (test_compare_nothing.py).
    with pytest.raises(FormatError, match="not normalized in BASE, normalized against"):
        kprof.compare(DEMO, NORMALIZED)


def test_different_parameters_match_nothing_and_raise():
    with pytest.raises(FormatError, match="no row of BASE has a counterpart in NEW"):
        kprof.compare(DEMO, PER_KERNEL)


def test_session_differences_warn():
    changed = reaggregate(DEMO, cache_control="none", host="derived test data")
    with pytest.warns(kprof.CompareWarning, match="different cache control: 'all' in BASE"):
        kprof.compare(DEMO, changed)


def test_bad_options_raise_option_error():
    with pytest.raises(OptionError, match="threshold"):
        kprof.compare(DEMO, DEMO, threshold=-1)
    with pytest.raises(OptionError, match="alpha"):
        kprof.compare(DEMO, DEMO, alpha=1.0)
    with pytest.raises(OptionError, match="'gpu__time_duration.sum' or 'throughput'"):
        kprof.compare(DEMO, DEMO, metric="dram__bytes.sum")
    with pytest.raises(TypeError, match="kprof.compare: base must be a ProfileResults or the path"):
        kprof.compare(42, DEMO)
    with pytest.raises(kprof.errors.FormatError):
        kprof.compare(DATA / "missing.json", DEMO)


def test_metric_filter_takes_a_list(slower_file):
    df = kprof.compare(DEMO, DEMO, metric=["throughput"])
    assert set(df["Metric"]) == {"throughput"}
    only_in_base = kprof.compare(DEMO, slower_file).query("Verdict == 'only in base'")
    assert math.isnan(only_in_base["PValue"].iloc[0])


# --- the command line ---------------------------------------------------------------------------


def test_cli_compare_same_exits_0():
    result = run_cli("compare", str(DEMO), str(DEMO))
    assert result.returncode == 0, result.stderr
    assert "16 compared: 0 slower, 0 faster" in result.stdout


def test_cli_compare_slower_exits_1(slower_file):
    result = run_cli("compare", str(DEMO), str(slower_file))
    assert result.returncode == 1, result.stdout + result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("memory/add    4194304"))
    assert "+10.00%" in line and line.split()[-2] == "slower"


def test_cli_compare_usage_errors_exit_2():
    result = run_cli("compare", str(DEMO))
    assert result.returncode == 2
    assert "missing argument NEW" in result.stderr
    result = run_cli("compare", str(DEMO), str(DEMO), "--alpha", "2")
    assert result.returncode == 2
    assert "--alpha=2 is not valid" in result.stderr


def test_cli_report_prints_the_session_and_the_table():
    result = run_cli("report", str(MATMUL))
    assert result.returncode == 0, result.stderr
    assert "GPU            NVIDIA H200 (device 0)" in result.stdout
    assert "runs           20 per config" in result.stdout
    assert kprof.load(MATMUL).table() in result.stdout


@pytest.fixture
def stand_in(tmp_path):
    """A package `kprof` with the real cli.py and _native.py, a _core that fails if reached, and
    optionally a report.py."""
    package = tmp_path / "kprof"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(CLI_SOURCE, package / "cli.py")
    shutil.copy(CLI_SOURCE.with_name("_native.py"), package / "_native.py")
    (package / "_core.py").write_text(
        "import os\n"
        "def cli_main(argv):\n    print('C++', [os.fsdecode(a) for a in argv[1:]])\n    return 0\n"
        # The command line's table of report options, as the real extension gives it.
        "def command_options(command):\n"
        "    return [('--explain', '', '', False), ('--plot', 'PATH', '', True),\n"
        "            ('--html', 'PATH', '', True)]\n"
    )

    def run(report_source: str | None, *args: str):
        if report_source is not None:
            (package / "report.py").write_text(textwrap.dedent(report_source))
        return run_cli(*args, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})

    return run


def test_report_with_plot_or_html_goes_to_kprof_report(stand_in):
    report = """
        def main(argv):
            print("report.main", argv)
            return 0
    """
    result = stand_in(report, "report", "r.json", "--plot", "out.png")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "report.main ['r.json', '--plot', 'out.png']\n"
    result = stand_in(None, "report", "r.json", "--html=out.html")
    assert result.stdout == "report.main ['r.json', '--html=out.html']\n"
    # Without those options the C++ command runs.
    result = stand_in(None, "report", "r.json")
    assert result.stdout == "C++ ['report', 'r.json']\n"


def test_report_plot_without_kprof_report_is_one_line(stand_in):
    result = stand_in(None, "report", "r.json", "--plot", "out.png")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "kprof report: --plot/--html are not available in this installation of kprof "
        "(no kprof.report module)\n"
    )
