// CUPTI's PC sampling (cupti_pcsampling.h) on the current CUDA context: every 2^N cycles each
// SM reports the PC of one of its warps and why that warp was not issued (its stall reason).
// Continuous mode with start/stop control, as a region needs: the samples of the kernels run
// between start() and stop(), on any stream.
//
// Continuous mode carries no correlation id, so samples cannot be told apart by launch: start()
// and stop() synchronize the context, and what was sampled between them belongs to the work
// launched between them.
#pragma once

#include <cuda.h>
#include <cupti_pcsampling.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kprof::detail {

// One PC's samples of one stall reason.
struct PcStall {
  std::size_t reason = 0;  // index into PcSampler::reasons()
  std::uint64_t samples = 0;
};

// The samples of one instruction of one kernel function.
struct SampledPc {
  std::uint64_t cubin_crc = 0;  // the module (cuptiGetCubinCrc of its cubin)
  std::uint64_t pc_offset = 0;  // from the function's start
  std::string function;         // mangled, as in the cubin
  std::vector<PcStall> stalls;  // only reasons with samples
};

// What one start() ... stop() sampled.
struct PcSamples {
  std::vector<SampledPc> pcs;
  // Every sample the hardware took, with those of kernels CUPTI gives no PCs of (its own) and
  // those dropped; droppedSamples is what the hardware buffer could not keep.
  std::uint64_t total_samples = 0;
  std::uint64_t dropped_samples = 0;
  std::uint64_t non_user_samples = 0;
  bool hardware_buffer_full = false;  // samples were lost: the window's counts are fewer
};

class PcSampler {
 public:
  // The first CUPTI API version whose PC data has the layout of these headers (12.4's, which
  // added correlationId): an older CUPTI would write records of another size into ours.
  static constexpr std::uint32_t kFirstApi = 22;

  // Enables sampling on the current context (made current by the runtime if none is) every
  // 2^period_log2 cycles (5 to 31). Throws UnsupportedError where CUPTI's PC sampling is not
  // available (the loaded CUPTI older than the headers' layout of a PC's data, or a device
  // without it), CounterPermissionError where this process may not sample, CudaError otherwise.
  explicit PcSampler(int period_log2);
  ~PcSampler();  // disables sampling on the context
  // CUPTI holds the address of buffer_: never copied or moved.
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;
  PcSampler(PcSampler&&) = delete;
  PcSampler& operator=(PcSampler&&) = delete;

  // CUPTI's stall reasons on this device, by the index a PcStall holds:
  // "smsp__pcsamp_warps_issue_stalled_long_scoreboard", "..._long_scoreboard_not_issued"...
  const std::vector<std::string>& reasons() const noexcept { return names_; }

  // Whether sampling is enabled on some context of this process. CUPTI refuses to trace
  // concurrent kernels then (CUPTI_ERROR_NOT_COMPATIBLE), and a sampler enabled after
  // concurrent kernels were traced samples no kernel of the process (docs/validation.md): the
  // durations of such a process come from serialized kernel records instead.
  static bool enabled_in_process() noexcept;

  // Samples every 2^period_log2 cycles from the next start(); not while sampling.
  void set_period(int period_log2);

  // Waits for the context's work, then samples until stop().
  void start();
  // Waits for the context's work, stops and returns every PC sampled since start().
  PcSamples stop();

 private:
  void drain(PcSamples& out);

  CUcontext context_ = nullptr;
  std::vector<std::string> names_;
  std::vector<std::uint32_t> cupti_index_;  // CUPTI's index of names_[i]
  // The buffer CUPTI fills with parsed PCs: its PC records and each record's stall array.
  std::vector<CUpti_PCSamplingPCData> records_;
  std::vector<CUpti_PCSamplingStallReason> stall_storage_;
  CUpti_PCSamplingData buffer_{};
  bool started_ = false;
};

}  // namespace kprof::detail
