#!/usr/bin/env bash
# Fetches, on a machine with network, what the GPU validation's SASS parts carry to a lent GPU
# machine without one (tests/gpu/validate_h200.sh sass, flop, newer-cupti, analysis-cost):
#   build/newer-cupti  CUPTI 13.5's libraries (from PyPI's nvidia-cuda-cupti wheel)
#   build/nvdisasm     nvdisasm (from nvidia-cuda-nvdisasm), which the H200 machine's toolkit lacks
# Usage: bash tests/gpu/fetch_cupti_tools.sh [CUPTI_VERSION]   (default 13.5.25)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:-13.5.25}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps -d "$tmp/cupti" "nvidia-cuda-cupti==$version"
mkdir -p build/newer-cupti
python3 -m zipfile -e "$tmp"/cupti/*.whl "$tmp/cupti/unpacked"
cp "$tmp"/cupti/unpacked/nvidia/cu13/lib/* build/newer-cupti/
python3 -m pip download -q --no-deps -d "$tmp/nvdisasm" nvidia-cuda-nvdisasm
python3 -m zipfile -e "$tmp"/nvdisasm/*.whl "$tmp/nvdisasm/unpacked"
mkdir -p build/nvdisasm
install -m 755 "$tmp"/nvdisasm/unpacked/nvidia/cu13/bin/nvdisasm build/nvdisasm/
du -sh build/newer-cupti build/nvdisasm
