"""Results of several ranks or GPUs as one: kprof.merge, kprof.gather's channels, Rank and
Device in every table, the imbalance table, per-rank file names and analyze.kernel's devices
option checked before any GPU work (no GPU needed)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import kprof
import pytest
from conftest import SYNTHETIC_SESSION, duration_records
from kprof import _core
from kprof.errors import FormatError, OptionError


def rank_results(rank: int, scale: float, device: int | None = None) -> kprof.ProfileResults:
    """One rank's durations over n = 1, 2: three runs of scale * n (+ run) ns."""
    session = dict(
        SYNTHETIC_SESSION,
        runs=3,
        rank=rank,
        world_size=4,
        launcher="torchrun",
        device=rank if device is None else device,
        host="node-a" if rank < 2 else "node-b",
    )
    records = duration_records(
        {(c, "gemm"): [scale * n + run for run in range(3)] for c, n in enumerate((1, 2))}
    )
    o = _core.Options()
    o.runs = 3
    core = _core._aggregate(session, ["n"], [[1], [2]], records, o)
    return kprof.ProfileResults(core)


def test_every_row_keeps_its_rank_host_and_device():
    merged = kprof.merge([rank_results(0, 100), rank_results(2, 120)])
    df = merged.to_dataframe()
    assert list(df["Rank"]) == [0, 0, 2, 2]
    assert list(df["Device"]) == [0, 0, 2, 2]
    assert list(df["Host"]) == ["node-a", "node-a", "node-b", "node-b"]
    assert list(df["n"]) == [1, 2, 1, 2]
    assert list(df["AvgValue"]) == [101.0, 201.0, 121.0, 241.0]  # statistics per rank
    assert merged.ranks == [0, 2]
    assert [p["first_config"] for p in merged.parts] == [0, 2]
    for frame in (merged.raw_dataframe(), merged.records_dataframe(), merged.runs_dataframe()):
        assert "Rank" in frame.columns and "Device" in frame.columns
    assert set(merged.raw_dataframe()["Rank"]) == {0, 2}


def test_the_imbalance_names_the_slowest_and_fastest_rank():
    merged = kprof.merge([rank_results(r, 100 + 10 * r) for r in range(3)])
    m = merged.imbalance()
    assert list(m["n"]) == [1, 2]
    assert list(m["SlowestRank"]) == [2, 2]
    assert list(m["FastestRank"]) == [0, 0]
    assert m["Ratio"].iloc[0] == pytest.approx(121 / 101)
    assert list(m["Ranks"]) == [3, 3]
    assert rank_results(0, 100).imbalance().empty


def test_merged_results_save_load_and_merge_from_paths(tmp_path):
    a, b = rank_results(0, 100), rank_results(1, 130)
    pa, pb = a.save(tmp_path / "r0.json"), b.save(tmp_path / "r1.parquet")
    merged = kprof.merge([pa, pb])
    assert merged == kprof.merge([a, b])
    back = kprof.load(merged.save(tmp_path / "all.json"))
    assert back == merged
    assert list(back.to_dataframe()["Rank"]) == [0, 0, 1, 1]
    # CSV sets of merged results read back with each line's rank.
    merged.write_csv(str(tmp_path / "csv_"), "t")
    assert (tmp_path / "csv_parts-t.csv").exists()
    assert _core.Results.read_csv(str(tmp_path / "csv_"), "t") == merged.core


def test_merge_keeps_the_config_objects_and_refuses_other_sweeps(synthetic):
    class Shape:
        def __repr__(self) -> str:
            return "Shape()"

    shape = Shape()
    a = kprof.ProfileResults(rank_results(0, 100).core, ["n"], [(shape,), (2,)])
    merged = kprof.merge([a, rank_results(1, 100)])
    assert merged.to_dataframe()["n"].iloc[0] is shape
    other = kprof.ProfileResults(
        synthetic(["m"], [[1]], duration_records({(0, "gemm"): [1.0, 2.0, 3.0]}))
    )
    with pytest.raises(FormatError, match=r"parameters \[n\] and \[m\]"):
        kprof.merge([a, other])
    with pytest.raises(FormatError, match="no results"):
        kprof.merge([])
    with pytest.raises(TypeError, match="kprof.merge: each of parts must be ProfileResults"):
        kprof.merge([42])


def test_a_process_alone_gathers_its_own_results(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"):
        monkeypatch.delenv(name, raising=False)
    r = rank_results(0, 100)
    assert kprof.gather(r) is r


def test_several_ranks_without_a_channel_need_a_folder(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(OptionError, match="folder"):
        kprof.gather(rank_results(1, 100))


GATHER_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    from test_merge import rank_results
    import kprof
    rank = kprof.rank_info()["rank"]
    merged = kprof.gather(rank_results(rank, 100 + 10 * rank), folder={folder!r}, timeout_s=60)
    if merged is None:
        print("rank", rank, "sent")
    else:
        df = merged.to_dataframe()
        print("ranks", list(df["Rank"]), "slowest", list(merged.imbalance()["SlowestRank"]))
    """
)


def test_ranks_gather_through_files_in_a_shared_folder(tmp_path):
    """Three processes of a job (torchrun's variables) gather at rank 0 through files."""
    script = GATHER_SCRIPT.format(tests=str(Path(__file__).parent), folder=str(tmp_path))
    procs = []
    for rank in (2, 1, 0):  # rank 0 starts last and waits for none
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="3", LOCAL_RANK=str(rank))
        env["TORCHELASTIC_RUN_ID"] = "run7"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True
            )
        )
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert outs[0] == "rank 2 sent" and outs[1] == "rank 1 sent"
    assert outs[2] == "ranks [0, 0, 1, 1, 2, 2] slowest [2, 2]"
    assert sorted(os.listdir(tmp_path)) == [f"run7-gather0-rank0000{r}.json" for r in range(3)]


def test_a_job_never_reads_the_gather_files_of_another(tmp_path):
    """Job run7 left its files; in job run8 rank 1 never writes: rank 0 waits, then says who is
    missing, instead of taking run7's file."""
    for rank in range(2):
        (tmp_path / f"run7-gather0-rank0000{rank}.json").write_text(rank_results(rank, 1).to_json())
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_merge import rank_results\nimport kprof\n"
        f"kprof.gather(rank_results(0, 100), folder={str(tmp_path)!r}, timeout_s=1)\n"
    )
    env = dict(os.environ, RANK="0", WORLD_SIZE="2", TORCHELASTIC_RUN_ID="run8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.returncode != 0
    assert "ranks [1] wrote no results" in done.stderr


def test_files_of_a_rank_of_several_carry_its_rank(tmp_path):
    r = rank_results(3, 100)
    assert r.core.file_tag("bench-0") == "bench-0-rank3"
    paths = r.write_csv(str(tmp_path / "p_"), r.core.file_tag("bench-0"))
    assert all(p.endswith("-bench-0-rank3.csv") for p in paths)


def _top_level(n: int) -> None:
    pass


@pytest.mark.parametrize(
    "devices, valid",
    [([-1], "ordinals"), ([], "non-empty"), ("some", "'all'"), ([0.5], "ints"), (0, "list")],
)
def test_bad_devices_are_option_errors_at_decoration(devices: Any, valid: str):
    with pytest.raises(OptionError, match="devices") as e:
        kprof.analyze.kernel(configs=[1], devices=devices)(_top_level)
    assert valid in e.value.valid


def test_devices_need_a_function_a_worker_can_import():
    def inner(n: int) -> None:
        pass

    for func in (inner, lambda n: None):
        with pytest.raises(OptionError, match="top level of a module file"):
            kprof.analyze.kernel(configs=[1], devices=[0])(func)


def test_devices_beyond_the_gpus_are_refused_before_any_worker(monkeypatch):
    bench = kprof.analyze.kernel(configs=[1, 2], devices=[0, 7])(_top_level)
    count = len(_core.query_system()["devices"])
    with pytest.raises(OptionError, match=f"the driver shows {count} GPU"):
        bench()


def test_configs_are_shared_in_contiguous_order():
    from kprof.devices import _shares

    assert [list(s) for s in _shares(5, 2)] == [[0, 1, 2], [3, 4]]
    assert [list(s) for s in _shares(2, 4)] == [[0], [1]]
    assert [list(s) for s in _shares(6, 3)] == [[0, 1], [2, 3], [4, 5]]


def test_kprof_merge_command_reads_what_python_saved(tmp_path):
    paths = [rank_results(r, 100 + 25 * r).save(tmp_path / f"r{r}.json") for r in range(2)]
    out = tmp_path / "all.json"
    cli = [sys.executable, "-m", "kprof.cli", "merge", *paths, "--out", str(out)]
    result = subprocess.run(cli, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "merged 2 files: 2 ranks (0, 1)" in result.stdout
    assert "rank 1 is 1.25x slower than rank 0" in result.stdout
    assert kprof.load(out).ranks == [0, 1]


# --- the recording of a torchrun job of 4 ranks on one H200 (2026-12-04) ----------------------

RECORDING = Path(__file__).resolve().parents[1] / "data" / "h200-ranks-torchrun-2026-12-04.json"


def test_the_h200_job_reads_back_with_a_rank_per_row_and_its_imbalance():
    merged = kprof.load(RECORDING)
    assert merged.ranks == [0, 1, 2, 3]
    assert [p["session"]["launcher"] for p in merged.parts] == ["torchrun"] * 4
    assert {p["session"]["world_size"] for p in merged.parts} == {4}
    df = merged.to_dataframe()
    assert list(df["Rank"]) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert set(df["Device"]) == {0} and set(df["GPU"]) == {"NVIDIA H200"}
    # Each rank's statistics are its own runs': 3 each, a mean between their min and max.
    assert set(df["NumRuns"]) == {3}
    assert ((df["MinValue"] <= df["AvgValue"]) & (df["AvgValue"] <= df["MaxValue"])).all()
    m = merged.imbalance()
    assert list(m["Ranks"]) == [4, 4]
    for _, row in m.iterrows():
        rows = df[df["n"] == row["n"]]
        assert row["Slowest"] == rows["AvgValue"].max()
        assert row["Fastest"] == rows["AvgValue"].min()
        assert row["SlowestRank"] == rows.loc[rows["AvgValue"].idxmax(), "Rank"]
    assert "Rank" in merged.table().splitlines()[1]


def test_kprof_report_of_the_h200_job_names_its_ranks():
    cli = [sys.executable, "-m", "kprof.cli", "report", str(RECORDING)]
    out = subprocess.run(cli, capture_output=True, text=True, check=True).stdout
    assert "merged           4 ranks (0, 1, 2, 3) on 1 host (vm), GPU 0, 4 parts" in out
    assert "imbalance between ranks:" in out
    assert "scale [n=16777216]: rank 2 is 1.03x slower than rank 0" in out


def test_the_html_report_of_the_h200_job_has_its_ranks_and_imbalance():
    from kprof import report

    page = report.render_html(kprof.load(RECORDING), plots=False)
    assert "<th>merged</th><td>4 ranks (0, 1, 2, 3) on 1 host (vm)" in page
    assert '<section id="imbalance">' in page
    assert "rank 2 is 1.03x slower than rank 0" in page
    assert "<th>merged</th>" not in report.render_html(rank_results(0, 100), plots=False)


def test_plots_of_several_ranks_get_a_column_of_panels_per_rank():
    pytest.importorskip("matplotlib")
    merged = kprof.load(RECORDING)
    fig = merged.plot()
    assert len(fig.axes) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["Rank=0", "Rank=1", "Rank=2", "Rank=3"]
    one_panel = merged.plot(variant_fields=["Rank"], variant_annotations=["scale"])
    assert len(one_panel.axes) == 1


def test_a_failing_worker_keeps_the_other_shares_in_config_order():
    """devices=: the shares come back in config order; the first failure is raised with every
    share measured, the failed worker's measured part included."""
    from kprof.devices import combine
    from kprof.errors import UserFunctionError

    first, second = rank_results(0, 100, device=0), rank_results(0, 200, device=1)
    values = [[(1,), (2,)], [(3,), (4,)]]
    merged = combine([(first.to_json(), None, None), (second.to_json(), None, None)], values)
    assert list(merged.to_dataframe()["n"]) == [1, 2, 3, 4]
    assert list(merged.to_dataframe()["Device"]) == [0, 0, 1, 1]
    failed = UserFunctionError("bench raised ValueError: n=4 in config 2 of 2")
    outcomes = [(first.to_json(), None, None), (None, failed, second.to_json())]
    with pytest.raises(UserFunctionError, match="n=4") as e:
        combine(outcomes, values)
    kept = e.value.partial_results.to_dataframe()
    assert list(kept["n"]) == [1, 2, 3, 4] and list(kept["Device"]) == [0, 0, 1, 1]
    died = RuntimeError("A process in the process pool was terminated abruptly")
    with pytest.raises(RuntimeError, match="terminated"):
        combine([(first.to_json(), None, None), (None, died, None)], values)


def test_csv_files_written_before_rank_and_device_still_read_with_collector_columns(tmp_path):
    """Files of the release before Rank and Device, with info collector columns after the last
    known column, read back as they were written."""
    import csv

    from test_api_conditions import conditions_results

    r = conditions_results()
    r.write_csv(str(tmp_path / "p_"), "x")
    for kind in ("processed_data", "profiled_data", "records", "runs"):
        path = tmp_path / f"p_{kind}-x.csv"
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        drop = {i for i, name in enumerate(rows[0]) if name in ("Rank", "Device")}
        with open(path, "w", newline="") as f:
            csv.writer(f).writerows(
                [[c for i, c in enumerate(row) if i not in drop] for row in rows]
            )
    assert "depth_Avg" in (tmp_path / "p_processed_data-x.csv").read_text().splitlines()[0]
    assert _core.Results.read_csv(str(tmp_path / "p_"), "x") == r.core


# --- what cannot be merged: the core's refusals, through kprof.merge and `kprof merge` ---------

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = DATA / "h200-python-demo-2026-11-30.json"
COUNTERS = DATA / "h200-python-counters-2026-11-30.json"
NORMALIZED = DATA / "h200-python-normalized-2026-11-30.json"


def test_the_same_results_twice_are_refused():
    a = rank_results(0, 100)
    with pytest.raises(FormatError, match="results 1 and 2 hold the same profile .* twice"):
        kprof.merge([a, a])
    with pytest.raises(FormatError, match=r"\(rank 0 on vm, GPU 0, started 2026-11-30T06:14:11Z\)"):
        kprof.merge([DEMO, DEMO])


def test_durations_with_counters_are_refused():
    with pytest.raises(
        FormatError,
        match="results 1 were measured by backend 'cupti-activity', results 2 by "
        "'cupti-range-profiler'",
    ):
        kprof.merge([DEMO, COUNTERS])


def test_plain_with_normalized_results_are_refused():
    with pytest.raises(
        FormatError,
        match=r"gpu__time_duration.sum is in 'ns' in results 1 and in 'ratio' \(normalized "
        r"against 'memory/scale'\) in results 2",
    ):
        kprof.merge([DEMO, NORMALIZED])


def test_the_merge_command_refuses_a_file_given_twice(tmp_path):
    out = tmp_path / "all.json"
    cli = [sys.executable, "-m", "kprof.cli", "merge", str(DEMO), str(DEMO), "--out", str(out)]
    result = subprocess.run(cli, capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0].startswith(
        "kprof merge: cannot merge these files: results 1 and 2 hold the same profile"
    )
    assert not out.exists()
