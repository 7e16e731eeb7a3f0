// Hardware counters in application replay (replay_mode="application", Nsight Compute's
// --replay-mode application): values per kernel as in kernel replay (auto ranges), passes as
// in range replay (the benchmark runs once per pass). With cache_control="all" the flush before
// every kernel runs in every pass, so every pass of every kernel starts with a cold L2, which
// CUPTI's kernel replay before 13.4 cannot give its later passes. Each flush is an auto range of
// its own, measured and dropped. Every pass must launch the same kernels in the same order:
// auto ranges are paired with the first pass's launches by their order.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/measure/backend_registry.hpp"
#include "core/measure/range_passes.hpp"
#include "core/measure/region_tracker.hpp"
#include "cuda/backends/user_replay.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

class ApplicationReplay final : public UserReplay {
 public:
  explicit ApplicationReplay(const Options& options) : UserReplay(options) {}
  void start(const Options& options) override;

 private:
  std::size_t call_done(std::size_t config, std::size_t regions) override;
  void check_launch_order(const std::vector<Launch>& launches);

  std::size_t run_done(std::size_t regions) override;
  void begin_session(int depth) override;
  int passes_per_session(int) const override { return counters_.profiler().passes(); }
  void begin_pass() override;
  bool end_pass() override;
  std::vector<Measurement> decode() override;

  std::size_t logged_before_run_ = 0;          // launches logged when the run began
  std::vector<Launch> first_pass_launches_;    // auto range i of every pass measured launch i
  std::vector<std::string> first_pass_order_;  // launch_order of the first pass
};

[[maybe_unused]] const bool kRegistered =
    register_backend(ReplayMode::application,
                     [](const Options& o) { return std::make_unique<ApplicationReplay>(o); });

}  // namespace

void ApplicationReplay::start(const Options& options) {
  // The regions are only numbered (for messages): the kernels are the ranges.
  start_counting(options, {[this](RegionId id, const std::string& path, std::size_t) {
                             if (in_pass()) regions_.open(id, path, /*nests=*/false);
                           },
                           nullptr});
}

// A range per launch, and one per flush the runs add.
std::size_t ApplicationReplay::call_done(std::size_t config, std::size_t /*regions*/) {
  const std::vector<Launch> launches = counters_.take_launches();
  // CUPTI fails the Stop of auto ranges under user replay after a graph launch: said before
  // any pass runs.
  if (graph_launched(launches))
    throw MeasurementError(graph_launch_with_auto_ranges(
        "application", "a CUDA graph was launched in the unmeasured call of config " +
                           std::to_string(config + 1)));
  const std::size_t ranges = ranges_of_run(launches, counters_.flush_plan().before_kernels);
  capacity_.fit(ranges);
  return ranges;
}

std::size_t ApplicationReplay::run_done(std::size_t /*regions*/) {
  const std::size_t logged = counters_.attribution().launches_logged();
  const std::size_t ranges = logged - std::min(logged, logged_before_run_);
  logged_before_run_ = logged;
  capacity_.fit(ranges);
  return ranges;
}

void ApplicationReplay::begin_session(int /*depth*/) {
  counters_.profiler().begin_session(RangeProfiler::Mode::auto_range_user_replay,
                                     capacity_.ranges());
  regions_.begin_session();
  first_pass_launches_.clear();
  first_pass_order_.clear();
}

void ApplicationReplay::begin_pass() {
  logged_before_run_ = 0;
  UserReplay::begin_pass();
}

bool ApplicationReplay::end_pass() {
  std::vector<Launch> launches = counters_.take_launches();
  regions_.check_kernels(launches, counters_);
  check_launch_order(launches);
  const bool graph = graph_launched(launches);
  if (regions_.pass() == 0) first_pass_launches_ = std::move(launches);
  try {
    return counters_.profiler().end_pass();
  } catch (const CudaError& e) {
    counters_.raise_failed_stop(e.what(), graph);
  }
}

// Auto ranges pair with launches by their order: kernels outside annotations count too.
void ApplicationReplay::check_launch_order(const std::vector<Launch>& launches) {
  if (regions_.pass() == 0) {
    first_pass_order_ = regions_.launch_order(launches);
    return;
  }
  if (regions_.launch_order(launches) == first_pass_order_) return;
  const auto count = [](const std::vector<Launch>& log) {
    return std::to_string(
        std::count_if(log.begin(), log.end(), [](const Launch& l) { return !l.flush; }));
  };
  const std::string now = count(launches), first = count(first_pass_launches_);
  throw MeasurementError(regions_.pass_prefix(ReplayMode::application) + "the benchmark launched " +
                         now +
                         (now == first ? " kernel(s) in another order than in the first pass"
                                       : " kernel(s), in the first pass " + first) +
                         " (kernels outside annotations included: each is a range of the pass); "
                         "the benchmark must launch the same kernels in every pass, in the same "
                         "order");
}

std::vector<Measurement> ApplicationReplay::decode() {
  return counters_.kernel_measurements(counters_.profiler().decode(), first_pass_launches_);
}

}  // namespace kprof::detail
