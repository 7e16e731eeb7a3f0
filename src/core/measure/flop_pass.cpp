#include "core/measure/flop_pass.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "core/measure/extra_pass.hpp"
#include "core/measure/region_pass.hpp"
#include "core/measure/region_tracker.hpp"
#include "core/say.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// Stops counting however the pass ends.
class CounterScope {
 public:
  explicit CounterScope(InstructionCounter& counter) : counter_(counter) {}
  ~CounterScope() { counter_.disable(); }
  CounterScope(const CounterScope&) = delete;
  CounterScope& operator=(const CounterScope&) = delete;

 private:
  InstructionCounter& counter_;
};

}  // namespace

std::vector<RegionFlop> count_flop(InstructionCounter& counter, const Sweep& sweep,
                                   const RunBody& body, const std::function<void()>& poll) {
  if (!RegionTracker::instance().profiling())
    throw Error("kprof internal error: count_flop outside a profile");
  const CounterScope scope(counter);
  RegionProbe probe;
  probe.take = [&counter] {
    FunctionValues out;
    for (const auto& [function, classes] : counter.take())
      out[function].assign(classes.begin(), classes.end());
    return out;
  };
  probe.discard = [&counter] { counter.discard(); };
  counter.enable();
  std::vector<RegionFlop> out;
  for (RegionValues& region :
       take_per_region(probe, sweep, body, poll, "its call counting FLOP (set:flop)")) {
    RegionFlop& flop =
        out.emplace_back(RegionFlop{region.config, std::move(region.annotation), {}});
    for (const auto& [function, values] : region.functions) {
      FlopCounts& counts = flop.functions[function];
      std::copy_n(values.begin(), std::min(values.size(), counts.size()), counts.begin());
    }
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
    const PassProfile profile;
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
  PassOutput measure(const ExtraPassInputs& in) override {
    const std::unique_ptr<InstructionCounter> counter = in.services.instruction_counter();
    // The progress display has ended: a sweep's counted calls take a while of their own.
    say(in.options, Verbosity::info,
        "set:flop: counting FP instructions in one more call of each of the " +
            std::to_string(in.sweep.size()) +
            " config(s) (each kernel patched at its first launch)");
    return {flop_pass_records(*counter, in.sweep, in.body, in.measured,
                              traits_of(in.options.replay_mode).whole_region, in.options.metrics,
                              in.poll, in.warn),
            {}};
  }
};

[[maybe_unused]] const bool kRegistered =
    register_extra_pass("flop", [] { return std::make_unique<FlopPass>(); });

}  // namespace

}  // namespace kprof::detail
