#!/usr/bin/env bash
# The whole GPU validation in one go, for a lent GPU machine without network:
#   1. C++: configure, build, unit + GPU tests (ctest; the C++ examples are built against an
#      install and run there, test examples_run)
#   2. Python: offline install of the package, pytest -m gpu (timing against CUDA events and
#      ncu, counters against ncu, attribution, frameworks, every Python example and tutorial
#      step), with the validation figures and the examples' output written under figures/
#   3. the README's command `kprof demo`
#   4. bench/counter_sweep.py (hardware counters, both replay modes, vs ncu) and
#      bench/seed_sweep.py (kprof vs CUDA events vs ncu)
# Everything lands in $OUT/validation.tar.gz (logs, figures, recordings); a summary is printed.
#
#   bash tests/gpu/validate_h200.sh [all|cpp|python|examples|bench|hot|launch|analysis|analysis-cost|overhead|wheels|newer-cupti|sass|flop]
# "cpp" runs step 1; "python" the Python GPU tests but the examples; "examples" the examples and
# tutorial steps (tests/python/test_gpu_examples.py) and step 3; "bench" step 4; "launch" (not
# in "all") the launch-statistics tests alone, with Nsight Compute's LaunchStats and Occupancy
# sections of a torch softmax as ncu names them; "analysis" (not in "all") what limits each
# kernel against Nsight Compute, copies against torch.profiler, tutorial step 5 and `kprof demo
# --explain`; "analysis-cost" (not in "all") the report's --explain and --roofline on the
# analysis recording, a timed seed sweep recording, the cost of set:analysis on the seed sweep
# (and of set:flop with it, carrying build/newer-cupti and build/nvdisasm) and the C++ copies
# test; "overhead" (not in "all") the seed sweep by default and with warmup=2,
# which tells what profiling added per run; "wheels" (not in "all") the wheel built without a
# toolkit (carried in build/kprof-wheel), with the toolkit off every path, beside torch's CUPTI
# wheel and apart from it: `kprof devices`, demo and a torch matmul; "hot" (not in
# "all") the hot-path benchmarks (bench/hot_path.cpp and .py) and the seed sweep. Each fits one
# device call of 10 minutes. "newer-cupti" (not in "all") runs the counter tests with the CUPTI
# of PyPI's nvidia-cuda-cupti wheel instead of the toolkit's (13.4 and later reset the L2
# before every kernel-replay pass); the machine has no network, so fetch it here first and
# carry build/newer-cupti. "sass" (not in "all") runs the SASS counter's and set:flop's C++ GPU
# tests with the toolkit's CUPTI and with build/newer-cupti's, "flop" (not in "all") set:flop
# from Python (tests/python/test_gpu_flop.py, against Nsight Compute) and `kprof demo
# --explain` with build/newer-cupti's; both need nvdisasm, which the H200's toolkit lacks:
# carry build/nvdisasm too. tests/gpu/fetch_cupti_tools.sh fetches both from PyPI.
set -u
parts=${1:-all}
runs() { [ "$parts" = all ] || [ "$parts" = "$1" ]; }
out=${OUT:-kprof-out}
work=$out/validation
mkdir -p "$work/figures" "$work/recordings"
export PYTHONUNBUFFERED=1
# Packed after every step: if the machine's time runs out, what was done still comes back.
pack() { tar -czf "$out/validation.tar.gz" -C "$out" validation; }
step() { pack; echo; echo "=== $* ($(date +%T))"; }
# The CUPTI carried in build/newer-cupti, preloaded so that torch's own libcupti.so.13 (a
# dependency of its wheel) resolves to the same library (two CUPTIs in one process crash), its
# Perf SDK libraries found beside it; and the nvdisasm carried in build/nvdisasm (set:flop).
use_newer_cupti() {
  export LD_PRELOAD=$PWD/build/newer-cupti/libcupti.so.13
  export LD_LIBRARY_PATH=$PWD/build/newer-cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
use_carried_nvdisasm() { export KPROF_NVDISASM=$PWD/build/nvdisasm/nvdisasm; }

step environment
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
    --format=csv
  ncu --version | tail -1
  python3 -c 'import torch, sys; print(sys.version.split()[0], "torch", torch.__version__)'
} 2>&1 | tee "$work/env.log"

if runs cpp; then
step "C++ build and tests"
if cmake --preset default -B build/h200 -DCMAKE_CUDA_ARCHITECTURES=90 -DKPROF_BUILD_BENCH=ON \
     >"$work/cmake.log" 2>&1 &&
   cmake --build build/h200 -j16 >>"$work/cmake.log" 2>&1; then
  (cd build/h200 && ctest -L unit -j8 --output-on-failure &&
     ctest -L gpu -V -j1 --timeout 180) >"$work/ctest.log" 2>&1
  grep -E "\[ RESULT \]" "$work/ctest.log" >"$work/gpu-results.log"
  tail -4 "$work/ctest.log"
else
  grep -E "error|FAILED" "$work/cmake.log" | head -40
fi

fi

if [ "$parts" = hot ] || [ "$parts" = cpp ]; then
step "benchmark: hot path in C++"
# The build of step 1 when it ran, else one of the benchmark alone.
bench=build/h200
[ -x $bench/bench/kprof_hot_path ] || { bench=build/h200-bench;
  cmake --preset default -B $bench -DCMAKE_CUDA_ARCHITECTURES=90-real -DKPROF_BUILD_TESTS=OFF \
    -DKPROF_BUILD_BENCH=ON >"$work/cmake-bench.log" 2>&1 &&
  cmake --build $bench -j16 --target kprof_hot_path >>"$work/cmake-bench.log" 2>&1; } ||
  grep -E "error|FAILED" "$work/cmake-bench.log" | head -40
timeout 120 $bench/bench/kprof_hot_path --pieces 2>&1 | tee "$work/bench-hot-cpp.log"
fi

if [ "$parts" = launch ]; then
step "launch statistics: C++ GPU tests, ncu's names"
  (cmake --preset default -B build/h200 -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/cmake.log" 2>&1 &&
     cmake --build build/h200 -j12 --target kprof_gpu_tests >>"$work/cmake.log" 2>&1 &&
     timeout 240 build/h200/tests/kprof_gpu_tests --gtest_filter='LaunchStatistics.*' \
       >"$work/ctest-launch.log" 2>&1; tail -5 "$work/ctest-launch.log") &
  timeout 120 ncu --section LaunchStats --section Occupancy --page raw --csv --print-units base \
    --cache-control all --clock-control none python3 -c '
import torch
s = torch.randn(8192, 1024, device="cuda")
torch.softmax(s, dim=1)
torch.cuda.synchronize()' >"$work/ncu-launch-sections.csv" 2>&1
fi

if [ "$parts" != cpp ] && [ "$parts" != wheels ] && [ "$parts" != sass ]; then
step "Python install (offline)"
rm -rf /tmp/kp
# Hopper's code only: the default list of seven architectures triples the build's time.
python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/kp \
  -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90-real . \
  >"$work/pip.log" 2>&1 || tail -30 "$work/pip.log"
# Packages the machine lacks (the notebook test's Jupyter client and kernel) travel as wheels in
# .whl (carried): pip download them here for Python 3.12 first.
extra=
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >"$work/pip-wheels.log" 2>&1 && extra=:/tmp/site ||
    tail -5 "$work/pip-wheels.log"
fi
export PYTHONPATH=/tmp/kp$extra PATH=/tmp/kp/bin:$PATH
fi

if [ "$parts" = launch ]; then
step "launch statistics: Python against ncu"
  KPROF_VALIDATION_DIR=$work/figures timeout 300 python3 -m pytest -m gpu -q -s \
    -p no:cacheprovider tests/python/test_gpu_launch.py >"$work/pytest-launch.log" 2>&1
  grep -E "^(FAILED|ERROR) |RESULT" "$work/pytest-launch.log" | cut -c1-200 | head -80
  tail -3 "$work/pytest-launch.log"
  wait
  grep -E "RESULT|FAILED|OK \]|Failure|error" "$work/ctest-launch.log" | head -60
fi

if runs python; then
step "Python GPU tests"
  KPROF_VALIDATION_DIR=$work/figures KPROF_RECORD_DIR=$work/recordings \
    timeout 540 python3 -m pytest -m gpu -q -p no:cacheprovider ${KPROF_GPU_TESTS:-tests/python} \
    --ignore=tests/python/test_gpu_examples.py -rfEs >"$work/pytest-gpu.log" 2>&1
  # The names of failures first: the reply keeps only the end of the output.
  grep -E "^(FAILED|ERROR|SKIPPED) " "$work/pytest-gpu.log" | cut -c1-300
  tail -3 "$work/pytest-gpu.log"
  cp "$work"/figures/h200_*.json "$work/recordings/" 2>/dev/null
fi

if runs examples; then
step "Python examples and tutorial steps"
  KPROF_VALIDATION_DIR=$work/figures timeout 420 python3 -m pytest -m gpu -q \
    -p no:cacheprovider tests/python/test_gpu_examples.py >"$work/pytest-examples.log" 2>&1
  tail -15 "$work/pytest-examples.log"

step "kprof demo"
timeout 120 kprof demo 2>&1 | tee "$work/demo.log"
timeout 60 kprof devices >"$work/devices.log" 2>&1
timeout 120 kprof doctor 2>&1 | tee "$work/doctor.log"
timeout 240 kprof demo --runs 3 --metrics dram__bytes_read.sum,dram__bytes_write.sum 2>&1 |
  tee "$work/demo-counters.log"
fi

if [ "$parts" = analysis ]; then
step "analysis and copies: against Nsight Compute, torch.profiler and CUDA events"
  KPROF_VALIDATION_DIR=$work/figures timeout 300 python3 -m pytest -m gpu -q -s -rfE \
    -p no:cacheprovider tests/python/test_gpu_analysis.py tests/python/test_gpu_copies.py \
    >"$work/pytest-analysis.log" 2>&1
  grep -E "^(FAILED|ERROR) |RESULT" "$work/pytest-analysis.log" | cut -c1-300 | head -40
  tail -3 "$work/pytest-analysis.log"
  cp "$work"/figures/recordings/*.json "$work/recordings/" 2>/dev/null
  timeout 120 python3 examples/python/tutorial/step5_boundness.py >"$work/step5.log" 2>&1
  tail -8 "$work/step5.log"
  timeout 150 kprof demo --runs 3 --explain >"$work/demo-explain.log" 2>&1
  tail -24 "$work/demo-explain.log"
fi

if [ "$parts" = analysis-cost ]; then
step "analysis: the report's --explain and --roofline, a seed sweep recording, the cost"
  for f in tests/data/h200-analysis-*.json; do
    timeout 60 kprof report "$f" --explain >"$work/report-explain.log" 2>&1
    timeout 60 kprof report "$f" --roofline "$work/figures/roofline.png" 2>&1 | tail -1
  done
  # The seed sweep (fp32 matmul n = 512..4096, 10 runs, cold L2), timed: a recording whose
  # trace the CPU tests check.
  timeout 120 python3 - "$work/recordings/h200-seed-sweep-timed-2026-12-03.json" <<'PY' 2>&1 | tail -3
import sys
import kprof
import torch

SIZES = (512, 1024, 2048, 4096)
ab = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}


@kprof.analyze.kernel(configs=SIZES, runs=10, combine_kernel_metrics="sum", warmup=1)
def matmul(n):
    a, b = ab[n]
    with kprof.annotate("matmul"):
        torch.matmul(a, b)


matmul().save(sys.argv[1], overwrite=True)
print("saved", sys.argv[1])
PY
  timeout "${COUNTER_BENCH_TIMEOUT:-300}" python3 bench/counter_sweep.py --only d \
    --json "$work/figures/counter_sweep_analysis.json" 2>&1 | tee "$work/bench-analysis.log"
  # And with set:flop, counted in the process where build/newer-cupti and build/nvdisasm are
  # carried (else the sweep says why it is skipped).
  ([ -d build/newer-cupti ] && use_newer_cupti && use_carried_nvdisasm
   timeout "${COUNTER_BENCH_TIMEOUT:-300}" python3 bench/counter_sweep.py --only e \
     --json "$work/figures/counter_sweep_flop.json" 2>&1 | tee -a "$work/bench-analysis.log")
  step "C++: copies and memsets"
  (cmake --preset default -B build/h200 -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/cmake.log" 2>&1 &&
     cmake --build build/h200 -j16 --target kprof_gpu_tests >>"$work/cmake.log" 2>&1 &&
     timeout 120 build/h200/tests/kprof_gpu_tests --gtest_filter='Copies.*' \
       >"$work/ctest-copies.log" 2>&1; grep -E "RESULT|OK \]|FAILED|Failure" -A3 \
       "$work/ctest-copies.log" | head -20) || tail -20 "$work/cmake.log"
fi

if [ "$parts" = overhead ]; then
step "the cost of measuring, disclosed: the seed sweep by default and with warmup=2"
  # fp32 matmul n = 512..4096, 10 runs, cold L2: durations alone, then a 1-pass counter set.
  timeout 240 python3 - <<'PY' 2>&1 | tee "$work/overhead.log"
import kprof
import torch

SIZES = (512, 1024, 2048, 4096)
ab = {n: (torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")) for n in SIZES}

for metrics, warmup in ((None, 0), (None, 2), (["dram__bytes_read.sum", "dram__bytes_write.sum"], 0)):
    extra = {"metrics": metrics} if metrics else {}
    print(f"--- metrics {metrics or 'durations'}, warmup={warmup}")

    @kprof.analyze.kernel(configs=SIZES, runs=10, combine_kernel_metrics="sum", warmup=warmup,
                          verbosity=kprof.VerbosityLevel.INFO, **extra)
    def matmul(n):
        a, b = ab[n]
        with kprof.annotate("matmul"):
            torch.matmul(a, b)

    r = matmul()
    df = r.to_dataframe()
    print(df[["n", "Metric", "AvgValue", "ProfilingOverhead"]].to_string())
    print("session:", {k: r.session[k] for k in ("overhead_seconds_per_run",
                                                  "unprofiled_seconds_per_run")})
PY
fi

if [ "$parts" = wheels ]; then
step "the wheel built without a toolkit, with the toolkit off every path"
  # tests/install/wheel_check.sh builds it on a machine without CUDA, for this image's Python
  # (PYTHON=python3.12); it travels in build/kprof-wheel (carried): the image lacks the nvcc and
  # nvvm wheels, and the machine has no network.
  site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
  ls -d "$site/nvidia/cu13/lib/libcupti.so.13"
  wheel=$(ls build/kprof-wheel/kprof-*manylinux*.whl | head -1)
  echo "wheel: $wheel; the system's library path knows $(ldconfig -p | grep -c libcupti) CUPTI file(s)"
  clean_path=$(echo "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd:)
  # Installed as pip installs into a site folder, found first on PYTHONPATH (torch and pandas
  # stay the image's): /tmp/wv beside torch's nvidia-cuda-cupti, as pip puts a dependency (the
  # run path finds it); /tmp/wa apart from it, as with pip --user (sys.path finds it, unless the
  # system's library path knows a CUPTI first).
  rm -rf /tmp/wv /tmp/wa
  for dir in /tmp/wv /tmp/wa; do
    python3 -m pip install -q --no-index --no-deps --target $dir "$wheel" \
      >"$work/pip-wheel.log" 2>&1 || tail -5 "$work/pip-wheel.log"
  done
  ln -sfn "$site/nvidia" /tmp/wv/nvidia
  clean() { local dir=$1; shift; env -u LD_LIBRARY_PATH -u CUDA_HOME PYTHONPATH=$dir${PYTHONPATH:+:$PYTHONPATH} \
    PATH="$dir/bin:$clean_path" "$@"; }
  for dir in /tmp/wv /tmp/wa; do
    echo "--- $dir"
    clean $dir timeout 60 kprof devices 2>&1 | grep -i -E "cupti|H200|error"
  done
  clean /tmp/wv timeout 120 kprof demo --runs 3 2>&1 | tail -8
  for dir in /tmp/wv /tmp/wa; do
    echo "--- $dir: a torch matmul, durations and DRAM bytes read"
    clean $dir timeout 180 python3 - <<'PY'
import torch
import kprof
from kprof import _core

a, b = (torch.randn(4096, 4096, device="cuda") for _ in range(2))
for metrics in (None, ["dram__bytes_read.sum"]):
    extra = {"metrics": metrics} if metrics else {}

    @kprof.analyze.kernel(configs=[4096], runs=5, verbosity=kprof.VerbosityLevel.SILENT, **extra)
    def matmul(n):
        with kprof.annotate("matmul"):
            torch.matmul(a, b)

    df = matmul().to_dataframe()
    print(df[["Annotation", "Metric", "AvgValue", "NumRuns"]].to_string())
print("kprof from", kprof.__file__)
print("CUPTI next to torch:", _core.query_system()["cupti_path"])
PY
  done
fi

if [ "$parts" = newer-cupti ]; then
step "counters with the CUPTI in build/newer-cupti"
  use_newer_cupti
  timeout 60 kprof devices 2>&1 | tee "$work/newer-cupti.log"
  timeout 120 python3 - <<'PY' 2>&1 | tee -a "$work/newer-cupti.log"
import torch
import kprof
import kprof._core  # noqa: F401

x = torch.rand(1 << 20, device="cuda")


@kprof.analyze.kernel(runs=1, metrics=["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
                      verbosity=kprof.VerbosityLevel.SILENT)
def scale():
    with kprof.annotate("scale"):
        x.mul(2.0)


print("a profile with torch loaded ran with CUPTI", scale().session["cupti_version"])
PY
  mkdir -p "$work/figures-newer-cupti"
  KPROF_VALIDATION_DIR=$work/figures-newer-cupti timeout 300 python3 -m pytest -m gpu -q \
    -p no:cacheprovider tests/python/test_gpu_counters.py 2>&1 | tee -a "$work/newer-cupti.log" |
    tail -15
  unset LD_PRELOAD
fi

if [ "$parts" = sass ]; then
step "SASS counter and set:flop: GPU tests with CUPTI 13.0 and newer"
  use_carried_nvdisasm
  # Configured as step 1 is, so that a later "cpp" part on the same machine rebuilds nothing
  # of this.
  (cmake --preset default -B build/h200 -DCMAKE_CUDA_ARCHITECTURES=90 -DKPROF_BUILD_BENCH=ON \
       >"$work/cmake.log" 2>&1 &&
     cmake --build build/h200 -j16 --target kprof_gpu_tests >>"$work/cmake.log" 2>&1) ||
    grep -E "error|FAILED" "$work/cmake.log" | head -20
  (cd build/h200 && ctest -R "Sass|NonBlocking" -V --timeout 120) >"$work/sass-ctest.log" 2>&1
  grep -E "RESULT|Passed|Failed|Skipped|tests passed" "$work/sass-ctest.log" | tee "$work/sass.log"
  (use_newer_cupti
   # One process for every case: with a CUPTI that counts every kernel none is skipped.
   timeout 180 build/h200/tests/kprof_gpu_tests --gtest_filter='*Sass*' \
     >"$work/sass-newer.log" 2>&1
   echo "every SASS test in one process: exit $? (124: timed out)"
   # And the profile that starts the watcher itself, in a process where nothing did before.
   timeout 120 build/h200/tests/kprof_gpu_tests --gtest_filter='SassProfile.*' \
     >>"$work/sass-newer.log" 2>&1
   echo "SassProfile.* in a process of its own: exit $?") | tee -a "$work/sass.log"
  grep -E "RESULT|OK \]|FAILED|SKIPPED|Failure|exception|Expected|Which is|Actual" \
    "$work/sass-newer.log" | tee -a "$work/sass.log"
fi

if [ "$parts" = flop ]; then
step "set:flop in Python and the command line, with CUPTI 13.5"
  # Python: set:flop end to end in torch scripts (against Nsight Compute's count, and a
  # recording for the GPU-free tests), what `kprof doctor` says of it, and `kprof demo
  # --explain`, which measures it where it can be counted.
  (use_newer_cupti
   use_carried_nvdisasm
   timeout 60 kprof doctor 2>&1 | grep -E "CUPTI|set:flop"
   KPROF_RECORD_DIR=$work/recordings timeout 380 python3 -m pytest -m gpu -q -s -rfEs \
     -p no:cacheprovider tests/python/test_gpu_flop.py >"$work/pytest-flop.log" 2>&1
   grep -E "RESULT|passed|failed|skipped|SKIPPED|FAILED|ERROR|Error|^E " "$work/pytest-flop.log" |
     cut -c1-300 | head -40
   pack
   timeout 90 kprof demo --runs 3 --explain >"$work/demo-explain-flop.log" 2>&1
   echo "kprof demo --runs 3 --explain (set:flop in it): exit $?"
   tail -25 "$work/demo-explain-flop.log") | tee "$work/flop.log"
fi

if runs bench; then
step "benchmark: counter sweep"
timeout "${COUNTER_BENCH_TIMEOUT:-300}" python3 bench/counter_sweep.py \
  --json "$work/figures/counter_sweep.json" 2>&1 | tee "$work/bench-counters.log"

step "benchmark: seed sweep"
timeout 200 python3 bench/seed_sweep.py --json "$work/figures/seed_sweep.json" 2>&1 |
  tee "$work/bench.log"
fi

if [ "$parts" = hot ]; then
step "benchmark: hot path in Python"
timeout 200 python3 bench/hot_path.py --json "$work/figures/hot_path.json" 2>&1 |
  tee "$work/bench-hot.log"
step "benchmark: seed sweep"
timeout 200 python3 bench/seed_sweep.py --skip-ncu --json "$work/figures/seed_sweep.json" 2>&1 |
  tee "$work/bench.log"
fi

pack
echo "figures:"; ls "$work/figures"
