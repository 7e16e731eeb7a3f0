// The result layout (kprof/layout.hpp): every column names a field that exists, the reserved
// names are every column of the tables, and the context rows say what a session records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "kprof/detail/result_fields.hpp"
#include "kprof/layout.hpp"
#include "kprof/options.hpp"

using namespace kprof;

namespace {

template <class T, class Fields>
std::set<std::string> field_names(Fields fields) {
  std::set<std::string> names;
  const T blank{};
  fields(blank, [&](const char* name, const auto&) { names.insert(name); });
  return names;
}

// The fields of each table's item.
std::set<std::string> item_fields(ResultTable table) {
  using namespace fields;
  switch (table) {
    case ResultTable::rows:
      return field_names<Row>(row_fields);
    case ResultTable::samples:
    case ResultTable::samples_file:
      return field_names<Sample>(sample_fields);
    case ResultTable::records:
    case ResultTable::records_file:
      return field_names<Record>(record_fields);
    case ResultTable::runs:
      return field_names<RunInfo>(run_fields);
    case ResultTable::configs_file:
      return field_names<ConfigInfo>(config_fields);
    case ResultTable::info_file:
      return field_names<InfoValue>(info_fields);
    case ResultTable::analysis:
      return field_names<RegionAnalysis>(analysis_fields);
    case ResultTable::imbalance:
      return field_names<Imbalance>(imbalance_fields);
    case ResultTable::comparison:
      return field_names<ComparedRow>(compared_fields);
    case ResultTable::stalls:
      return field_names<StallShare>(stall_fields);
    case ResultTable::source:
      return field_names<SourceSample>(source_fields);
    case ResultTable::instructions:
      return field_names<InstructionShare>(instruction_fields);
  }
  return {};
}

const ContextRow* find(const std::vector<ContextRow>& rows, const std::string& label) {
  const auto it =
      std::find_if(rows.begin(), rows.end(), [&](const ContextRow& r) { return r.label == label; });
  return it == rows.end() ? nullptr : &*it;
}

}  // namespace

TEST(Layout, EveryColumnNamesAFieldOfItsSource) {
  const auto session = field_names<SessionInfo>(fields::session_fields);
  const auto run = field_names<RunInfo>(fields::run_fields);
  for (const ResultTable table : kResultTables) {
    const auto items = item_fields(table);
    ASSERT_FALSE(result_columns(table).empty()) << to_string(table);
    for (const ResultColumn& c : result_columns(table)) {
      const std::string where = std::string(to_string(table)) + "." + std::string(c.name);
      if (c.source == ColumnSource::collectors) {
        EXPECT_EQ(c.kind, ColumnKind::info) << where;
        continue;
      }
      const auto& fields = c.source == ColumnSource::session ? session
                           : c.source == ColumnSource::run   ? run
                                                             : items;
      EXPECT_TRUE(fields.count(std::string(c.field))) << where << " reads " << c.field;
      EXPECT_EQ(c.name.empty(), c.kind == ColumnKind::parameters || c.kind == ColumnKind::info)
          << where;
    }
  }
}

TEST(Layout, ReservedNamesAreEveryColumnOfTheTables) {
  // nsight-python's RESERVED_COLUMN_NAMES and kprof's own columns.
  const std::set<std::string> expected{"Annotation",
                                       "Value",
                                       "Metric",
                                       "Kernel",
                                       "GPU",
                                       "Host",
                                       "ComputeClock",
                                       "MemoryClock",
                                       "Unit",
                                       "AvgValue",
                                       "StdDev",
                                       "MinValue",
                                       "MaxValue",
                                       "NumRuns",
                                       "CI95_Lower",
                                       "CI95_Upper",
                                       "RelativeStdDevPct",
                                       "StableMeasurement",
                                       "Geomean",
                                       "Normalized",
                                       "NormalizationValue",
                                       "Median",
                                       "KernelIndex",
                                       "Backend",
                                       "ReplayMode",
                                       "CacheControl",
                                       "Passes",
                                       "RunsDone",
                                       "StoppedBy",
                                       "MeasuredClock",
                                       "Temperature",
                                       "ThrottledRuns",
                                       "Run",
                                       "Config",
                                       "ClockEventReasons",
                                       "Throttled",
                                       "Seconds",
                                       "ThermalPause",
                                       "GpuStart",
                                       "GpuEnd",
                                       "Stream",
                                       "Kind",
                                       "Bytes",
                                       "ProfilingOverhead",
                                       "Rank",
                                       "Device"};
  const auto& reserved = reserved_column_names();
  EXPECT_EQ(std::set<std::string>(reserved.begin(), reserved.end()), expected);
  EXPECT_EQ(reserved.size(), expected.size());  // each once
}

TEST(Layout, ContextRowsOfAFullSession) {
  SessionInfo s;
  s.gpu = "NVIDIA H200";
  s.device = 0;
  s.host = "vm";
  s.compute_clock_khz = 1980000;
  s.memory_clock_khz = 3201000;
  s.backend = "cupti-range-profiler";
  s.replay_mode = "application";
  s.passes = 8;
  s.cache_control = "all";
  s.clock_control = "none";
  s.runs = 3;
  s.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
  s.kprof_version = "0.1.0";
  s.cuda_driver_version = "13.0";
  s.cuda_runtime_version = "13.0";
  s.cupti_version = "130001";
  s.started_at = "2026-11-30T11:59:24Z";
  s.thermal_mode = "auto";
  s.clock_source = "counters";
  s.profiler_seconds = 0.31625873300000007;
  s.throttle_threshold = 0.75;
  const auto rows = context_rows(s);
  std::vector<std::string> labels, brief;
  for (const ContextRow& r : rows) {
    labels.push_back(r.label);
    if (r.brief) brief.push_back(r.label);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"GPU", "host", "date", "backend", "cache control",
                                              "clock control", "runs", "metrics measured",
                                              "versions", "thermal mode", "clock source",
                                              "profiler seconds", "throttle threshold"}));
  EXPECT_EQ(brief, (std::vector<std::string>{"GPU", "host", "date", "backend", "cache control",
                                             "clock control", "runs", "versions"}));
  EXPECT_EQ(find(rows, "GPU")->text,
            "NVIDIA H200 (device 0), rated clocks: SM 1980 MHz, memory 3201 MHz");
  EXPECT_EQ(find(rows, "backend")->text, "cupti-range-profiler (replay application, 8 passes)");
  EXPECT_EQ(find(rows, "runs")->text, "3 per config");
  EXPECT_EQ(find(rows, "metrics measured")->text, "gpu__time_duration.sum, dram__bytes_read.sum");
  EXPECT_EQ(find(rows, "versions")->text,
            "kprof 0.1.0, CUDA driver 13.0, CUDA runtime 13.0, CUPTI 13.0.1");
  EXPECT_EQ(find(rows, "profiler seconds")->text, "0.3163");  // 4 significant digits
  EXPECT_EQ(find(rows, "throttle threshold")->text, "0.75");
}

TEST(Layout, ContextRowsLeaveOutWhatASessionDoesNotRecord) {
  // A file written before the conditions existed reads with SessionInfo's defaults: of those,
  // only the runs asked for (one) are a fact.
  const auto defaults = context_rows(SessionInfo{});
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(defaults[0].label + "=" + defaults[0].text, "runs=1 per config");
  SessionInfo s;
  s.gpu = "NVIDIA H200";
  s.runs = 0;  // a stopping rule decided
  s.stop_rel_half_width = 0.01;
  s.stop_min_runs = 5;
  s.stop_max_runs = 100;
  const auto rows = context_rows(s);
  std::vector<std::string> labels;
  for (const ContextRow& r : rows) labels.push_back(r.label + "=" + r.text);
  EXPECT_EQ(labels, (std::vector<std::string>{"GPU=NVIDIA H200", "stop rel half width=0.01",
                                              "stop min runs=5", "stop max runs=100"}));
}

// A rank of a launched job says which; a process of its own says nothing of ranks.
TEST(Layout, ContextRowsTellTheRankOfALaunchedJob) {
  SessionInfo s;
  s.rank = 2;
  s.world_size = 4;
  s.local_rank = 2;
  s.launcher = "torchrun";
  const auto rows = context_rows(s);
  ASSERT_NE(find(rows, "rank"), nullptr);
  EXPECT_EQ(find(rows, "rank")->text, "rank 2 of 4 (local rank 2, torchrun)");
  EXPECT_TRUE(find(rows, "rank")->brief);
  EXPECT_EQ(find(context_rows(SessionInfo{}), "rank"), nullptr);
}

TEST(Layout, ContextRowsKeepACuptiVersionThatIsNoNumber) {
  SessionInfo s;
  s.cupti_version = "13.0 (torch)";
  s.cuda_driver_version = "13.0";
  ASSERT_NE(find(context_rows(s), "versions"), nullptr);
  EXPECT_EQ(find(context_rows(s), "versions")->text, "CUDA driver 13.0, CUPTI 13.0 (torch)");
}

TEST(Layout, TheContextLineSaysWhereInOneLineAndLeavesOutWhatTheSessionLacks) {
  SessionInfo s;
  s.gpu = "NVIDIA H200";
  s.host = "vm";
  s.backend = "cupti-activity";
  s.cache_control = "all";
  s.clock_control = "none";
  s.started_at = "2026-11-30T06:14:11Z";
  s.runs = 20;
  EXPECT_EQ(context_line(s), "NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30");
  EXPECT_EQ(context_line(s, true),
            "NVIDIA H200 · vm · cupti-activity · cache all · 2026-11-30 · 20 runs");
  s.clock_control = "base";
  s.runs = 0;  // a stopping rule decided the runs
  s.host.clear();
  EXPECT_EQ(context_line(s, true),
            "NVIDIA H200 · cupti-activity · cache all · clocks base · 2026-11-30");
  EXPECT_EQ(context_line(SessionInfo{}), "");
}
