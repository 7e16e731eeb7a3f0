"""set:flop counted in the process on the GPU: CUPTI 13.5 or later and nvdisasm
(``validate_h200.sh sass`` preloads them); skipped with `kprof doctor`'s reason elsewhere.

Each case runs in a fresh process, as a user's script does: the counts need the code of every
counted kernel's module, which kprof keeps from the moment a decorator asking for set:flop is
made, and the earlier tests of this process have loaded torch's modules before that."""

import json
import subprocess
import sys

import pytest
from kprof._native import core

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")

FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"
FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"

SCRIPT = """
import json, sys
import kprof, torch

@kprof.analyze.kernel(metrics=["set:flop"], runs=2, verbosity=kprof.VerbosityLevel.SILENT)
def bench():
    with kprof.annotate("mul"):
        x * y

n = 1 << 24
x = torch.rand(n, device="cuda")  # after the decorator: its module's code is kept
y = torch.rand(n, device="cuda")
x * y  # a warm-up before the profile
df = bench().to_dataframe()
rows = {f"{r.Annotation} {r.Metric}": r.AvgValue for r in df.itertuples()}
print(json.dumps(rows))
"""


def test_a_torch_multiply_counts_one_fmul_per_element_and_nothing_else():
    why = core.query_system()["flop_counting"]
    if why:
        pytest.skip(why)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    n = 1 << 24
    print(f"[ RESULT ] set:flop, torch x * y over {n} floats: {rows['mul ' + FMUL]:.0f} FMUL")
    assert n <= rows[f"mul {FMUL}"] <= n * 1.001, rows
    assert rows[f"mul {FADD}"] == rows[f"mul {FFMA}"] == 0, rows
