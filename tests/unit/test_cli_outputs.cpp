// The files the `kprof` commands write (none is replaced without --force, each refusal reads
// the same), options that exclude each other, and what `demo` refuses before it looks for a
// GPU. Run in-process on the H200 recordings in tests/data; no GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli_fixtures.hpp"
#include "cli_runner.hpp"
#include "kprof/results.hpp"

using namespace kprof;
using namespace kprof::cli;
using namespace kprof::testing;

namespace {

const std::string kData = KPROF_TEST_DATA;
const std::string kDemo = kData + "/h200-python-demo-2026-11-30.json";
const std::string kRanks = kData + "/h200-ranks-torchrun-2026-12-04.json";

// A fresh folder under the system's temporary folder, removed when the test ends.
class Folder {
 public:
  explicit Folder(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("kprof_test_cli_outputs_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~Folder() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& text = "") const {
    const std::string p = (path_ / name).string();
    if (!text.empty()) std::ofstream(p) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The refusal every command gives for an existing output without --force.
void expect_exists_refusal(const Outcome& o, const std::string& command, const std::string& path) {
  EXPECT_EQ(o.code, kExitUsage) << o.out << o.err;
  EXPECT_EQ(o.out, "");
  ASSERT_FALSE(lines(o.err).empty());
  EXPECT_EQ(lines(o.err)[0],
            "kprof " + command + ": " + path + " exists; pass --force to replace it");
}

}  // namespace

TEST(CliOutputs, ExportOutRefusesAnExistingFileWithoutForce) {
  const Folder dir("export_out");
  const std::string out = dir.file("gb.json", "keep me");
  expect_exists_refusal(kprof_cli({"export", kDemo, "--out", out}), "export", out);
  EXPECT_EQ(read_all(out), "keep me");
  const Outcome forced = kprof_cli({"export", kDemo, "--out", out, "--force"});
  EXPECT_EQ(forced.code, kExitOk) << forced.err;
  EXPECT_NE(read_all(out).find("\"benchmarks\""), std::string::npos);
}

TEST(CliOutputs, ExportTraceRefusesAnExistingFileWithoutForce) {
  const Folder dir("export_trace");
  const std::string out = dir.file("trace.json", "keep me");
  expect_exists_refusal(kprof_cli({"export", kDemo, "--trace", out}), "export", out);
  EXPECT_EQ(read_all(out), "keep me");
}

TEST(CliOutputs, ExportTraceAndOutExcludeEachOther) {
  const Folder dir("export_both");
  const std::string trace = dir.file("trace.json"), out = dir.file("gb.json");
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--out", out}, {"--time-unit", "us"}, {"--format", "x"}}) {
    std::vector<std::string> args{"export", kDemo, "--trace", trace};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome o = kprof_cli(args);
    EXPECT_EQ(o.code, kExitUsage) << extra[0];
    EXPECT_EQ(lines(o.err).at(0), "kprof export: --trace and " + extra[0] +
                                      " cannot be given together: --trace PATH writes a Chrome "
                                      "trace, the others Google Benchmark's JSON; give one");
  }
  EXPECT_FALSE(std::filesystem::exists(trace));
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliOutputs, MergeRefusesAnOutputThatIsOneOfItsInputsEvenWithForce) {
  const Folder dir("merge_input");
  const std::string a = dir.file("a.json");
  const std::string b = dir.file("b.json");
  std::filesystem::copy_file(kDemo, a);
  std::filesystem::copy_file(kRanks, b);
  const std::string before = read_all(a);
  // The same file by another spelling of its path.
  const std::string other_spelling =
      (std::filesystem::path(a).parent_path() / "." / "a.json").string();
  const Outcome o = kprof_cli({"merge", a, b, "--out", other_spelling, "--force"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(lines(o.err).at(0), "kprof merge: --out " + other_spelling +
                                    " is one of the files read (" + a +
                                    "); write the output to another file");
  EXPECT_EQ(read_all(a), before);
}

TEST(CliOutputs, MergeRefusesAnExistingOutputTheSameWay) {
  const Folder dir("merge_exists");
  const std::string out = dir.file("all.json", "keep me");
  expect_exists_refusal(kprof_cli({"merge", kDemo, kRanks, "--out", out}), "merge", out);
  EXPECT_EQ(read_all(out), "keep me");
}

TEST(CliOutputs, MergeSaysOutIsRequiredAndItsSynopsisShowsIt) {
  const Outcome o = kprof_cli({"merge", kDemo, kRanks});
  EXPECT_EQ(o.code, kExitUsage);
  const auto l = lines(o.err);
  ASSERT_EQ(l.size(), 2u) << o.err;
  EXPECT_EQ(l[0],
            "kprof merge: missing --out PATH (required): the merged file to write (not one of "
            "the FILEs)");
  EXPECT_EQ(l[1], "usage: kprof merge FILE FILE... --out PATH [--force]");
}

TEST(CliOutputs, DemoRefusesAnExistingJsonBeforeLookingForAGpu) {
  const Folder dir("demo_json");
  const std::string out = dir.file("demo.json", "keep me");
  expect_exists_refusal(kprof_cli({"demo", "--json", out}), "demo", out);
  EXPECT_EQ(read_all(out), "keep me");
}

TEST(CliOutputs, DemoRefusesExistingCsvFilesOfItsPrefix) {
  const Folder dir("demo_csv");
  const std::string prefix = dir.file("run-");
  const std::string existing = dir.file("run-session-demo.csv", "keep me");
  expect_exists_refusal(kprof_cli({"demo", "--csv", prefix}), "demo", existing);
  EXPECT_EQ(Results::csv_paths(prefix, "demo").size(), 8u);
  EXPECT_EQ(Results::csv_paths(prefix, "demo").front(), prefix + "profiled_data-demo.csv");
}

TEST(CliOutputs, DemoRefusesAnEmptyMetricListBeforeLookingForAGpu) {
  for (const char* list : {",,", ",", " , "}) {
    const Outcome o = kprof_cli({"demo", "--metrics", list});
    EXPECT_EQ(o.code, kExitUsage) << list;
    EXPECT_EQ(lines(o.err).at(0),
              std::string("kprof demo: --metrics=") + list +
                  " is not valid; valid: comma-separated metric names or sets "
                  "(dram__bytes_read.sum,set:memory; `kprof metrics --sets` lists the sets)");
  }
}

TEST(CliOutputs, DemoRefusesAReplayModeWithoutCountersBeforeLookingForAGpu) {
  const Outcome o = kprof_cli({"demo", "--replay-mode", "range"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(lines(o.err).at(0),
            "kprof demo: --replay-mode=range is not valid without --metrics (or --explain): it "
            "says how hardware counters are measured, and durations need no replay; valid: "
            "--metrics LIST --replay-mode auto (default), kernel, range or application");
  EXPECT_FALSE(contains(o.err, "no GPU")) << o.err;
}

TEST(CliOutputs, ReportTakesAFileNameThatIsNotUtf8) {
  const std::string name = std::string("/nonexistent-kprof-dir/r\xff\xfe.json");
  const Outcome o = kprof_cli({"report", name});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_FALSE(contains(o.err, "internal error")) << o.err;
  EXPECT_EQ(lines(o.err).at(0).rfind("kprof report: cannot read FILE: " + name, 0), 0u) << o.err;
}
