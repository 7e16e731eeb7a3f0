// The interface between the sweep engine and whatever measures the GPU.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/region_tracker.hpp"
#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

struct MetricValue {
  std::string metric;
  double value = 0;
  std::string unit;
};

// One kernel (or, in range replay, one region) measured by a backend.
struct Measurement {
  RegionId region = kNoRegion;  // innermost region open at launch
  std::string kernel;           // demangled name
  std::string mangled;          // as the driver knows it; may equal `kernel`
  std::uint64_t order = 0;      // orders kernels of one region: GPU start time or launch order
  std::vector<MetricValue> values;
  // The values hold for the region as a whole, nested regions included (a user range of the
  // range profiler): they are not added to the enclosing regions.
  bool whole_region = false;
  // The SM clock the kernel ran at, when the backend measured it (counter
  // gpc__cycles_elapsed.avg.per_second); NaN otherwise.
  double sm_clock_hz = std::numeric_limits<double>::quiet_NaN();
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Device, clocks, versions and backend name for SessionInfo. Throws NoGpuError.
  virtual SessionInfo describe() = 0;
  // Prepares measuring (subscribes to CUPTI, allocates the L2 flush buffer...). Throws
  // NoGpuError, CuptiBusyError, CudaError. After start() returns, stop() must be called.
  virtual void start(const Options& options) = 0;
  // Waits for the GPU and returns every measurement completed since the previous call.
  virtual std::vector<Measurement> collect() = 0;
  // Releases everything start() took. Never throws; safe to call twice.
  virtual void stop() noexcept = 0;

  // Called before and after every run of the benchmark (a backend may open a session, or drain
  // a buffer that fills up).
  virtual void before_run(std::size_t /*config*/) {}
  virtual void after_run() {}
  // Whether the engine collects after every config (the activity flush costs ~0.6 ms), or only
  // when the sweep ends or a stopping rule needs the values (the range profiler's collection
  // ends a profiler session).
  virtual bool collects_per_config() const { return true; }

  // Whether the engine calls the benchmark once per config, unmeasured, before the first run
  // (range replay: to learn how deep the regions nest; counters: to size sessions for the runs).
  virtual bool wants_unmeasured_calls() const { return user_replay(); }
  // After the unmeasured call of `config`, which opened `regions` regions: forget what it
  // launched, and return the ranges a run of it takes in a user-replay session (one per
  // region in range replay, one per kernel launch in application replay).
  virtual std::size_t unmeasured_call_done(std::size_t /*config*/, std::size_t regions) {
    return regions;
  }

  // --- user replay: the engine runs the benchmark once per pass ---------------------------
  // Whether this backend needs the engine to repeat the work once per pass (range and
  // application replay).
  virtual bool user_replay() const { return false; }
  // Ranges one session can hold: the engine ends a session before it would overflow.
  virtual std::size_t session_capacity() const { return 0; }
  // The ranges the run that just ended took, given the regions it opened.
  virtual std::size_t ranges_of_run(std::size_t regions) const { return regions; }
  // A run took `ranges` ranges: later sessions make room for runs that wide.
  virtual void fit_run(std::size_t /*ranges*/) {}
  // Starts a session whose regions nest at most `depth` deep.
  virtual void begin_session(int /*depth*/) {}
  // How many times a session of `depth` nesting levels runs its work (for progress messages).
  virtual int passes_per_session(int depth) const { return depth; }
  virtual void begin_pass() {}
  // Returns true when every pass of the session has run; collect() then decodes it.
  virtual bool end_pass() { return true; }

  // Wall time the last profile spent inside CUPTI's range profiler (SessionInfo); NaN for a
  // backend without it. Valid after stop().
  virtual double profiler_seconds() const { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace kprof::detail
