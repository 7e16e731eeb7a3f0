// Where CUPTI's activity buffers land: kernel records of measured launches, copied out.
//
// CUPTI's buffer callbacks are process-global (no user data), so one sink at a time is
// attached. The completion callback may run on CUPTI's own worker thread: it only copies the
// few fields kprof needs (the name too, since it points into CUPTI's memory) for records whose
// correlation id belongs to a region, counts dropped records and frees the buffer. It never
// waits on the GPU and never calls into Python.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cupti/correlation_map.hpp"
#include "cuda/cupti/launch_statistics.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

struct KernelRecord {
  std::uint32_t correlation = 0;
  RegionId region = kNoRegion;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::string name;  // as the driver knows it (mangled)
  LaunchShape launch;
  std::uint32_t stream = 0;
  std::string kind = kKernelKind;  // Record::kind: "kernel", "memcpy HtoD", ..., "memset"
  std::int64_t bytes = -1;         // a copy's or memset's bytes
};

class ActivitySink {
 public:
  explicit ActivitySink(const CorrelationMap& correlations) : correlations_(correlations) {}
  ~ActivitySink() { detach(); }
  ActivitySink(const ActivitySink&) = delete;
  ActivitySink& operator=(const ActivitySink&) = delete;

  // Registers the buffer callbacks with CUPTI (again each time: another tool may have
  // registered its own since) and makes this the sink. Throws CudaError.
  void attach();
  // Later buffers are freed unread. Never throws.
  void detach() noexcept;

  // The records received so far; the sink keeps none.
  std::vector<KernelRecord> take();
  // Records CUPTI dropped (no buffer space) since the last call.
  std::uint64_t take_dropped();

 private:
  void consume(std::uint8_t* buffer, std::size_t valid_bytes);
  void consume_copy(const CUpti_Activity& record, std::vector<KernelRecord>& out);

  const CorrelationMap& correlations_;
  std::mutex mutex_;  // guards the fields below
  std::vector<KernelRecord> records_;
  std::uint64_t dropped_ = 0;

  friend struct ActivityCallbacks;
};

}  // namespace kprof::detail
