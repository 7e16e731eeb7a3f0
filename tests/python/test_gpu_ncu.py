"""Tool.NCU on the GPU: the same kernels measured by kprof's engine and by Nsight Compute (the
script run again under ncu) give durations within 3% and the same kernel names, and the report
kprof leaves opens with Nsight Compute's own ncu_report module (the seed tutorial's last step)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")
JOB = str(Path(__file__).resolve().parent / "ncu_job.py")


def run_job(tool: str, out: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), *sys.path]))
    env.pop("LD_PRELOAD", None)  # ncu brings its own CUPTI
    done = subprocess.run(
        [sys.executable, JOB, tool, str(out)], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads((out / f"{tool}.json").read_text())


def test_nsight_compute_and_kprofs_engine_agree(tmp_path):
    from kprof import ncu

    try:
        ncu.find_ncu()
    except Exception as e:  # noqa: BLE001
        pytest.skip(str(e))
    cupti, nsight = run_job("cupti", tmp_path), run_job("ncu", tmp_path)
    assert nsight["backend"] == "nsight-compute"
    assert nsight["kernels"] == cupti["kernels"]
    for ours, theirs in zip(cupti["values"], nsight["values"], strict=True):
        print(f"[ RESULT ] scale: kprof {ours:.0f} ns, Nsight Compute {theirs:.0f} ns")
        assert ours == pytest.approx(theirs, rel=0.03)
    report = Path(nsight["report"])
    assert report.name == "ncu-output-scale-0.ncu-rep"
    assert report.with_suffix(".log").exists()
    module = ncu._report_module(ncu.find_ncu())
    context = module.load_report(str(report))
    actions = [
        context.range_by_idx(r).action_by_idx(a)
        for r in range(context.num_ranges())
        for a in range(context.range_by_idx(r).num_actions())
    ]
    assert len(actions) == 2 * 5  # two configs of five runs, one kernel each
