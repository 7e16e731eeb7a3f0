// The text table of results: its header line, columns, per-row scaling, alignment, and what it says
// of normalised results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "kprof/results.hpp"
#include "results_io_support.hpp"

namespace kprof {
namespace {

using namespace kprof::testing;

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

Parts table_parts() {
  Parts p;
  p.session = full_session();
  p.sweep = Sweep::list({"n", "dtype"}, {{std::int64_t{1024}, std::string("fp16")},
                                         {std::int64_t{4096}, std::string("fp32")}});
  Row r = row("gemm", 0, "gpu__time_duration.sum", 2680000);
  r.median = 2679000;
  r.stddev = 10000;
  r.ci95_lower = 2670000;
  r.ci95_upper = 2690000;
  r.rel_stddev_pct = 0.3731;
  r.num_runs = 10;
  r.kernel = "gemm_kernel";
  Row bytes = row("gemm", 1, "dram__bytes.sum", 1.5e9);
  bytes.unit = "byte";
  bytes.kernel = std::string(50, 'k');
  bytes.stddev = kNan;
  bytes.rel_stddev_pct = kNan;
  p.rows = {r, bytes};
  return p;
}

TEST(ResultsIoTable, HeaderLineAndColumns) {
  const auto lines = lines_of(table_parts().make().table());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "NVIDIA H200 | node-7 | backend cupti-activity | cache all | 3 runs");
  EXPECT_EQ(words(lines[1]),
            (std::vector<std::string>{"Annotation", "n", "dtype", "Metric", "Kernel", "Mean",
                                      "Median", "StdDev", "CI95", "RSD%", "Runs", "Unit"}));
}

TEST(ResultsIoTable, ValuesAreScaledPerRow) {
  const auto lines = lines_of(table_parts().make().table());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(words(lines[2]), (std::vector<std::string>{
                                 "gemm", "1024", "fp16", "gpu__time_duration.sum", "gemm_kernel",
                                 "2.68", "2.679", "0.01", "[2.67,", "2.69]", "0.4", "10", "ms"}));
  const auto bytes = words(lines[3]);
  ASSERT_EQ(bytes.size(), 13u);
  EXPECT_EQ(bytes[4], std::string(37, 'k') + "...");
  EXPECT_EQ(bytes[5], "1.5");
  EXPECT_EQ(bytes[7], "-");  // NaN StdDev
  EXPECT_EQ(bytes[8], "[1.455,");
  EXPECT_EQ(bytes[10], "-");
  EXPECT_EQ(bytes[12], "GB");
}

TEST(ResultsIoTable, MissingIntervalShowsAsDash) {
  Parts p = table_parts();
  p.rows[1].ci95_lower = p.rows[1].ci95_upper = kNan;
  const auto lines = lines_of(p.make().table());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(words(lines[3])[8], "-");
  EXPECT_EQ(words(lines[3])[9], "-");  // RSD%
}

TEST(ResultsIoTable, ColumnsAreAligned) {
  const auto lines = lines_of(table_parts().make().table());
  ASSERT_EQ(lines.size(), 4u);
  // Right-aligned numbers end where their header ends.
  const auto mean_end = lines[1].find("Mean") + 4;
  EXPECT_EQ(lines[2].substr(mean_end - 4, 4), "2.68");
  EXPECT_EQ(lines[3].substr(mean_end - 3, 3), "1.5");
  EXPECT_EQ(lines[2].find("gpu__time_duration.sum"), lines[1].find("Metric"));
  EXPECT_EQ(lines[3].find("dram__bytes.sum"), lines[1].find("Metric"));
}

TEST(ResultsIoTable, KernelIndexOnlyInPerKernelMode) {
  Parts p = table_parts();
  EXPECT_EQ(p.make().table().find("KernelIndex"), std::string::npos);
  p.rows[1].kernel_index = 3;
  const auto lines = lines_of(p.make().table());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(words(lines[1])[5], "KernelIndex");
  EXPECT_EQ(words(lines[3])[5], "3");
  EXPECT_EQ(words(lines[2])[5], "-1");
}

TEST(ResultsIoTable, NormalizedResultsSayAgainstWhat) {
  Parts p = table_parts();
  EXPECT_EQ(p.make().table().find("relative"), std::string::npos);
  p.rows[0].normalized_against = "torch";
  const auto lines = lines_of(p.make().table());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[1], "values relative to torch");
  p.rows[1].normalized_against = "torch";
  EXPECT_EQ(normalization_note(p.rows), "values relative to torch");  // each baseline once
  p.rows[1].normalized_against = "cublas";
  EXPECT_EQ(normalization_note(p.rows), "values relative to torch, cublas");
  EXPECT_EQ(normalization_note(table_parts().rows), "");
}

TEST(ResultsIoTable, StreamOperatorPrintsTheTable) {
  const Results r = table_parts().make();
  std::ostringstream out;
  out << r;
  EXPECT_EQ(out.str(), r.table());
  EXPECT_NE(out.str().find("2.68"), std::string::npos);
}

}  // namespace
}  // namespace kprof
