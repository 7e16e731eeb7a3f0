// The `kprof` command line, run in-process with argv arrays; no GPU needed. Paths that would
// touch a GPU are checked on this machine only when it has none (as CI), else skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli_fixtures.hpp"
#include "cli_runner.hpp"
#include "kprof/errors.hpp"
#include "kprof/version.hpp"

using namespace kprof;
using namespace kprof::cli;

namespace {

using namespace kprof::testing;

bool machine_has_gpu() { return no_gpu_reason(query_system()).empty(); }

}  // namespace

// --- usage, version, dispatch ----------------------------------------------------------------

TEST(Cli, VersionPrintsTheLibraryVersion) {
  const Outcome o = kprof_cli({"--version"});
  EXPECT_EQ(o.code, kExitOk);
  EXPECT_EQ(o.out, std::string("kprof ") + kprof::version() + "\n");
  EXPECT_EQ(o.err, "");
}

TEST(Cli, NoArgumentsPrintsUsageListingOnlyTheCommandsThatExist) {
  const Outcome o = kprof_cli({});
  EXPECT_EQ(o.code, kExitOk);
  EXPECT_EQ(o.err, "");
  EXPECT_TRUE(contains(o.out, "usage: kprof <command> [options]")) << o.out;
  for (const char* command :
       {"devices", "doctor", "demo", "metrics", "report", "compare", "help", "--version"}) {
    EXPECT_TRUE(contains(o.out, std::string("  ") + command)) << command << "\n" << o.out;
  }
}

TEST(Cli, HelpFormsAllPrintTheSameUsage) {
  const std::string usage = kprof_cli({}).out;
  for (const std::vector<std::string>& form : std::vector<std::vector<std::string>>{
           {"help"}, {"--help"}, {"-h"}, {"help", "--help"}, {"help", "-h"}, {"help", "help"}}) {
    const Outcome o = kprof_cli(form);
    EXPECT_EQ(o.code, kExitOk) << form.back();
    EXPECT_EQ(o.out, usage) << form.back();
    EXPECT_EQ(o.err, "") << form.back();
  }
}

TEST(Cli, CommandHelpListsItsOptions) {
  const Outcome a = kprof_cli({"help", "demo"});
  const Outcome b = kprof_cli({"demo", "--help"});
  const Outcome c = kprof_cli({"demo", "-h"});
  EXPECT_EQ(a.code, kExitOk);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out, c.out);
  EXPECT_TRUE(contains(a.out, "usage: kprof demo [--runs N] [--csv PREFIX] [--json PATH]"))
      << a.out;
  for (const char* option : {"--runs N", "--csv PREFIX", "--json PATH", "-h, --help"}) {
    EXPECT_TRUE(contains(a.out, option)) << option;
  }
  EXPECT_TRUE(contains(kprof_cli({"help", "devices"}).out, "usage: kprof devices\n"));
  EXPECT_TRUE(contains(kprof_cli({"doctor", "--help"}).out, "usage: kprof doctor\n"));
}

TEST(Cli, UnknownCommandNamesItAndTheValidOnes) {
  const Outcome o = kprof_cli({"frobnicate"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(lines(o.err).front(),
            "kprof: unknown command 'frobnicate'; valid commands: devices, doctor, demo, metrics, "
            "report, compare, export, merge, help");
}

TEST(Cli, UnknownCommandSuggestsTheClosest) {
  EXPECT_TRUE(contains(kprof_cli({"devics"}).err, "(did you mean 'devices'?)"));
  EXPECT_TRUE(contains(kprof_cli({"docter"}).err, "(did you mean 'doctor'?)"));
  const Outcome o = kprof_cli({"help", "demos"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "unknown command 'demos' (did you mean 'demo'?)")) << o.err;
}

TEST(Cli, UnknownTopLevelOptionIsAUsageError) {
  const Outcome o = kprof_cli({"--verbose", "devices"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "unknown option '--verbose'")) << o.err;
  EXPECT_TRUE(contains(o.err, "--help, --version")) << o.err;
}

TEST(Cli, UnknownOptionNamesItTheClosestAndTheValidOnes) {
  const Outcome o = kprof_cli({"demo", "--runz", "3"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(o.out, "");
  const auto l = lines(o.err);
  ASSERT_EQ(l.size(), 2u) << o.err;
  EXPECT_EQ(l[0],
            "kprof demo: unknown option '--runz' (did you mean '--runs'?); valid options: "
            "--runs N, --csv PREFIX, --json PATH, --metrics LIST, --replay-mode MODE, --explain, "
            "--force, --help");
  EXPECT_EQ(l[1],
            "usage: kprof demo [--runs N] [--csv PREFIX] [--json PATH] [--metrics LIST] "
            "[--replay-mode MODE] [--explain] [--force]");
}

TEST(Cli, CommandsWithoutOptionsRejectAny) {
  for (const char* command : {"devices", "doctor"}) {
    const Outcome o = kprof_cli({command, "--json", "x.json"});
    EXPECT_EQ(o.code, kExitUsage) << command;
    EXPECT_TRUE(contains(o.err, std::string("kprof ") + command + ": unknown option '--json'"))
        << o.err;
    const Outcome p = kprof_cli({command, "extra"});
    EXPECT_EQ(p.code, kExitUsage) << command;
    EXPECT_TRUE(contains(p.err, "unexpected argument 'extra'")) << p.err;
  }
}

TEST(Cli, DemoRejectsBadRunsBeforeAnyGpuWork) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"demo", "--runs", "0"},
                                             {"demo", "--runs", "-3"},
                                             {"demo", "--runs", "abc"},
                                             {"demo", "--runs", "1.5"},
                                             {"demo", "--runs=10x"},
                                             {"demo", "--runs", "99999999999"}}) {
    const Outcome o = kprof_cli(args);
    EXPECT_EQ(o.code, kExitUsage) << args.back();
    EXPECT_EQ(o.out, "");
    EXPECT_TRUE(contains(lines(o.err).front(), "kprof demo: --runs=")) << o.err;
    EXPECT_TRUE(contains(o.err, "valid: an integer from 1 to")) << o.err;
  }
  const Outcome missing = kprof_cli({"demo", "--runs"});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_TRUE(contains(missing.err, "kprof demo: option --runs needs a value (--runs N)"))
      << missing.err;
  const Outcome empty = kprof_cli({"demo", "--runs="});
  EXPECT_EQ(empty.code, kExitUsage);
  EXPECT_TRUE(contains(empty.err, "needs a non-empty value")) << empty.err;
  const Outcome twice = kprof_cli({"demo", "--runs", "2", "--runs=3"});
  EXPECT_EQ(twice.code, kExitUsage);
  EXPECT_TRUE(contains(twice.err, "option --runs given twice")) << twice.err;
}

TEST(Cli, DemoRejectsOutputPathsItCannotWrite) {
  const std::string missing_dir = "/nonexistent-kprof-dir/x";
  Outcome o = kprof_cli({"demo", "--json", missing_dir + ".json"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "directory '/nonexistent-kprof-dir' does not exist")) << o.err;
  o = kprof_cli({"demo", "--csv", missing_dir + "-"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "kprof demo: --csv /nonexistent-kprof-dir/x-: directory")) << o.err;
  o = kprof_cli({"demo", "--json", std::filesystem::temp_directory_path().string()});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "is a directory; give a file name")) << o.err;
}

TEST(Cli, NumbersAreDecimalAndFinite) {
  EXPECT_EQ(parse_number("--alpha", "0.5"), 0.5);
  EXPECT_EQ(parse_number("--threshold", "2"), 2.0);
  EXPECT_EQ(parse_number("--alpha", "1e-3"), 1e-3);
  EXPECT_EQ(parse_number("--threshold", "-1"), -1.0);  // the command says what range is valid
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1e400", "nan", "inf", "1,5", "abc"}) {
    try {
      parse_number("--alpha", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--alpha=") + bad + " is not valid; valid: a number");
    }
  }
}

TEST(Cli, MainReadsArgvAndWritesToStdout) {
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  std::string program = "kprof", flag = "--version";
  char* argv[] = {program.data(), flag.data(), nullptr};
  const int code = kprof::cli::main(2, argv);
  std::cout.rdbuf(old);
  EXPECT_EQ(code, kExitOk);
  EXPECT_EQ(captured.str(), std::string("kprof ") + kprof::version() + "\n");
}

// --- this machine (CI has neither GPU nor driver) ------------------------------------------

TEST(CliHere, DevicesWorksAndSaysWhatItFound) {
  const SystemInfo sys = query_system();
  const Outcome o = kprof_cli({"devices"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(o.err, "");
  const std::string gpus = line_with(o.out, "GPUs");
  ASSERT_FALSE(gpus.empty()) << o.out;
  EXPECT_TRUE(contains(gpus, std::to_string(sys.devices.size()))) << gpus;
  if (!sys.driver_loaded) {
    EXPECT_EQ(line_with(o.out, "driver"), "driver        none: " + driver_problem(sys)) << o.out;
    EXPECT_TRUE(contains(o.out, "GPUs          0\n")) << o.out;
  }
}

TEST(CliHere, DoctorWithoutGpuFailsWithAReasonOnEveryLine) {
  if (machine_has_gpu()) GTEST_SKIP() << "this machine has a GPU: doctor would profile";
  const Outcome o = kprof_cli({"doctor"});
  EXPECT_EQ(o.code, kExitFailure);
  EXPECT_EQ(o.err, "");
  const auto l = lines(o.out);
  ASSERT_GE(l.size(), 10u) << o.out;
  EXPECT_TRUE(contains(l[0], "doctor on")) << l[0];
  // Line 1 is blank; then one line per check, then a blank line and the verdict.
  for (std::size_t i = 2; i < l.size() - 2; ++i) {
    const bool tagged =
        l[i].rfind("ok ", 0) == 0 || l[i].rfind("FAIL ", 0) == 0 || l[i].rfind("skip ", 0) == 0;
    EXPECT_TRUE(tagged) << l[i];
  }
  EXPECT_EQ(line_with(o.out, "timing").rfind("skip", 0), 0u) << o.out;
  EXPECT_TRUE(contains(l.back(), "kprof cannot time kernels on this machine: ")) << l.back();
}

TEST(CliHere, DemoWithoutGpuSaysSoOnOneLineAndExits2) {
  const SystemInfo sys = query_system();
  const std::string reason = no_gpu_reason(sys);
  if (reason.empty()) GTEST_SKIP() << "this machine has a GPU: demo would profile";
  const Outcome o = kprof_cli({"demo", "--runs", "2"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "kprof demo: no GPU available: " + reason + "\n");
}

// --- devices, from a SystemInfo ----------------------------------------------------------------

TEST(CliDevices, ListsEveryFactOfAGpu) {
  std::ostringstream out;
  print_system(h200(), out);
  const std::string s = out.str();
  EXPECT_TRUE(contains(s, "host          gpu-host\n")) << s;
  EXPECT_TRUE(contains(s, "driver        supports CUDA 13.0\n")) << s;
  EXPECT_TRUE(contains(s, "CUDA runtime  13.0 (kprof was built with it)\n")) << s;
  EXPECT_TRUE(contains(s, "CUPTI         13.0.1\n")) << s;  // where from: unknown
  EXPECT_TRUE(contains(s, "counters      permission yes (root)\n")) << s;
  EXPECT_TRUE(contains(s, "GPUs          1\n")) << s;
  const std::string header = line_with(s, "ordinal");
  EXPECT_EQ(
      header,
      "ordinal  name         cc   SMs  memory     L2      SM clock  memory clock  PCI bus id");
  EXPECT_EQ(line_with(s, "H200"),
            "0        NVIDIA H200  9.0  132  140.4 GiB  60 MiB  1980 MHz  3201 MHz      "
            "0000:3b:00.0");
}

TEST(CliDevices, CuptiSaysWhereItWasLoadedFrom) {
  SystemInfo sys = h200();
  sys.cupti_path = "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13";
  std::ostringstream out;
  print_system(sys, out);
  EXPECT_TRUE(contains(out.str(), "CUPTI         13.0.1 (" + sys.cupti_path + ")\n")) << out.str();
  const auto checks = doctor_checks(
      sys, [] { return measured(10.4); }, env_of({}));
  EXPECT_EQ(find_check(checks, "CUPTI").detail, "13.0.1 loads from " + sys.cupti_path);
}

TEST(CliDevices, NoDriverIsSaidPlainly) {
  std::ostringstream out;
  print_system(no_driver(), out);
  EXPECT_TRUE(contains(out.str(),
                       "driver        none: no NVIDIA driver found (libcuda.so.1 could not be "
                       "loaded)\n"))
      << out.str();
  EXPECT_TRUE(contains(out.str(), "GPUs          0\n"));
  EXPECT_FALSE(contains(out.str(), "ordinal"));

  // The runtime's wording ("missing or older than...") gives way to the plain statement when
  // the driver version is 0: libcuda.so.1 was not loaded at all.
  SystemInfo runtime_said = no_driver();
  runtime_said.driver_error =
      "no GPU available: the NVIDIA driver (libcuda.so.1) is missing or older than this CUDA "
      "runtime "
      "needs (cudaErrorInsufficientDriver from cudaGetDeviceCount).";
  EXPECT_EQ(driver_problem(runtime_said),
            "no NVIDIA driver found (libcuda.so.1 could not be loaded)");

  SystemInfo failed = no_driver();
  failed.driver_error = "query failed: uname";
  std::ostringstream out2;
  print_system(failed, out2);
  EXPECT_TRUE(contains(out2.str(), "driver        none: query failed: uname\n")) << out2.str();
}

TEST(CliDevices, NoGpuMessagesLoseTheirRepeatedStart) {
  EXPECT_EQ(strip_no_gpu_prefix("no GPU available: the driver is a stub (cudaErrorStubLibrary)."),
            "the driver is a stub (cudaErrorStubLibrary)");
  EXPECT_EQ(strip_no_gpu_prefix("kprof was built without CUDA"), "kprof was built without CUDA");
}

TEST(CliDevices, DriverWithoutDevicesSaysWhy) {
  SystemInfo sys = h200();
  sys.devices.clear();
  EXPECT_EQ(no_gpu_reason(sys, env_of({{"CUDA_VISIBLE_DEVICES", ""}})),
            "the NVIDIA driver shows no CUDA device (CUDA_VISIBLE_DEVICES=)");
  EXPECT_EQ(no_gpu_reason(sys, env_of({})), "the NVIDIA driver shows no CUDA device");
  std::ostringstream out;
  print_system(sys, out);
  EXPECT_TRUE(contains(out.str(), "GPUs          0: the NVIDIA driver shows no CUDA device"))
      << out.str();
  SystemInfo without_cuda;
  EXPECT_EQ(no_gpu_reason(without_cuda), "kprof was built without CUDA");
  EXPECT_EQ(no_gpu_reason(h200()), "");
}

TEST(CliFormat, Numbers) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(62914560), "60 MiB");
  EXPECT_EQ(format_bytes(150754820096), "140.4 GiB");
  EXPECT_EQ(format_clock(1980000), "1980 MHz");
  EXPECT_EQ(format_clock(1410500), "1410.5 MHz");
  EXPECT_EQ(format_clock(0), "-");
  EXPECT_EQ(format_cupti_version(130001), "13.0.1");
  EXPECT_EQ(format_cupti_version(131203), "13.12.3");
  EXPECT_EQ(format_cupti_version(28), "v28");
  EXPECT_EQ(format_cupti_version(0), "none");
  EXPECT_EQ(format_duration_ns(10400), "10.4 us");
  EXPECT_EQ(format_duration_ns(2.74e6), "2.74 ms");
  EXPECT_EQ(format_duration_ns(NAN), "n/a");
}

TEST(CliFormat, OneLineAndClosest) {
  EXPECT_EQ(one_line("first\nsecond\n"), "first; second");
  EXPECT_EQ(one_line("unknown metric 'x':\n  dram__bytes"), "unknown metric 'x': dram__bytes");
  EXPECT_EQ(kprof::closest_choice("dem", {"devices", "doctor", "demo"}), "demo");
  EXPECT_EQ(kprof::closest_choice("--rusn", {"--runs", "--csv", "--json"}), "--runs");
  EXPECT_EQ(kprof::closest_choice("zzzzzz", {"devices", "doctor", "demo"}), "");
}

// --- doctor, from a SystemInfo and a probe outcome ----------------------------------------------

// --- demo: its sweep and derived metric --------------------------------------------------------

TEST(CliDemo, MetricsComeAfterTheDurationTheBandwidthNeeds) {
  EXPECT_EQ(demo_metrics(std::nullopt), std::vector<std::string>{"gpu__time_duration.sum"});
  EXPECT_EQ(demo_metrics("set:memory, sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            (std::vector<std::string>{"gpu__time_duration.sum", "set:memory",
                                      "sm__throughput.avg.pct_of_peak_sustained_elapsed"}));
  EXPECT_EQ(demo_metrics("gpu__time_duration.sum"),
            std::vector<std::string>{"gpu__time_duration.sum"});
}

TEST(CliDemo, AnUnknownMetricSetIsAUsageErrorBeforeAnyGpuWork) {
  const auto o = kprof::testing::kprof_cli({"demo", "--metrics", "set:memroy"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err, "--metrics: metrics='set:memroy' is not valid")) << o.err;
  EXPECT_TRUE(contains(o.err, "'set:memory'")) << o.err;
  EXPECT_TRUE(contains(o.err, "usage: kprof demo")) << o.err;
}

TEST(CliDemo, TableOptionsGoByTheirFlagsAndChoices) {
  EXPECT_EQ(flag_of("replay_mode"), "--replay-mode");
  EXPECT_EQ(flag_of("metrics"), "--metrics");
  EXPECT_EQ(option_choices("replay_mode"), "auto (default), kernel, range or application");
  EXPECT_EQ(option_choices("cache_control"), "all (default) or none");
  EXPECT_EQ(option_choices("runs"), "");
  EXPECT_TRUE(
      contains(kprof_cli({"help", "demo"}).out, "auto (default), kernel, range or application"));
}

TEST(CliDemo, AnUnknownReplayModeIsAUsageErrorBeforeAnyGpuWork) {
  const auto o = kprof::testing::kprof_cli({"demo", "--replay-mode", "app"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(contains(o.err,
                       "--replay-mode: replay_mode='app' is not valid; valid: 'auto', "
                       "'kernel', 'range' or 'application'"))
      << o.err;
  EXPECT_TRUE(contains(o.err, "usage: kprof demo")) << o.err;
}

TEST(CliDemo, SweepsScaleAndAddOverFourSizesThenFma) {
  const auto cases = demo_cases();
  ASSERT_EQ(cases.size(), 9u);
  const Sweep sweep = demo_sweep(cases);
  ASSERT_EQ(sweep.size(), 9u);
  EXPECT_EQ(sweep.names(), (std::vector<std::string>{"op", "n"}));
  EXPECT_EQ(sweep.config(0).get_string("op"), "scale");
  EXPECT_EQ(sweep.config(0).get_int("n"), 1 << 20);
  EXPECT_EQ(sweep.config(3).get_int("n"), 1 << 26);
  EXPECT_EQ(sweep.config(4).get_string("op"), "add");
  EXPECT_EQ(sweep.config(8).get_string("op"), "fma");
}

TEST(CliDemo, DerivesBandwidthForMemoryKernelsOnly) {
  const auto cases = demo_cases();
  auto d = demo_derive(cases, {1000.0}, 0);  // scale, n = 2^20, 1 us
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].name, "bandwidth");
  EXPECT_EQ(d[0].unit, "GB/s");
  EXPECT_DOUBLE_EQ(d[0].value, 8.0 * (1 << 20) / 1000.0);
  d = demo_derive(cases, {2000.0}, 4);  // add, n = 2^20, 2 us
  ASSERT_EQ(d.size(), 1u);
  EXPECT_DOUBLE_EQ(d[0].value, 12.0 * (1 << 20) / 2000.0);
  EXPECT_TRUE(demo_derive(cases, {1000.0}, 8).empty());   // fma moves no memory
  EXPECT_TRUE(demo_derive(cases, {1000.0}, 99).empty());  // no such config
  EXPECT_TRUE(std::isnan(demo_derive(cases, {0.0}, 0).at(0).value));
  EXPECT_TRUE(std::isnan(demo_derive(cases, {NAN}, 0).at(0).value));
  EXPECT_TRUE(std::isnan(demo_derive(cases, {}, 0).at(0).value));
}

TEST(CliDemo, SummaryNamesThePeakBandwidthAndWhere) {
  const auto cases = demo_cases();
  const auto row = [](std::size_t config, const std::string& metric, double mean) {
    Row r;
    r.annotation = config < 4 ? "scale" : "add";
    r.metric = metric;
    r.config = config;
    r.mean = mean;
    r.num_runs = 10;
    return r;
  };
  const Results results(SessionInfo{}, demo_sweep(cases), {}, {},
                        {row(3, "bandwidth", 2432.0), row(7, "bandwidth", 3186.4),
                         row(6, "bandwidth", NAN), row(7, std::string(kDurationMetric), 2.5e5)});
  std::ostringstream out;
  print_demo_summary(results, out);
  EXPECT_EQ(out.str(),
            "peak bandwidth: 3.19 TB/s at op=add, n=67108864 (mean of 10 runs, L2 flushed before "
            "every kernel)\n");

  const Results slow(SessionInfo{}, demo_sweep(cases), {}, {}, {row(0, "bandwidth", 812.34)});
  std::ostringstream out2;
  print_demo_summary(slow, out2);
  EXPECT_TRUE(contains(out2.str(), "peak bandwidth: 812 GB/s at op=scale, n=1048576"))
      << out2.str();

  std::ostringstream none;
  print_demo_summary(Results{}, none);
  EXPECT_EQ(none.str(), "peak bandwidth: none measured\n");
}
