#include "cuda/range_replay.hpp"

#include <string>

#include "core/range_passes.hpp"
#include "core/region_tracker.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

void RangeReplay::start(const Options& options) {
  start_session(options, {.auto_ranges = false},
                {[this](RegionId id, const std::string& path, std::size_t depth) {
                   on_region_open(id, path, depth);
                 },
                 [this](RegionId id) { on_region_close(id); }});
}

// A range per region.
std::size_t RangeReplay::call_done(std::size_t /*config*/, std::size_t regions) {
  (void)session_.take_launches();
  capacity_.fit(regions);
  return regions;
}

std::size_t RangeReplay::run_done(std::size_t regions) {
  capacity_.fit(regions);
  return regions;
}

void RangeReplay::begin_session(int depth) {
  session_.profiler().begin_session(RangeProfiler::Mode::user_replay, capacity_.ranges(), depth);
  session_depth_ = depth;
  regions_.begin_session();
}

bool RangeReplay::end_pass() {
  regions_.check_kernels(session_.take_launches(), session_);
  return session_.profiler().end_pass();
}

void RangeReplay::on_region_open(RegionId id, const std::string& path, std::size_t depth) {
  if (!in_pass()) return;
  if (depth > static_cast<std::size_t>(session_depth_))
    throw MeasurementError("replay_mode='range': annotation '" + path + "' is nested " +
                           std::to_string(depth) + " deep, deeper than the " +
                           std::to_string(session_depth_) +
                           " levels found in the unmeasured call of each config, which the range "
                           "profiler was set up for; every run of a config must nest its "
                           "annotations as that call did");
  if (depth == 1 && session_.options().cache_control == CacheControl::all)
    session_.flush().flush_and_wait();
  session_.profiler().push_range(std::to_string(regions_.open(id, path, /*nests=*/true)));
}

void RangeReplay::on_region_close(RegionId id) {
  if (!in_pass() || !regions_.close(id)) return;
  session_.profiler().pop_range();
}

// A range counts only when it, or a range nested in it, launched a kernel; the others are
// reported by the engine as annotations that launched nothing.
std::vector<Measurement> RangeReplay::decode() {
  const std::vector<RangeValues> ranges = session_.profiler().decode();
  const auto& regions = regions_.first_pass_regions();
  const auto& kernels = regions_.first_pass_kernels();
  const std::vector<bool> launched = ranges_with_kernels(kernels, regions_.parent_range());
  std::vector<Measurement> out;
  for (const RangeValues& range : ranges) {
    const std::size_t n = range_index(range.name, regions.size());
    if (n >= regions.size() || n >= launched.size() || !launched[n]) continue;
    std::string names;
    for (const std::string& k : kernels[n])
      names += (names.empty() ? "" : "|") +
               (k.empty() ? std::string("(unnamed kernel)") : session_.demangled(k));
    Measurement m = session_.measurement(regions[n], "", 0, range.values);
    m.kernel = names;
    m.whole_region = true;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace kprof::detail
