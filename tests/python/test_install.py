"""Where the installed package finds CUDA at run time: the CUPTI a process loads with kprof."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kprof
import pytest
from kprof import _core


def test_a_process_without_cupti_loads_the_one_of_the_wheel_beside_the_package():
    """nvidia-cuda-cupti is a dependency of the package on Linux x86-64, installed beside it: a
    process that holds no CUPTI yet (no PyTorch imported) loads that one, through the package's
    run path, whatever toolkit the build used and whatever a library path names."""
    wheel = Path(kprof.__file__).resolve().parent.parent / "nvidia" / "cu13" / "lib"
    if not (wheel / "libcupti.so.13").exists():
        pytest.skip("no nvidia-cuda-cupti wheel beside the package")
    if not _core.query_system()["built_with_cuda"]:
        pytest.skip("built without CUDA")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    code = "from kprof import _core; print(_core.query_system()['cupti_path'])"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    loaded = Path(done.stdout.strip())
    assert loaded.parent == wheel.resolve(), loaded


def test_query_system_names_the_cupti_it_reports():
    info = _core.query_system()
    if info["cupti_version"] == 0:
        pytest.skip("no CUPTI loadable")
    assert Path(info["cupti_path"]).name.startswith("libcupti.so"), info["cupti_path"]
    assert Path(info["cupti_path"]).exists()
