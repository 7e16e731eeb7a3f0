"""kprof and PyTorch load in either order in one process."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu
pytest.importorskip("torch")


@pytest.mark.parametrize("first", ["kprof", "torch"])
def test_import_order(first):
    second = "torch" if first == "kprof" else "kprof"
    code = f"import {first}, {second}, torch; print(torch.ones(2, device='cuda').sum().item())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2.0"
