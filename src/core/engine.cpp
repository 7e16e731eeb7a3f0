#include "core/engine.hpp"

#include <chrono>
#include <memory>

#include "core/aggregate.hpp"
#include "core/record_builder.hpp"
#include "core/region_tracker.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// Stops the backend and ends the tracker's profile on every exit path.
class SessionGuard {
 public:
  SessionGuard(Backend& backend, RegionTracker& tracker) : backend_(backend), tracker_(tracker) {}
  ~SessionGuard() {
    backend_.stop();
    tracker_.end_profile();
  }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;

 private:
  Backend& backend_;
  RegionTracker& tracker_;
};

class Sweeper {
 public:
  Sweeper(Backend& backend, const Options& options, const Sweep& sweep, const SweepHooks& hooks)
      : backend_(backend),
        options_(options),
        sweep_(sweep),
        hooks_(hooks),
        builder_(options, sweep),
        started_(std::chrono::steady_clock::now()) {}

  void run(const RunBody& body) {
    for (std::size_t c = 0; c < sweep_.size(); ++c) {
      if (hooks_.config_begin) hooks_.config_begin(c);
      for (int r = 0; r < options_.runs; ++r) run_once(body, c, r);
      // Activity buffers are flushed once per config, never per run: a flush costs ~0.6 ms.
      builder_.add_measurements(backend_.collect());
      builder_.flush(records_, /*require_kernels=*/true);
    }
  }

  std::vector<Record> take_records() { return std::move(records_); }

  // What was measured before a failure: the runs that completed, without the checks.
  std::vector<Record> salvage() noexcept {
    try {
      builder_.add_measurements(backend_.collect());
    } catch (...) {  // the GPU may be what failed; keep what is already here
    }
    try {
      builder_.flush(records_, /*require_kernels=*/false);
    } catch (...) {
    }
    return std::move(records_);
  }

 private:
  void run_once(const RunBody& body, std::size_t c, int r) {
    auto& tracker = RegionTracker::instance();
    if (hooks_.run_begin) hooks_.run_begin(c, r);
    tracker.begin_run(c, r);
    call_body(body, c, r);
    auto regions = tracker.end_run();
    if (c == 0 && r == 0) check_baseline_exists(regions);
    builder_.add_regions(std::move(regions));
    if (hooks_.run_end) hooks_.run_end(c, r);
    if (hooks_.progress) hooks_.progress({c, sweep_.size(), r + 1, options_.runs, elapsed_s()});
  }

  void call_body(const RunBody& body, std::size_t c, int r) {
    try {
      body(c, r);
    } catch (const Error&) {
      throw;  // kprof's own errors (an annotation used twice...) keep their type
    } catch (const std::exception& e) {
      throw UserFunctionError(where(c, r) + ": " + e.what(), c, r);
    } catch (...) {
      throw UserFunctionError(where(c, r) + ": an exception of unknown type", c, r);
    }
  }

  std::string where(std::size_t c, int r) const {
    return "the benchmark function failed in config " + std::to_string(c) + " (" +
           sweep_.config(c).to_string() + "), run " + std::to_string(r);
  }

  // normalize_against is checked as soon as the first run shows which annotations exist,
  // rather than after the whole sweep.
  void check_baseline_exists(const std::vector<RegionRun>& regions) const {
    const std::string& base = options_.normalize_against;
    if (base.empty()) return;
    std::string seen;
    for (const auto& r : regions) {
      if (r.path == base) return;
      seen += (seen.empty() ? "'" : ", '") + r.path + "'";
    }
    throw AnnotationError("normalize_against='" + base +
                          "' names no annotation of the first run; "
                          "annotations: " +
                          (seen.empty() ? std::string("none") : seen));
  }

  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  Backend& backend_;
  const Options& options_;
  const Sweep& sweep_;
  const SweepHooks& hooks_;
  RecordBuilder builder_;
  std::vector<Record> records_;
  std::chrono::steady_clock::time_point started_;
};

// Aggregates what a failed sweep measured. Derived metrics and normalization may not hold on
// partial data; then the rows are made without them rather than not at all.
std::shared_ptr<const Results> partial_results(const SessionInfo& session, const Sweep& sweep,
                                               std::vector<Record> records,
                                               const Options& options) {
  try {
    return std::make_shared<Results>(aggregate(session, sweep, records, options));
  } catch (...) {
  }
  Options plain = options;
  plain.normalize_against.clear();
  plain.derive = nullptr;
  try {
    return std::make_shared<Results>(aggregate(session, sweep, records, plain));
  } catch (...) {
  }
  return std::make_shared<Results>(session, sweep, std::move(records), std::vector<Sample>{},
                                   std::vector<Row>{});
}

}  // namespace

Results run_sweep(Backend& backend, const Options& options, const Sweep& sweep, const RunBody& body,
                  const SweepHooks& hooks) {
  SessionInfo session = backend.describe();
  session.runs = options.runs;
  auto& tracker = RegionTracker::instance();
  tracker.begin_profile();
  std::vector<Record> records;
  {
    SessionGuard guard(backend, tracker);
    backend.start(options);
    if (hooks.started) hooks.started(session);
    Sweeper sweeper(backend, options, sweep, hooks);
    try {
      sweeper.run(body);
    } catch (Error& e) {
      e.set_partial_results(partial_results(session, sweep, sweeper.salvage(), options));
      throw;
    }
    records = sweeper.take_records();
  }
  try {
    return aggregate(session, sweep, records, options);
  } catch (Error& e) {  // e.g. no baseline for a config: the measurements stay usable
    e.set_partial_results(partial_results(session, sweep, std::move(records), options));
    throw;
  }
}

}  // namespace kprof::detail
