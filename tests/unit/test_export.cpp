// Google Benchmark's JSON from the H200 recordings in tests/data: what its tools/compare.py and
// dashboards read (names, repetitions, aggregates, real_time in the unit asked for, counters).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "kprof/errors.hpp"
#include "kprof/export.hpp"
#include "kprof/results.hpp"

namespace {

using Json = nlohmann::json;
const std::string kData = KPROF_TEST_DATA;
const std::string kCounters = kData + "/h200-python-counters-2026-11-30.json";

TEST(GoogleBenchmarkJson, ARepetitionPerRunAndTheAggregatesOfEachRow) {
  const kprof::Results results = kprof::Results::read_json(kCounters);
  const Json doc = Json::parse(kprof::to_google_benchmark_json(results, "us"));
  EXPECT_EQ(doc["context"]["host_name"], results.session().host);
  EXPECT_EQ(doc["context"]["gpu"], "NVIDIA H200");
  const Json& benchmarks = doc["benchmarks"];
  // Every row of the duration gives a mean, a median and a stddev aggregate.
  std::size_t aggregates = 0, iterations = 0;
  for (const Json& b : benchmarks) (b["run_type"] == "aggregate" ? aggregates : iterations)++;
  std::size_t duration_rows = 0;
  for (const kprof::Row& r : results.rows())
    if (r.metric == kprof::kDurationMetric) ++duration_rows;
  EXPECT_EQ(aggregates, 3 * duration_rows);
  EXPECT_EQ(iterations, static_cast<std::size_t>(results.session().runs) * duration_rows);
  // The first benchmark against the first duration row and its runs.
  const kprof::Row* row = nullptr;
  for (const kprof::Row& r : results.rows())
    if (r.metric == kprof::kDurationMetric && !row) row = &r;
  ASSERT_NE(row, nullptr);
  const std::string name = benchmarks[0]["name"];
  EXPECT_EQ(name.rfind(row->annotation + "/", 0), 0u) << name;
  EXPECT_NE(name.find("/n:"), std::string::npos) << name;
  for (const Json& b : benchmarks) {
    EXPECT_EQ(b["time_unit"], "us");
    EXPECT_EQ(b["real_time"], b["cpu_time"]);
    if (b["name"] != name + "_mean") continue;
    EXPECT_NEAR(b["real_time"].get<double>(), row->mean / 1e3, 1e-9 * row->mean);
    EXPECT_EQ(b["aggregate_name"], "mean");
    EXPECT_EQ(b["repetitions"], row->num_runs);
    EXPECT_TRUE(b.contains("dram__bytes_read.sum"));  // the other metrics are counters
  }
}

TEST(GoogleBenchmarkJson, TimeUnitsAndWhatCannotBeExported) {
  const kprof::Results results = kprof::Results::read_json(kCounters);
  const Json ns = Json::parse(kprof::to_google_benchmark_json(results));
  const Json ms = Json::parse(kprof::to_google_benchmark_json(results, "ms"));
  EXPECT_NEAR(ns["benchmarks"][0]["real_time"].get<double>(),
              1e6 * ms["benchmarks"][0]["real_time"].get<double>(), 1e-6);
  EXPECT_THROW(kprof::to_google_benchmark_json(results, "minutes"), kprof::OptionError);
  const kprof::Results normalized =
      kprof::Results::read_json(kData + "/h200-python-normalized-2026-11-30.json");
  EXPECT_THROW(kprof::to_google_benchmark_json(normalized), kprof::FormatError);
}

// A failed run (NaN) is no repetition: Google Benchmark's readers know no missing time.
TEST(GoogleBenchmarkJson, AFailedRunIsLeftOut) {
  const std::string demo = kData + "/h200-python-demo-2026-11-30.json";
  std::string text = (std::ostringstream() << std::ifstream(demo).rdbuf()).str();
  const std::size_t samples = text.find("\"samples\"");
  const std::size_t first = text.find("\"value\":[", samples) + 9;
  text.replace(first, text.find(',', first) - first, "null");
  const kprof::Results results = kprof::Results::from_json(text);
  const kprof::Sample& failed = results.samples().front();
  ASSERT_TRUE(std::isnan(failed.value));
  const std::string exported = kprof::to_google_benchmark_json(results);
  EXPECT_EQ(exported.find("null"), std::string::npos);
  const Json doc = Json::parse(exported);
  const int runs = results.session().runs;
  int repetitions = -1, kept = 0;
  for (const Json& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    if (name.rfind(failed.annotation + "/", 0) != 0 || b["run_type"] != "iteration") continue;
    if (b["repetitions"].get<int>() == runs - 1) {
      repetitions = runs - 1;
      ++kept;
    }
  }
  EXPECT_EQ(repetitions, runs - 1);
  EXPECT_EQ(kept, runs - 1);
}

TEST(GoogleBenchmarkJson, TheExportCommandWritesOrSaysWhyNot) {
  const auto out = std::filesystem::temp_directory_path() / "kprof-export-test.json";
  auto done = kprof::testing::kprof_cli({"export", kCounters, "--out", out.string()});
  EXPECT_EQ(done.code, 0) << done.err;
  EXPECT_EQ(Json::parse(std::ifstream(out))["benchmarks"].size(),
            Json::parse(
                kprof::to_google_benchmark_json(kprof::Results::read_json(kCounters)))["benchmarks"]
                .size());
  std::filesystem::remove(out);
  done = kprof::testing::kprof_cli({"export", kCounters, "--format", "csv"});
  EXPECT_EQ(done.code, 2);
  EXPECT_NE(done.err.find("--format=csv is not valid; valid: google-benchmark"), std::string::npos)
      << done.err;
  done = kprof::testing::kprof_cli({"export", kData + "/h200-python-normalized-2026-11-30.json"});
  EXPECT_EQ(done.code, 2);
  EXPECT_NE(done.err.find("normalized"), std::string::npos) << done.err;
}

}  // namespace
