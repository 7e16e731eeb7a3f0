// Hardware counters in range replay (replay_mode="range"): one user range per annotation
// (nested annotations nest), one value per region. The benchmark runs once per pass, and CUPTI
// repeats each pass once per nesting level. cache_control="all" flushes the L2 before every
// top-level region in every pass, before its range opens (whatever runs inside a range is
// counted; the profiler's serialisation keeps the flush out of it).
#include <memory>
#include <string>
#include <vector>

#include "core/measure/backend_registry.hpp"
#include "core/measure/range_passes.hpp"
#include "core/measure/region_tracker.hpp"
#include "cuda/backends/user_replay.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

class RangeReplay final : public UserReplay {
 public:
  explicit RangeReplay(const Options& options) : UserReplay(options) {}
  void start(const Options& options) override;

 private:
  std::size_t call_done(std::size_t config, std::size_t regions) override;
  void on_region_open(RegionId id, const std::string& path, std::size_t depth);
  void on_region_close(RegionId id);

  std::size_t run_done(std::size_t regions) override;
  void begin_session(int depth) override;
  int passes_per_session(int depth) const override { return counters_.profiler().passes() * depth; }
  bool end_pass() override;
  std::vector<Measurement> decode() override;

  int session_depth_ = 1;  // nesting levels the session profiles
};

[[maybe_unused]] const bool kRegistered = register_backend(
    ReplayMode::range, [](const Options& o) { return std::make_unique<RangeReplay>(o); });

}  // namespace

void RangeReplay::start(const Options& options) {
  start_counting(options, {[this](RegionId id, const std::string& path, std::size_t depth) {
                             on_region_open(id, path, depth);
                           },
                           [this](RegionId id) { on_region_close(id); }});
}

// A range per region.
std::size_t RangeReplay::call_done(std::size_t /*config*/, std::size_t regions) {
  (void)counters_.take_launches();
  capacity_.fit(regions);
  return regions;
}

std::size_t RangeReplay::run_done(std::size_t regions) {
  capacity_.fit(regions);
  return regions;
}

void RangeReplay::begin_session(int depth) {
  counters_.profiler().begin_session(RangeProfiler::Mode::user_replay, capacity_.ranges(), depth);
  session_depth_ = depth;
  regions_.begin_session();
}

bool RangeReplay::end_pass() {
  regions_.check_kernels(counters_.take_launches(), counters_);
  return counters_.profiler().end_pass();
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
  if (depth == 1 && counters_.flush_plan().before_ranges) counters_.flush().flush_before_range();
  counters_.profiler().push_range(std::to_string(regions_.open(id, path, /*nests=*/true)));
}

void RangeReplay::on_region_close(RegionId id) {
  if (!in_pass() || !regions_.close(id)) return;
  counters_.profiler().pop_range();
}

// A range counts only when it, or a range nested in it, launched a kernel; the others are
// reported by the engine as annotations that launched nothing.
std::vector<Measurement> RangeReplay::decode() {
  const std::vector<RangeValues> ranges = counters_.profiler().decode();
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
               (k.empty() ? std::string("(unnamed kernel)") : counters_.demangled(k));
    Measurement m = counters_.measurement(regions[n], "", 0, range.values);
    m.kernel = names;
    m.whole_region = true;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace kprof::detail
