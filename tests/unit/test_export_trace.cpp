// The Chrome trace of results whose kernels carry GPU timestamps: the trace event format (ph,
// ts, dur, pid, tid, names), a track per stream, and every kernel slice inside the slice of its
// region, its run and its config.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kprof/errors.hpp"
#include "kprof/export.hpp"
#include "kprof/results.hpp"

namespace {

using Json = nlohmann::json;

// Two configs of two runs; region "outer" holds "outer/inner"'s kernel and one of its own, on
// streams 7 and 13.
kprof::Results timed_results() {
  std::vector<kprof::Record> records;
  const std::string d(kprof::kDurationMetric);
  std::int64_t t = 1'000'000'000;
  for (std::size_t c = 0; c < 2; ++c)
    for (int run = 0; run < 2; ++run) {
      const std::int64_t a = t, b = t + 5'000, e = t + 9'000;
      records.push_back({c, run, "outer", "k_inner", 0, d, 4000, "ns", a, a + 4'000, 7});
      records.push_back({c, run, "outer", "k_own", 1, d, 4000, "ns", b, e, 13});
      records.push_back({c, run, "outer/inner", "k_inner", 0, d, 4000, "ns", a, a + 4'000, 7});
      t += 20'000;
    }
  kprof::Options options;
  options.combine = kprof::CombineKind::sum;
  kprof::SessionInfo session;
  session.gpu = "NVIDIA H200";
  return kprof::Results::aggregate(session, kprof::Sweep().axis("n", {1, 2}), records, options);
}

struct Slice {
  std::string name, cat;
  int tid;
  double ts, dur;
};

std::vector<Slice> slices(const Json& doc) {
  std::vector<Slice> out;
  for (const Json& e : doc["traceEvents"]) {
    EXPECT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e.contains("tid") && e.contains("ts") && e.contains("dur")) << e.dump();
    out.push_back({e["name"], e["cat"], e["tid"], e["ts"], e["dur"]});
  }
  return out;
}

bool inside(const Slice& k, const Slice& around) {
  return k.ts >= around.ts && k.ts + k.dur <= around.ts + around.dur + 1e-9;
}

}  // namespace

TEST(ChromeTrace, EveryKernelLiesInsideItsRegionRunAndConfig) {
  const Json doc = Json::parse(kprof::to_chrome_trace_json(timed_results()));
  const std::vector<Slice> all = slices(doc);
  int kernels = 0, regions = 0, runs = 0, configs = 0;
  for (const Slice& s : all) {
    kernels += s.cat == "kernel";
    regions += s.cat == "annotation";
    runs += s.cat == "run";
    configs += s.cat == "config";
  }
  EXPECT_EQ(kernels, 8);  // each kernel once, not once per region that holds it
  EXPECT_EQ(regions, 8);  // 2 regions x 2 runs x 2 configs
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(configs, 2);
  EXPECT_EQ(all.front().ts, 0);          // from the first kernel
  EXPECT_EQ(all.front().cat, "config");  // the outermost slice first
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].cat != "kernel") continue;
    const bool in_config = std::any_of(all.begin(), all.end(), [&](const Slice& s) {
      return s.cat == "config" && inside(all[i], s);
    });
    const bool in_region = std::any_of(all.begin(), all.end(), [&](const Slice& s) {
      return s.cat == "annotation" && inside(all[i], s);
    });
    EXPECT_TRUE(in_config && in_region) << all[i].name << " at " << all[i].ts;
  }
  // The inner region nests in the outer one; the kernels sit on their streams' tracks.
  std::vector<std::string> tracks;
  for (const Json& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.push_back(e["args"]["name"]);
  EXPECT_EQ(tracks,
            (std::vector<std::string>{"configs and runs", "annotations", "stream 7", "stream 13"}));
  const auto own =
      std::find_if(all.begin(), all.end(), [](const Slice& s) { return s.name == "k_own"; });
  EXPECT_DOUBLE_EQ(own->ts, 5.0);  // microseconds
  EXPECT_DOUBLE_EQ(own->dur, 4.0);
}

TEST(ChromeTrace, ResultsWithoutTimestampsAreAFormatErrorThatSaysWhy) {
  kprof::Results untimed = kprof::Results::aggregate(
      kprof::SessionInfo{}, kprof::Sweep(), {{0, 0, "r", "k", 0, "dram__bytes_read.sum", 1.0, "B"}},
      kprof::Options{});
  try {
    (void)kprof::to_chrome_trace_json(untimed);
    FAIL() << "no FormatError";
  } catch (const kprof::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU timestamps"), std::string::npos) << e.what();
  }
}

TEST(ChromeTrace, TheCommandWritesTheTraceAndSaysWhereToOpenIt) {
  const auto dir = std::filesystem::temp_directory_path() / "kprof-trace-test";
  std::filesystem::create_directories(dir);
  const std::string saved = (dir / "timed.json").string();
  timed_results().write_json(saved);
  const std::string trace = (dir / "trace.json").string();
  const auto o = kprof::testing::kprof_cli({"export", saved, "--trace", trace});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("ui.perfetto.dev"), std::string::npos) << o.out;
  EXPECT_EQ(slices(Json::parse(std::ifstream(trace))).size(), 22u);
  std::filesystem::remove_all(dir);
}

// Recordings of the H200 (tests/data): every kernel inside its annotation's, run's and
// config's slices, times from 0; one metric, no nesting: a slice per record.
void expect_every_kernel_inside_its_slices(const std::string& file) {
  const kprof::Results r = kprof::Results::read_json(std::string(KPROF_TEST_DATA) + "/" + file);
  const Json doc = Json::parse(kprof::to_chrome_trace_json(r));
  const std::vector<Slice> all = slices(doc);
  std::size_t kernels = 0;
  for (const Slice& k : all) {
    if (k.cat != "kernel") continue;
    ++kernels;
    EXPECT_GE(k.ts, 0);
    EXPECT_GT(k.dur, 0);
    for (const char* around : {"annotation", "run", "config"})
      EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                              [&](const Slice& s) { return s.cat == around && inside(k, s); }))
          << file << ": " << k.name << " outside every " << around;
  }
  EXPECT_EQ(kernels, r.records().size()) << file;
}

// The demo sweep: 45 kernels of 9 configs x 5 runs on one stream.
TEST(ChromeTrace, TheH200DemoRecordingDrawsEveryKernelInsideItsSlices) {
  expect_every_kernel_inside_its_slices("h200-demo-timed-2026-12-03.json");
}

// The seed sweep: torch fp32 matmul n = 512..4096, 10 runs, cuBLAS's split-K kernels summed.
TEST(ChromeTrace, TheH200SeedSweepDrawsEveryKernelInsideItsSlices) {
  expect_every_kernel_inside_its_slices("h200-seed-sweep-timed-2026-12-03.json");
}
