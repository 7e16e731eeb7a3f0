// CUPTI's Profiler Host API (cupti_profiler_host.h): metric configurations and the evaluation
// of counter data, on the CPU. Shared by the metric catalog (no GPU) and the range profiler.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kprof::detail {

// A CUPTI parameter struct: zeroed (pPriv = NULL), with the size this build was compiled with.
template <typename P>
P cupti_params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

// Every Profiler Host call goes through this lock: CUPTI documents no thread safety for it.
std::mutex& profiler_host_mutex();

// check_cupti, with the reason a Profiler Host call that never started usually has (CUPTI
// could not load NVIDIA's Perf SDK host library).
void check_host(CUptiResult result, const char* call);

// Loads libnvperf_host.so from libcupti's directory unless the process has one already; see
// profiler_host.cpp. Returns whether it is loaded.
bool load_perf_host();

// Metric names as CUPTI's parameter structs take them (pointers into `names`).
std::vector<const char*> c_names(const std::vector<std::string>& names);

// A CUpti_Profiler_Host_Object for the range profiler of one chip. Without an availability
// image (no device) it serves the catalog; with one (read from a device) it schedules the
// counters that device can collect. A configuration only grows: metrics are added once.
class HostObject {
 public:
  explicit HostObject(const std::string& chip,
                      const std::vector<std::uint8_t>* counter_availability = nullptr);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  CUpti_Profiler_Host_Object* get() const { return object_; }
  void add_metrics(const std::vector<std::string>& names);
  std::vector<std::uint8_t> config_image() const;
  // Values of `names` (added before) in one range of decoded counter data.
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                               const std::vector<std::string>& names) const;

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// GetNumOfPasses of a configuration image.
int passes_of(const std::vector<std::uint8_t>& config_image);

}  // namespace kprof::detail
