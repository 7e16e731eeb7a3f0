// The loop of the backends that run the benchmark once per pass (range and application
// replay): every (config, run) of the sweep, pass-major, in sessions the counter data can hold.
// A session's profiler costs are paid once per session rather than once per run (measured on
// the H200: ~2.5 ms per pass, ~10 ms per later session; the first Start costs in proportion to
// the session's capacity: docs/metrics.md).
#pragma once

#include <cstddef>
#include <vector>

#include "core/measure/backend.hpp"
#include "core/measure/sweep_runs.hpp"
#include "core/measure/unmeasured_calls.hpp"

namespace kprof::detail {

// What the loop asks of the profiler between passes.
class PassSessions {
 public:
  virtual ~PassSessions() = default;
  // Ranges one session can hold: a session ends before it would overflow.
  virtual std::size_t session_capacity() const = 0;
  // A run of the first pass ended, having opened `regions` regions: returns the ranges it
  // took (one per region in range replay, one per launch in application replay); later
  // sessions make room for runs that wide.
  virtual std::size_t run_done(std::size_t regions) = 0;
  // Starts a session whose regions nest at most `depth` deep.
  virtual void begin_session(int depth) = 0;
  // How many times a session of `depth` nesting levels runs its work (for progress messages).
  virtual int passes_per_session(int depth) const = 0;
  virtual void begin_pass() = 0;
  // Returns true when every pass of the session has run.
  virtual bool end_pass() = 0;
  // The measurements of the session whose passes all ran.
  virtual std::vector<Measurement> decode() = 0;
};

// Runs every (config, run) once per pass, session by session: a session takes the next run
// while its config's width (calls.ranges) fits. The first pass is measured as any run; later
// passes must open the same regions. A config whose unmeasured call failed starts a session of
// its own, where its error is raised.
void run_passes(SweepRuns& runs, PassSessions& sessions, UnmeasuredCalls& calls);

}  // namespace kprof::detail
