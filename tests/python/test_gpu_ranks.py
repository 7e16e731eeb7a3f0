"""Ranks and GPUs on the H200 (tests/gpu/validate_h200.sh python): a torchrun job of 4 ranks
and an mpirun job of 2 merged at rank 0, with durations and with counters (the ranks share one
GPU's counters: wait_for_counters), and one sweep shared between two workers on GPU 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
HERE = Path(__file__).resolve().parent
JOB = str(HERE / "rank_job.py")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
    return env


def _launch(command: list[str], out: Path) -> dict:
    result = subprocess.run(
        command, capture_output=True, text=True, env=_env(), timeout=600, cwd=HERE
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(out.read_text())


def _torchrun(kind: str, ranks: int, out: Path) -> dict:
    pytest.importorskip("torch")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    return _launch(command + [f"--nproc_per_node={ranks}", JOB, kind, str(out)], out)


@pytest.mark.parametrize("kind", ["durations", "counters"])
def test_a_torchrun_job_of_four_ranks_prints_one_table_at_rank_0(kind, tmp_path):
    s = _torchrun(kind, 4, tmp_path / "merged.json")
    assert s["channel"] == "torch"
    per_rank = 2 if kind == "durations" else 4  # 2 configs x (1 or 2 metrics)
    assert s["ranks"] == [r for r in range(4) for _ in range(per_rank)]
    assert all(v > 0 for v in s["values"])
    assert s["imbalance_ranks"] == [4, 4]  # each config's duration measured by 4 ranks
    assert "Rank" in s["table"].splitlines()[1]
    print(s["table"])


@pytest.mark.parametrize("kind", ["durations", "counters"])
def test_an_mpirun_job_gathers_through_mpi4py(kind, tmp_path):
    pytest.importorskip("mpi4py")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("no mpirun")
    out = tmp_path / "merged.json"
    command = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", sys.executable]
    s = _launch(command + [JOB, kind, str(out)], out)
    assert s["channel"] == "other"
    assert sorted(set(s["ranks"])) == [0, 1]
    assert not (tmp_path / "merged.json.gather").exists()  # mpi4py, not files
    assert s["imbalance_ranks"] == [2, 2]


def test_two_workers_on_one_gpu_give_the_results_of_one(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    import rank_job

    one = rank_job.one_worker().to_dataframe()
    two = rank_job.two_workers().to_dataframe()
    for column in ("Annotation", "Metric", "n", "Kernel", "NumRuns", "Rank", "Device"):
        assert list(two[column]) == list(one[column]), column
    # Durations of the same kernels, measured apart: within 25% (two workers share one GPU).
    ratios = two["AvgValue"].to_numpy() / one["AvgValue"].to_numpy()
    assert all(0.75 < r < 1.25 for r in ratios), ratios
    # Geomean over the whole sweep, as one profile computes it.
    means = two["AvgValue"].to_numpy()
    assert two["Geomean"].iloc[0] == pytest.approx(float(means.prod() ** (1 / len(means))))


def test_a_failing_worker_keeps_the_other_workers_results(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    import rank_job
    from kprof.errors import UserFunctionError

    with pytest.raises(UserFunctionError, match="the last config fails") as e:
        rank_job.second_worker_fails()
    kept = e.value.partial_results.to_dataframe()
    # The first worker's two configs, and the second worker's config measured before the failure.
    measured = kept[kept["n"].isin(rank_job.SWEEP[:3])]
    assert sorted(measured["n"]) == rank_job.SWEEP[:3]
    assert measured["AvgValue"].notna().all()
