#!/usr/bin/env bash
# Builds and runs the GPU tests on a lent GPU machine; full logs under $OUT (or ./kprof-out).
# Each group of tests runs in its own process under a timeout, so a hang in one group (a
# deadlock inside a CUPTI callback, say) still leaves the others' results.
set -u
out=${OUT:-kprof-out}
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/tests.log"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
  --format=csv >"$out/env.log" 2>&1
cat /proc/driver/nvidia/params 2>/dev/null | grep -i profiling >>"$out/env.log"
cat "$out/env.log"

start=$(date +%s)
if ! cmake --preset default -B build/dev -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/build.log" 2>&1 ||
   ! cmake --build build/dev -j16 --target kprof_gpu_tests >>"$out/build.log" 2>&1; then
  grep -E "error|FAILED|Error" "$out/build.log" | head -60
  exit 1
fi
log "build took $(( $(date +%s) - start )) s"

bin=build/dev/tests/kprof_gpu_tests
status=0
for group in 'LaunchApis.*' 'System.*:Errors.*' 'CuptiCoexistence.*' 'Attribution.*' \
             'Durations.*' 'CacheControl.*' 'Overhead.*'; do
  log "group $group"
  timeout "${GROUP_TIMEOUT:-40}" "$bin" --gtest_filter="$group" >>"$out/tests.log" 2>&1
  rc=$?
  log "group $group exit $rc"
  [ $rc -ne 0 ] && status=1
done
grep -E "^\[ RESULT \]|^\[  FAILED  \]|^\[  PASSED  \]|Failure|exit [0-9]+|error" "$out/tests.log"
exit $status
