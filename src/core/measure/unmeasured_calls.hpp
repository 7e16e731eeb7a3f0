// With hardware counters the benchmark is called once per config, unmeasured, before the first
// run: CUPTI needs the nesting depth of user ranges and the capacity of a session's counter
// data before the session starts, and a session's first Start costs in proportion to that
// capacity, so sessions are sized to what the runs need (docs/architecture.md, "Departures").
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "core/measure/sweep_runs.hpp"

namespace kprof::detail {

class UnmeasuredCalls {
 public:
  // What the backend makes of one call of `config` that opened `regions` regions: it forgets
  // what the call launched and returns the ranges a run of the config takes in a session. It
  // may throw MeasurementError for work it cannot measure.
  using Done = std::function<std::size_t(std::size_t config, std::size_t regions)>;

  // Makes the calls. A config whose call fails (the user's function, or work the backend
  // cannot measure) stops the calls; its error is raised when the sweep reaches it, so that the
  // configs before it are measured. Config 0's failure, and any other error (a CUDA error, an
  // interrupt), is raised at once.
  UnmeasuredCalls(SweepRuns& runs, const Done& done);

  // The deepest nesting of regions in any call (1 without nesting).
  int depth() const { return depth_; }
  // The ranges a run of `config` takes, as its call counted them or a run widened them.
  std::size_t ranges(std::size_t config) const { return ranges_[config]; }
  // A run of `config` took `ranges`: later sessions make room for runs that wide.
  void widen(std::size_t config, std::size_t ranges);
  // Whether the call of `config` failed, or came after the one that did.
  bool failed(std::size_t config) const {
    return failure_.second != nullptr && config >= failure_.first;
  }
  // Raises the failed call's error when the sweep reaches its config.
  void raise_if_failed(std::size_t config) const;

 private:
  void defer_failure(std::size_t config);

  int depth_ = 1;
  std::vector<std::size_t> ranges_;
  std::pair<std::size_t, std::exception_ptr> failure_;  // the first call that failed
};

}  // namespace kprof::detail
