// `kprof compare` and `kprof report`, run in-process on the H200 recordings in tests/data.
// The "slower" file is derived from a recording by scaling its raw durations and aggregating
// them again with the core; it is written to a temporary folder and named as derived test data.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli_runner.hpp"
#include "core/results/aggregate.hpp"

using namespace kprof;

namespace {

const std::string kData = KPROF_TEST_DATA;
const std::string kDemo = kData + "/h200-python-demo-2026-11-30.json";
const std::string kPerKernel = kData + "/h200-python-per-kernel-2026-11-30.json";

using kprof::testing::kprof_cli;
using kprof::testing::Outcome;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t lines_of(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The demo recording with the durations of annotation `slowed` multiplied by `factor`,
// aggregated again by the core and saved under a temporary folder. Derived test data.
std::string derived_demo(const std::string& slowed, double factor) {
  const Results demo = Results::read_json(kDemo);
  std::vector<Record> records = demo.records();
  for (Record& r : records)
    if (r.annotation == slowed) r.value *= factor;
  SessionInfo session = demo.session();
  session.host = "derived test data (h200-python-demo-2026-11-30.json, not a measurement)";
  Options o;
  o.combine = CombineKind::sum;  // the demo's "memory" region holds two kernels
  const Results derived = detail::aggregate(session, demo.sweep(), records, o);
  const auto dir = std::filesystem::temp_directory_path() / "kprof-cli-compare";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / ("derived-" + std::to_string(factor) + ".json")).string();
  derived.write_json(path);
  return path;
}

// ---- compare ---------------------------------------------------------------------------------

TEST(CliCompare, ARecordingAgainstItselfExitsZero) {
  const Outcome o = kprof_cli({"compare", kDemo, kDemo});
  EXPECT_EQ(o.code, cli::kExitOk) << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_TRUE(contains(o.out,
                       "16 compared: 0 slower, 0 faster, 0 higher, 0 lower, 16 same, 0 "
                       "not enough runs; 0 only in BASE, 0 only in NEW"))
      << o.out;
  EXPECT_TRUE(contains(o.out, "BASE  " + kDemo +
                                  "  NVIDIA H200, cupti-activity, cache all, "
                                  "2026-11-30T06:14:11Z"))
      << o.out;
}

TEST(CliCompare, SomethingSlowerExitsOne) {
  const std::string slower = derived_demo("memory/add", 1.10);
  const Outcome o = kprof_cli({"compare", kDemo, slower});
  EXPECT_EQ(o.code, cli::kExitFailure) << o.out << o.err;
  EXPECT_TRUE(contains(o.out,
                       "memory/add    4194304  fp32   gpu__time_duration.sum     18.92    20.82  "
                       "  +10.00%         no  0.00794  exact         5        5  slower   us"))
      << o.out;
  // At n = 2^20 one of the five recorded runs is an outlier (6976 ns against ~5.7 us): the
  // runs overlap after a 10% shift and the test cannot tell them apart.
  EXPECT_TRUE(contains(o.out,
                       "memory/add    1048576  fp32   gpu__time_duration.sum     6.029    6.632  "
                       "  +10.00%        yes   0.0952  exact         5        5  same     us"))
      << o.out;
  // Only memory/add's own records were scaled; the enclosing "memory" region is unchanged.
  EXPECT_TRUE(contains(o.out, "8 compared: 1 slower, 0 faster, 0 higher, 0 lower, 7 same"))
      << o.out;
  // The derived file has no throughput (no derive function): those rows are BASE's only.
  EXPECT_TRUE(contains(o.out, "only in BASE (8):")) << o.out;
}

TEST(CliCompare, SomethingFasterExitsZero) {
  const std::string faster = derived_demo("memory/add", 0.90);
  const Outcome o = kprof_cli({"compare", kDemo, faster, "--metric", "gpu__time_duration.sum"});
  EXPECT_EQ(o.code, cli::kExitOk) << o.out << o.err;
  EXPECT_TRUE(contains(o.out, "-10.00%")) << o.out;
  EXPECT_TRUE(contains(o.out, "0 slower, 1 faster")) << o.out;
  EXPECT_FALSE(contains(o.out, "only in BASE (")) << o.out;
}

TEST(CliCompare, ThresholdTurnsAChangeIntoSame) {
  const std::string slower = derived_demo("memory/add", 1.10);
  const Outcome o = kprof_cli({"compare", kDemo, slower, "--threshold", "15"});
  EXPECT_EQ(o.code, cli::kExitOk) << o.out;
  EXPECT_TRUE(contains(o.out, "|change| >= 15%")) << o.out;
}

TEST(CliCompare, MetricFilterCommaSeparated) {
  const Outcome o = kprof_cli({"compare", kDemo, kDemo, "--metric=throughput"});
  EXPECT_EQ(o.code, cli::kExitOk) << o.err;
  EXPECT_TRUE(contains(o.out, "8 compared:")) << o.out;
  EXPECT_FALSE(contains(o.out, "gpu__time_duration.sum")) << o.out;
  const Outcome both =
      kprof_cli({"compare", kDemo, kDemo, "--metric", "throughput,gpu__time_duration.sum"});
  EXPECT_TRUE(contains(both.out, "16 compared:")) << both.out;
}

TEST(CliCompare, UsageErrorsExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"compare"}, "kprof compare: missing argument BASE (expected BASE NEW)"},
      {{"compare", kDemo}, "kprof compare: missing argument NEW (expected BASE NEW)"},
      {{"compare", kDemo, kDemo, kDemo}, "unexpected argument '" + kDemo + "'; expected BASE NEW"},
      {{"compare", kDemo, kDemo, "--threshold", "abc"},
       "kprof compare: --threshold=abc is not valid; valid: a number"},
      {{"compare", kDemo, kDemo, "--threshold", "-1"},
       "kprof compare: --threshold=-1 is not valid; valid: a percentage >= 0"},
      {{"compare", kDemo, kDemo, "--alpha", "1.5"},
       "kprof compare: --alpha=1.5 is not valid; valid: a number between 0 and 1"},
      {{"compare", kDemo, kDemo, "--metric", "gpu__time_duration.max"},
       "kprof compare: --metric='gpu__time_duration.max' is not valid; valid: "
       "'gpu__time_duration.sum' or 'throughput'"},
      {{"compare", kDemo, kDemo, "--treshold", "5"}, "(did you mean '--threshold'?)"},
      {{"compare", kDemo, "/nonexistent/new.json"},
       "kprof compare: cannot read NEW: /nonexistent/new.json"},
  };
  for (const Case& c : cases) {
    const Outcome o = kprof_cli(c.args);
    EXPECT_EQ(o.code, cli::kExitUsage) << c.message;
    EXPECT_TRUE(contains(o.err, c.message)) << o.err;
    EXPECT_TRUE(contains(o.err, "usage: kprof compare BASE NEW [--threshold PCT]")) << o.err;
    EXPECT_EQ(o.out, "");
  }
}

TEST(CliCompare, NothingComparedExitsTwoWithOneLineSayingWhy) {
  // Plain durations against ratios: a CI gate that compared nothing must not pass.
  const Outcome o =
      kprof_cli({"compare", kDemo, kData + "/h200-python-normalized-2026-11-30.json"});
  EXPECT_EQ(o.code, cli::kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "kprof compare: nothing to compare: the 8 rows found in both cannot be compared (not "
            "normalized in BASE, normalized against 'memory/scale' in NEW); valid: results whose "
            "rows have convertible units and are normalized the same way (or not at all) in "
            "both\n");
  // No row in both: another sweep.
  const Outcome other = kprof_cli({"compare", kDemo, kPerKernel});
  EXPECT_EQ(other.code, cli::kExitUsage);
  EXPECT_EQ(lines_of(other.err), 1u) << other.err;
  EXPECT_TRUE(contains(other.err,
                       "kprof compare: nothing to compare: no row of BASE has a counterpart in "
                       "NEW ("))
      << other.err;
}

TEST(CliCompare, HelpNeedsNoFiles) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"compare", "--help"}, {"help", "compare"}}) {
    const Outcome o = kprof_cli(args);
    EXPECT_EQ(o.code, cli::kExitOk);
    EXPECT_TRUE(contains(o.out,
                         "usage: kprof compare BASE NEW [--threshold PCT] [--alpha A] "
                         "[--metric NAME]"))
        << o.out;
    EXPECT_TRUE(contains(o.out, "Exit code 0 when nothing got slower, 1 when something did"));
  }
  const Outcome list = kprof_cli({});
  EXPECT_TRUE(contains(list.out, "  compare ")) << list.out;
  EXPECT_TRUE(contains(list.out, "  report ")) << list.out;
}

// ---- report ----------------------------------------------------------------------------------

TEST(CliReport, PrintsTheSessionAndTheTable) {
  const Outcome o = kprof_cli({"report", kPerKernel});
  EXPECT_EQ(o.code, cli::kExitOk) << o.err;
  for (const std::string& line :
       {"file           " + kPerKernel,
        std::string("GPU            NVIDIA H200 (device 0), rated clocks: SM 1980 MHz, memory "
                    "3201 MHz"),
        std::string("host           vm"), std::string("date           2026-11-30T06:14:11Z"),
        std::string("backend        cupti-activity (replay kernel, 1 pass)"),
        std::string("cache control  all"), std::string("clock control  none"),
        std::string("runs           5 per config"),
        std::string("versions       kprof 0.1.0, CUDA driver 13.0, CUDA runtime 13.0, CUPTI "
                    "13.0.1")})
    EXPECT_TRUE(contains(o.out, line + "\n")) << line << "\n" << o.out;
  EXPECT_TRUE(contains(o.out, Results::read_json(kPerKernel).table())) << o.out;
}

TEST(CliReport, SessionContextLeavesOutUnknownFacts) {
  SessionInfo s;
  s.gpu = "NVIDIA H200";
  s.runs = 0;
  const auto context = cli::session_context(s);
  ASSERT_EQ(context.size(), 1u);
  EXPECT_EQ(context[0], (std::vector<std::string>{"GPU", "NVIDIA H200"}));
}

TEST(CliReport, PlotHtmlAndRooflineNeedPython) {
  for (const char* option : {"--plot", "--html", "--roofline", "--metric"}) {
    const Outcome o = kprof_cli({"report", kDemo, option, "out.x"});
    EXPECT_EQ(o.code, cli::kExitUsage);
    EXPECT_EQ(o.err, std::string("kprof report: ") + option +
                         " needs the Python package: run `python3 -m kprof.cli report ...`\n");
    EXPECT_EQ(o.out, "");
  }
  const Outcome both = kprof_cli({"report", kDemo, "--plot", "a.png", "--html", "b.html"});
  EXPECT_EQ(both.err,
            "kprof report: --plot and --html need the Python package: run `python3 -m kprof.cli "
            "report ...`\n");
}

TEST(CliReport, TheOptionsThatPythonHandlesAreMarkedInTheOneTable) {
  std::vector<std::string> python_only;
  for (const cli::OptionSpec& o : cli::command_options("report"))
    if (o.python_only) python_only.push_back(o.name);
  EXPECT_EQ(python_only, (std::vector<std::string>{"--plot", "--html", "--roofline", "--metric"}));
  EXPECT_EQ(cli::command_synopsis("report"),
            "kprof report FILE [--explain] [--stalls] [--source] [--plot PATH] [--html PATH] "
            "[--roofline PATH] "
            "[--metric NAME[,NAME...]] [--force]");
  EXPECT_TRUE(cli::command_options("no-such-command").empty());
}

TEST(CliReport, ExplainSaysWhatLimitsEachRegionOfAnH200Recording) {
  const Outcome o = kprof_cli({"report", kData + "/h200-analysis-2026-12-03.json", "--explain"});
  EXPECT_EQ(o.code, cli::kExitOk) << o.err;
  for (const char* part :
       {"Bound", "Busiest unit", "matmul16: High Throughput\n", "small_grid: Small Grid\n",
        "softmax: Latency Issue\n", "Registers limit occupancy to 37.5% of the SM's warps."})
    EXPECT_TRUE(contains(o.out, part)) << part << "\n" << o.out;
}

TEST(CliReport, ExplainWithoutTheAnalysisSetNamesTheSetToAskFor) {
  const Outcome o = kprof_cli({"report", kDemo, "--explain"});
  EXPECT_EQ(o.code, cli::kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.substr(0, o.err.find('\n')),
            "kprof report: --explain: these results lack set:analysis's metrics (24 of its 25); "
            "profile with metrics=[\"set:analysis\"] (or `kprof demo --explain`)");
}

TEST(CliReport, StallsWithoutWarpSamplesNamesTheSetToAskFor) {
  const Outcome o = kprof_cli({"report", kDemo, "--stalls"});
  EXPECT_EQ(o.code, cli::kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_TRUE(contains(o.err, "kprof report: --stalls: metrics=")) << o.err;
  EXPECT_TRUE(contains(o.err, "metrics=[\"set:source\"]")) << o.err;
}

TEST(CliReport, ARowsNumbersAreWrittenLikeItsNeighbours) {
  // Two rows of math_op/second, a unit with no larger step: 7.4e14 and 1.6e15 read alike.
  const Outcome o = kprof_cli({"report", kData + "/h200-analysis-2026-12-03.json"});
  ASSERT_EQ(o.code, cli::kExitOk) << o.err;
  const std::string tensor = "sm__ops_path_tensor_src_fp16.sum.per_second ";
  std::string row;
  for (std::size_t at = o.out.find(tensor); at != std::string::npos && row.empty();
       at = o.out.find(tensor, at + 1)) {
    const std::string line = o.out.substr(at, o.out.find('\n', at) - at);
    if (contains(line, "e+14")) row = line;
  }
  ASSERT_FALSE(row.empty()) << o.out;
  for (const char* cell : {"  7.427e+14  7.419e+14  3.734e+12  ", "[7.335e+14, 7.52e+14]"})
    EXPECT_TRUE(contains(row, cell)) << cell << "\n" << row;
  EXPECT_FALSE(contains(o.out, "742743752145491")) << o.out;
  EXPECT_TRUE(contains(o.out, "1.645e+15")) << o.out;
}

TEST(CliReport, UnreadableFileExitsTwo) {
  const Outcome o = kprof_cli({"report", kData + "/README.md"});
  EXPECT_EQ(o.code, cli::kExitUsage);
  EXPECT_TRUE(contains(o.err, "kprof report: cannot read FILE: " + kData +
                                  "/README.md: not "
                                  "valid JSON"))
      << o.err;
  const Outcome none = kprof_cli({"report"});
  EXPECT_EQ(none.code, cli::kExitUsage);
  EXPECT_TRUE(contains(none.err, "missing argument FILE")) << none.err;
}

}  // namespace
