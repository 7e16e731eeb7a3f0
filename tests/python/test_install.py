"""Where the installed package finds CUDA at run time: the CUPTI a process loads with kprof."""

from __future__ import annotations

import os
import shutil
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
    _skip_unless_built_for_cuda_13()
    done = _cupti_path_in_a_fresh_process()
    assert done.returncode == 0, done.stderr
    loaded = Path(done.stdout.strip())
    assert loaded.parent == wheel.resolve(), loaded


def test_a_cupti_wheel_in_another_site_folder_is_found_on_sys_path(tmp_path):
    """``pip install --user`` or a system site-packages can put kprof in another folder of sys.path
    than the nvidia-cuda-cupti wheel, out of the package's run path: kprof then loads CUPTI from
    sys.path instead of failing to import its extension."""
    wheel = Path(kprof.__file__).resolve().parent.parent / "nvidia" / "cu13" / "lib"
    if not (wheel / "libcupti.so.13").exists():
        pytest.skip("no nvidia-cuda-cupti wheel beside the package")
    _skip_unless_built_for_cuda_13()
    apart = tmp_path / "apart"
    shutil.copytree(Path(kprof.__file__).resolve().parent, apart / "kprof")
    library = next((apart / "kprof").glob("libkprof*.so*"), None)
    assert library is not None, "no libkprof in the package"
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    alone = subprocess.run(
        [sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(library)!r})"],
        env=env,
        capture_output=True,
        text=True,
    )
    if alone.returncode == 0:
        pytest.skip("libkprof finds a CUPTI without the wheel (the system's library path)")
    assert "libcupti.so.13" in alone.stderr, alone.stderr
    code = (
        "import kprof; from kprof import _native; print(kprof.__file__); "
        "print(_native.core.query_system()['cupti_path'])"
    )
    env["PYTHONPATH"] = str(apart)  # before site-packages, which holds the wheel
    found = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    package, cupti = found.stdout.split()
    assert Path(package).parent == apart / "kprof"
    assert Path(cupti).resolve().parent == wheel.resolve(), cupti
    # The command line loads the extension the same way: `kprof devices` names that CUPTI.
    command = "import sys; from kprof import cli; sys.argv = ['kprof', 'devices']; cli.main()"
    devices = subprocess.run(
        [sys.executable, "-c", command], env=env, capture_output=True, text=True
    )
    assert "cannot load kprof's compiled extension" not in devices.stderr, devices.stderr
    assert "libcupti.so.13" in devices.stdout, devices.stdout


def test_query_system_names_the_cupti_it_reports():
    info = _core.query_system()
    if info["cupti_version"] == 0:
        pytest.skip("no CUPTI loadable")
    assert Path(info["cupti_path"]).name.startswith("libcupti.so"), info["cupti_path"]
    assert Path(info["cupti_path"]).exists()


def _skip_unless_built_for_cuda_13():
    info = _core.query_system()
    if not info["built_with_cuda"]:
        pytest.skip("built without CUDA")
    if info["cupti_version"] < 130000:
        pytest.skip(f"built for CUPTI {info['cupti_version']}, not the CUDA 13 wheel's")


def _cupti_path_in_a_fresh_process() -> subprocess.CompletedProcess:
    """The CUPTI file a fresh process loads with kprof, nothing on the library path."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    code = "from kprof import _core; print(_core.query_system()['cupti_path'])"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_the_run_path_names_the_cupti_wheel_of_the_cuda_the_package_was_built_with():
    """libcupti.so.13 of a CUDA 13 build is in nvidia-cuda-cupti's nvidia/cu13/lib;
    libcupti.so.12 of a CUDA 12 build in nvidia-cuda-cupti-cu12's nvidia/cuda_cupti/lib (the
    cu12 extra): the installed library's run path looks beside the package for the right one."""
    info = _core.query_system()
    if not info["built_with_cuda"] or info["cupti_version"] == 0:
        pytest.skip("built without CUDA, or no CUPTI loadable")
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    library = next(Path(kprof.__file__).resolve().parent.glob("libkprof*.so*"), None)
    assert library is not None, "no libkprof in the package"
    dynamic = subprocess.run([readelf, "-d", str(library)], capture_output=True, text=True).stdout
    runpath = next((line for line in dynamic.splitlines() if "RUNPATH" in line), "no RUNPATH")
    wheel = "nvidia/cu13/lib" if info["cupti_version"] >= 130000 else "nvidia/cuda_cupti/lib"
    assert f"$ORIGIN/../{wheel}" in runpath, runpath
