#include "core/measure/flop_pass.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "core/measure/extra_pass.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// The regions open during a counted call, each given the counts taken while it is open.
class RegionCounts {
 public:
  RegionCounts(InstructionCounter& counter, std::vector<RegionFlop>& out)
      : counter_(counter), out_(out) {}

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
  // What ran after the last region closed is no region's; a failure to count in a hook (which
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
        counter_.discard();
      else
        add(counter_.take());
    } catch (...) {
      if (!failed_) failed_ = std::current_exception();
    }
  }
  void add(const std::map<std::string, FlopCounts>& counts) {
    for (const auto& [id, index] : open_) {
      auto& functions = out_[index].functions;
      for (const auto& [function, classes] : counts) add_counts(functions[function], classes);
    }
  }

  InstructionCounter& counter_;
  std::vector<RegionFlop>& out_;
  std::size_t config_ = 0;
  std::vector<std::pair<RegionId, std::size_t>> open_;  // region, index into out_
  std::exception_ptr failed_;
};

// Stops counting and hands the tracker's hooks back however the pass ends.
class PassScope {
 public:
  explicit PassScope(InstructionCounter& counter) : counter_(counter) {}
  ~PassScope() {
    counter_.disable();
    RegionTracker::instance().set_range_hooks({});
  }
  PassScope(const PassScope&) = delete;
  PassScope& operator=(const PassScope&) = delete;

 private:
  InstructionCounter& counter_;
};

// The region tracker in a profile of its own while the pass runs.
struct TrackerProfile {
  TrackerProfile() { RegionTracker::instance().begin_profile(); }
  ~TrackerProfile() { RegionTracker::instance().end_profile(); }
  TrackerProfile(const TrackerProfile&) = delete;
  TrackerProfile& operator=(const TrackerProfile&) = delete;
};

}  // namespace

std::vector<RegionFlop> count_flop(InstructionCounter& counter, const Sweep& sweep,
                                   const RunBody& body, const std::function<void()>& poll) {
  std::vector<RegionFlop> out;
  RegionCounts regions(counter, out);
  auto& tracker = RegionTracker::instance();
  if (!tracker.profiling()) throw Error("kprof internal error: count_flop outside a profile");
  const PassScope scope(counter);
  tracker.set_range_hooks(
      {[&](RegionId id, const std::string& path, std::size_t) { regions.opened(id, path); },
       [&](RegionId id) { regions.closing(id); }});
  counter.enable();
  for (std::size_t c = 0; c < sweep.size(); ++c) {
    regions.begin_call(c);
    tracker.begin_run(c, 0);
    // Not a measured run (as the unprofiled calls); a failure leaves the tracker's run to the
    // caller's end_profile().
    call_benchmark(body, c, -1, [&] {
      return describe_run(c, sweep.size(), sweep.config(c).to_string(), -1, 0) +
             ", its call counting FLOP (set:flop)";
    });
    regions.end_call();
    (void)tracker.end_run();
    if (poll) poll();
  }
  return out;
}

std::vector<std::string> flop_counts_in(const std::vector<std::string>& metrics) {
  std::vector<std::string> out;
  for (const std::string& m : metrics)
    if (flop_class_counted_by(m) != FlopClass::none) out.push_back(m);
  return out;
}

std::vector<Record> flop_pass_records(InstructionCounter& counter, const Sweep& sweep,
                                      const RunBody& body, const std::vector<Record>& measured,
                                      bool whole_regions, const std::vector<std::string>& metrics,
                                      const std::function<void()>& poll,
                                      const std::function<void(const std::string&)>& warn) {
  const std::vector<std::string> wanted = flop_counts_in(metrics);
  if (wanted.empty()) return {};
  std::vector<RegionFlop> counted;
  {
    const TrackerProfile profile;
    try {
      counted = count_flop(counter, sweep, body, poll);
    } catch (const UserFunctionError& e) {  // costs the counts, not the profile
      counted.clear();
      if (warn) warn(std::string(e.what()) + "; set:flop's counts are NaN");
    }
  }
  std::vector<Record> out;
  for (Record& r : flop_records(counted, measured, whole_regions))
    if (std::find(wanted.begin(), wanted.end(), r.metric) != wanted.end())
      out.push_back(std::move(r));
  return out;
}

namespace {

// set:flop as a measurement kind of its own pass: counted where its classes are asked for and
// the GPU layer gave an instruction counter.
class FlopPass final : public ExtraPass {
 public:
  bool wanted(const Options& options, const SweepServices& services) const override {
    return services.instruction_counter && !flop_counts_in(options.metrics).empty();
  }
  std::vector<Record> measure(const ExtraPassInputs& in) override {
    const std::unique_ptr<InstructionCounter> counter = in.services.instruction_counter();
    // The progress display has ended: a sweep's counted calls take a while of their own.
    say(in.options, Verbosity::info,
        "set:flop: counting FP instructions in one more call of each of the " +
            std::to_string(in.sweep.size()) +
            " config(s) (each kernel patched at its first launch)");
    return flop_pass_records(*counter, in.sweep, in.body, in.measured,
                             traits_of(in.options.replay_mode).whole_region, in.options.metrics,
                             in.poll, in.warn);
  }
};

[[maybe_unused]] const bool kRegistered =
    register_extra_pass("flop", [] { return std::make_unique<FlopPass>(); });

}  // namespace

}  // namespace kprof::detail
