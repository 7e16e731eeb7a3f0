// CUPTI's SASS metrics API (cupti_sass_metrics.h) counting, per SASS instruction, the thread
// instructions executed with their predicate on: with each PC's opcode from nvdisasm, the
// FP32/FP64/FP16 instruction counts the range profiler reads as 0 on the H200
// (docs/validation.md, "FP32/FP64/FP16 FLOP outside the tensor cores").
//
// On the H200 CUPTI 13.0.1 counted only the first kernel function launched in a collection;
// CUPTI 13.5 counts every launch, with a flush after each (tests/gpu/probes/
// sass_many_kernels_probe.cu, docs/validation.md). The first launch of a kernel after enable()
// is patched (~13 ms), a flush ~26 us.
#pragma once

#include <cuda.h>
#include <cupti_sass_metrics.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"

namespace kprof::detail {

class SassCounter {
 public:
  // Configures smsp__sass_thread_inst_executed_pred_on, at GPU granularity, for the current
  // device (creating its primary context, which the configuration needs), once per process: the
  // configuration outlives every SassCounter (CUPTI cannot set it again once unset). Throws
  // UnsupportedError when CUPTI offers no such metric or no SASS metrics on this device,
  // CounterPermissionError without the permission to profile, CudaError otherwise.
  SassCounter();
  ~SassCounter();  // disables collection if enabled
  SassCounter(const SassCounter&) = delete;
  // Whether the loaded CUPTI counts every kernel of a collection: 13.5 (API version 130500)
  // did on the H200, 13.0.1 counted the first kernel function alone; 13.1 to 13.4 are untried.
  static bool counts_every_kernel();
  SassCounter& operator=(const SassCounter&) = delete;

  // Starts collecting on `context`: with `lazy_patching`, each kernel is patched at its first
  // launch from here on; without, every function loaded is patched now.
  void enable(CUcontext context, bool lazy_patching = true);
  // The counts collected since the last flush (or enable()), one per PC executed.
  std::vector<PcCount> flush();
  // Stops collecting; returns how many records were dropped (collected, never flushed).
  std::size_t disable();
  bool enabled() const { return enabled_; }

  // The FlopClass counts of `pcs` per function (core/metrics/sass_opcodes.hpp's flop_counts), each
  // cubin kept by ModuleCode disassembled once. Throws as flop_counts and disassemble do.
  static std::map<std::string, FlopCounts> flop_counts(const std::vector<PcCount>& pcs);

 private:
  int device_ = 0;
  std::uint64_t metric_ = 0;  // the id of smsp__sass_thread_inst_executed_pred_on
  CUcontext context_ = nullptr;
  bool enabled_ = false;
};

}  // namespace kprof::detail
