"""Every Python example runs on the GPU and exits 0: the README's, the drop-in script and each
step of the tutorial (docs/tutorial.md). Their output is kept in KPROF_VALIDATION_DIR/examples,
where the tutorial's numbers come from."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
SCRIPTS = sorted(EXAMPLES.glob("*.py")) + sorted((EXAMPLES / "tutorial").glob("*.py"))
NEEDS_NCU = {"step8_vs_ncu.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script):
    if script.name in NEEDS_NCU and shutil.which("ncu") is None:
        pytest.skip("ncu is not on PATH")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    folder = os.environ.get("KPROF_VALIDATION_DIR")
    if folder:
        out = Path(folder) / "examples"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{script.stem}.txt").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert done.stdout.strip(), "the example printed nothing"
