// A measurement kind of its own pass, added as docs/architecture.md says ("Adding a measurement
// kind"): a toy kind registered here, measuring nothing but how often it called the benchmark,
// goes through every layer (the engine, aggregation, the rows, the JSON and CSV files) as a
// real one (set:flop's counts, source-level sampling) would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/measure/engine.hpp"
#include "core/measure/extra_pass.hpp"
#include "kprof/annotate.hpp"
#include "scripted_backend.hpp"

namespace {

using kprof::Annotation;
using kprof::Record;
using kprof::Sweep;
using kprof::Value;
using kprof::detail::ExtraPass;
using kprof::detail::ExtraPassInputs;
using kprof::detail::SweepServices;

const std::string kToyMetric = "toy__calls.sum";
int toy_calls = 0;  // the benchmark calls the toy pass made, over the process

// Calls the benchmark once per config; gives every kernel the measured runs recorded the
// number of the config's call (1-based) as its value.
class ToyPass final : public ExtraPass {
 public:
  bool wanted(const kprof::Options& options, const SweepServices&) const override {
    return std::find(options.metrics.begin(), options.metrics.end(), kToyMetric) !=
           options.metrics.end();
  }
  kprof::detail::PassOutput measure(const ExtraPassInputs& in) override {
    std::map<std::size_t, int> calls;
    for (std::size_t c = 0; c < in.sweep.size(); ++c) {
      in.body(c, 0);
      ++toy_calls;
      calls[c] = static_cast<int>(c) + 1;
      if (in.poll) in.poll();
    }
    std::vector<Record> out;
    for (const Record& m : in.measured) {
      if (m.metric != "gpu__time_duration.sum") continue;
      Record r = m;
      r.metric = kToyMetric;
      r.value = calls[m.config];
      r.unit = "";
      r.start_ns = r.end_ns = r.stream = -1;
      out.push_back(r);
    }
    return {out, {}};
  }
};

[[maybe_unused]] const bool kRegistered =
    kprof::detail::register_extra_pass("toy", [] { return std::make_unique<ToyPass>(); });

Sweep two_configs() { return Sweep().axis("n", {Value(std::int64_t{1}), Value(std::int64_t{2})}); }

kprof::Results profile_with(const std::vector<std::string>& metrics,
                            kprof::testing::ScriptedBackend& gpu, int& benchmark_calls) {
  kprof::Options o = kprof::testing::quiet(3);
  o.metrics = metrics;
  return kprof::detail::run_sweep(
      gpu, o, two_configs(),
      [&](std::size_t, int) {
        ++benchmark_calls;
        Annotation a("region");
        gpu.launch("kern", 1000);
      },
      {}, SweepServices{});
}

}  // namespace

TEST(ExtraPass, AKindRegistersByNameBesideSetFlop) {
  const std::vector<std::string> names = kprof::detail::extra_pass_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "flop"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "toy"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));  // the order the engine runs them
}

TEST(ExtraPass, AToyKindGoesThroughTheEngineTheRowsAndTheFiles) {
  kprof::testing::ScriptedBackend gpu;
  int benchmark_calls = 0;
  const int toy_before = toy_calls;
  const kprof::Results r =
      profile_with({"gpu__time_duration.sum", kToyMetric}, gpu, benchmark_calls);
  // 3 runs and the unprofiled call of each of 2 configs, then one call per config of the pass,
  // after the backend gave back what it kept.
  EXPECT_EQ(toy_calls - toy_before, 2);
  EXPECT_EQ(benchmark_calls, 2 * 3 + 2 + 2);
  int rows = 0;
  for (const kprof::Row& row : r.rows()) {
    if (row.metric != kToyMetric) continue;
    ++rows;
    EXPECT_EQ(row.annotation, "region");
    EXPECT_DOUBLE_EQ(row.mean, static_cast<double>(row.config + 1));
    EXPECT_EQ(row.num_runs, 3);
  }
  EXPECT_EQ(rows, 2);
  // The files carry it as they carry any measured metric.
  EXPECT_EQ(kprof::Results::from_json(r.to_json()), r);
  const auto dir = std::filesystem::temp_directory_path() / "kprof-extra-pass-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  (void)r.write_csv((dir / "t-").string(), "toy");
  const kprof::Results csv = kprof::Results::read_csv((dir / "t-").string(), "toy");
  EXPECT_EQ(std::count_if(csv.rows().begin(), csv.rows().end(),
                          [](const kprof::Row& row) { return row.metric == kToyMetric; }),
            2);
  std::filesystem::remove_all(dir);
}

TEST(ExtraPass, AKindTheOptionsDoNotAskForNeverCallsTheBenchmark) {
  kprof::testing::ScriptedBackend gpu;
  int benchmark_calls = 0;
  const int toy_before = toy_calls;
  const kprof::Results r = profile_with({"gpu__time_duration.sum"}, gpu, benchmark_calls);
  EXPECT_EQ(toy_calls, toy_before);
  EXPECT_EQ(benchmark_calls, 2 * 3 + 2);
  for (const kprof::Row& row : r.rows()) EXPECT_NE(row.metric, kToyMetric);
}
