#include "core/measure/region_pass.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "core/measure/region_tracker.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// The regions open during a call, each given what is taken while it is open.
class RegionTakes {
 public:
  RegionTakes(const RegionProbe& probe, std::vector<RegionValues>& out)
      : probe_(probe), out_(out) {}

  void begin_call(std::size_t config) {
    config_ = config;
    open_.clear();
    give();  // what ran before the call is no region's
  }
  void opened(RegionId id, const std::string& path) {
    give();
    out_.push_back({config_, path, {}});
    open_.emplace_back(id, out_.size() - 1);
  }
  void closing(RegionId id) {
    give();
    const auto it = std::find_if(open_.begin(), open_.end(),
                                 [id](const auto& open) { return open.first == id; });
    open_.erase(it, open_.end());
  }
  // What ran after the last region closed is no region's; a failure to take in a hook (which
  // an annotation's destructor would swallow) is raised here.
  void end_call() {
    give();
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
  }

 private:
  // What ran since the last boundary, to the regions open; never throws: the first failure is
  // kept for end_call().
  void give() noexcept {
    try {
      if (open_.empty())
        probe_.discard();
      else
        add(probe_.take());
    } catch (...) {
      if (!failed_) failed_ = std::current_exception();
    }
  }
  void add(const FunctionValues& taken) {
    for (const auto& [id, index] : open_)
      for (const auto& [function, values] : taken)
        add_values(out_[index].functions[function], values);
  }

  const RegionProbe& probe_;
  std::vector<RegionValues>& out_;
  std::size_t config_ = 0;
  std::vector<std::pair<RegionId, std::size_t>> open_;  // region, index into out_
  std::exception_ptr failed_;
};

// Hands the tracker's hooks back however the calls end.
struct HooksScope {
  HooksScope() = default;
  ~HooksScope() { RegionTracker::instance().set_range_hooks({}); }
  HooksScope(const HooksScope&) = delete;
  HooksScope& operator=(const HooksScope&) = delete;
};

}  // namespace

PassProfile::PassProfile() { RegionTracker::instance().begin_profile(); }
PassProfile::~PassProfile() { RegionTracker::instance().end_profile(); }

std::vector<RegionValues> take_per_region(const RegionProbe& probe, const Sweep& sweep,
                                          const RunBody& body, const std::function<void()>& poll,
                                          const std::string& what) {
  std::vector<RegionValues> out;
  RegionTakes regions(probe, out);
  auto& tracker = RegionTracker::instance();
  if (!tracker.profiling()) throw Error("kprof internal error: a pass's call outside a profile");
  const HooksScope scope;
  tracker.set_range_hooks(
      {[&](RegionId id, const std::string& path, std::size_t) { regions.opened(id, path); },
       [&](RegionId id) { regions.closing(id); }});
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    regions.begin_call(c);
    tracker.begin_run(c, 0);
    // Not a measured run (as the unprofiled calls); a failure leaves the tracker's run to the
    // caller's end_profile().
    call_benchmark(body, c, -1, [&] {
      return describe_run(c, sweep.size(), sweep.config(c).to_string(), -1, 0) + ", " + what;
    });
    regions.end_call();
    (void)tracker.end_run();
    if (poll) poll();
  }
  return out;
}

}  // namespace kprof::detail
