// The result layout (kprof/layout.hpp): every column names a field that exists, and the
// reserved names are every column of the tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/result_fields.hpp"
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
  using namespace detail::fields;
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
  }
  return {};
}

}  // namespace

TEST(Layout, EveryColumnNamesAFieldOfItsSource) {
  const auto session = field_names<SessionInfo>(detail::fields::session_fields);
  const auto run = field_names<RunInfo>(detail::fields::run_fields);
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
                                       "ThermalPause"};
  const auto& reserved = reserved_column_names();
  EXPECT_EQ(std::set<std::string>(reserved.begin(), reserved.end()), expected);
  EXPECT_EQ(reserved.size(), expected.size());  // each once
}
