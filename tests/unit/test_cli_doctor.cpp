// `kprof doctor` without a GPU: its checks on a scripted system (an H200, no driver, a busy
// CUPTI, a build without CUDA), what each says and which decide the exit code.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli_fixtures.hpp"
#include "cli_runner.hpp"

using namespace kprof;
using namespace kprof::cli;
using namespace kprof::testing;

TEST(CliDoctor, EverythingWorksExits0) {
  int probes = 0;
  const auto checks = doctor_checks(h200(), [&] { return ++probes, measured(10.4); }, env_of({}));
  EXPECT_EQ(probes, 1);
  for (const Check& c : checks) EXPECT_EQ(c.status, CheckStatus::ok) << c.name << ": " << c.detail;
  EXPECT_EQ(find_check(checks, "timing").detail,
            "a 10 us spin kernel measured 10.4 us (1 run, L2 flushed, cupti-activity)");
  EXPECT_EQ(find_check(checks, "GPU visible").detail, "1 GPU, device 0: NVIDIA H200 (cc 9.0)");
  EXPECT_EQ(find_check(checks, "CUPTI").detail, "13.0.1 loads");
  EXPECT_EQ(find_check(checks, "counters").detail, "permission yes (root)");  // no probe given
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitOk);
  EXPECT_EQ(lines(out.str()).back(), "kprof can time kernels on this machine.");
  for (const std::string& l : lines(out.str())) {
    if (l.empty() || l.rfind("kprof", 0) == 0) continue;
    EXPECT_EQ(l.rfind("ok  ", 0), 0u) << l;
  }
}

TEST(CliDoctor, NoDriverSkipsWhatNeedsItAndNeverProbes) {
  int probes = 0;
  const auto checks =
      doctor_checks(no_driver(), [&] { return ++probes, measured(10); }, env_of({}));
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(find_check(checks, "built with CUDA").status, CheckStatus::ok);
  EXPECT_EQ(find_check(checks, "NVIDIA driver").status, CheckStatus::fail);
  EXPECT_EQ(find_check(checks, "NVIDIA driver").detail,
            "no NVIDIA driver found (libcuda.so.1 could not be loaded)");
  EXPECT_EQ(find_check(checks, "GPU visible").status, CheckStatus::skip);
  EXPECT_EQ(find_check(checks, "CUDA versions").status, CheckStatus::skip);
  EXPECT_EQ(find_check(checks, "timing").status, CheckStatus::skip);
  EXPECT_EQ(find_check(checks, "counters").status, CheckStatus::skip);
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitFailure);
  EXPECT_EQ(lines(out.str()).back(),
            "kprof cannot time kernels on this machine: NVIDIA driver: no NVIDIA driver found "
            "(libcuda.so.1 could not be loaded)");
}

TEST(CliDoctor, BusyCuptiNamesTheHolder) {
  TimingOutcome busy;
  busy.kind = TimingOutcome::Kind::cupti_busy;
  busy.requested_us = kProbeSpinUs;
  busy.holder = "Nsight Systems";
  busy.message = "another CUPTI subscriber is attached";
  const auto checks = doctor_checks(h200(), [&] { return busy; }, env_of({}));
  const Check& t = find_check(checks, "timing");
  EXPECT_EQ(t.status, CheckStatus::fail);
  EXPECT_TRUE(contains(t.detail, "CUPTI is held by Nsight Systems")) << t.detail;
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitFailure);
}

TEST(CliDoctor, ImplausibleDurationFails) {
  for (double us : {0.0, 0.1, 5000.0, static_cast<double>(NAN)}) {
    const auto checks = doctor_checks(h200(), [&] { return measured(us); }, env_of({}));
    EXPECT_EQ(find_check(checks, "timing").status, CheckStatus::fail) << us;
    EXPECT_TRUE(contains(find_check(checks, "timing").detail, "not plausible")) << us;
  }
}

TEST(CliDoctor, VersionsAndDevices) {
  SystemInfo old_driver = h200();
  old_driver.driver_version = 12040;
  Check v = find_check(
      doctor_checks(old_driver, [] { return measured(10); }, env_of({})), "CUDA versions");
  EXPECT_EQ(v.status, CheckStatus::fail);
  EXPECT_EQ(v.detail,
            "the driver supports CUDA 12.4, kprof was built with CUDA 13.0: install a driver for "
            "CUDA 13 or newer");

  SystemInfo minor = h200();
  minor.runtime_version = 13010;
  v = find_check(doctor_checks(minor, [] { return measured(10); }, env_of({})), "CUDA versions");
  EXPECT_EQ(v.status, CheckStatus::ok);
  EXPECT_TRUE(contains(v.detail, "minor version compatibility")) << v.detail;

  SystemInfo hidden = h200();
  hidden.devices.clear();
  int probes = 0;
  const auto checks = doctor_checks(
      hidden, [&] { return ++probes, measured(10); }, env_of({{"CUDA_VISIBLE_DEVICES", "7"}}));
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(find_check(checks, "GPU visible").status, CheckStatus::fail);
  EXPECT_EQ(find_check(checks, "GPU visible").detail,
            "the NVIDIA driver shows no CUDA device (CUDA_VISIBLE_DEVICES=7)");
}

TEST(CliDoctor, TheCounterProbeSaysWhatItMeasured) {
  auto counters = [](CounterOutcome o) {
    return find_check(doctor_checks(
                          h200(), [] { return measured(10); }, env_of({}), [&] { return o; }),
                      "counters");
  };
  CounterOutcome read;
  read.kind = CounterOutcome::Kind::measured;
  read.expected_bytes = 4 << 20;
  read.read_bytes = 4.0 * (1 << 20) + 2048;
  Check c = counters(read);
  EXPECT_EQ(c.status, CheckStatus::ok) << c.detail;
  EXPECT_TRUE(contains(c.detail, "a kernel reading 4 MiB measured")) << c.detail;
  read.read_bytes = 0;  // a counter that reads nothing is broken, not fast
  c = counters(read);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_TRUE(contains(c.detail, "not plausible")) << c.detail;
  CounterOutcome denied;
  denied.kind = CounterOutcome::Kind::denied;
  denied.message = "cuptiRangeProfilerEnable failed: ...\nrun as root";
  c = counters(denied);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_TRUE(contains(c.detail, "run as root")) << c.detail;
  SystemInfo restricted = h200();
  restricted.counter_permission = "no: restricted to admin users";
  int probes = 0;
  c = find_check(
      doctor_checks(
          restricted, [] { return measured(10); }, env_of({}), [&] { return ++probes, read; }),
      "counters");
  EXPECT_EQ(probes, 0);  // known to fail: not tried
  EXPECT_EQ(c.status, CheckStatus::fail);
}

TEST(CliDoctor, CountersAndNvtxDoNotDecideTheExitCode) {
  SystemInfo sys = h200();
  sys.counter_permission = "no: restricted to admin users (RmProfilingAdminOnly: 1)";
  const auto checks = doctor_checks(
      sys, [] { return measured(10.2); }, env_of({{"NVTX_INJECTION64_PATH", "/opt/nsys.so"}}));
  EXPECT_EQ(find_check(checks, "counters").status, CheckStatus::fail);
  EXPECT_TRUE(
      contains(find_check(checks, "counters").detail, "NVreg_RestrictProfilingToAdminUsers"));
  EXPECT_TRUE(contains(find_check(checks, "NVTX").detail, "NVTX_INJECTION64_PATH=/opt/nsys.so"));
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitOk);
}

TEST(CliDoctor, BuiltWithoutCuda) {
  SystemInfo sys;
  const auto checks = doctor_checks(sys, [] { return measured(10); }, env_of({}));
  EXPECT_EQ(find_check(checks, "built with CUDA").status, CheckStatus::fail);
  EXPECT_EQ(find_check(checks, "timing").status, CheckStatus::skip);
  EXPECT_EQ(find_check(checks, "NVTX").status, CheckStatus::skip);
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitFailure);
  EXPECT_TRUE(contains(lines(out.str()).back(), "built with CUDA: kprof was built without CUDA"));
}

TEST(CliDoctor, BusyMessageNamesTheHolderOnce) {
  EXPECT_EQ(
      cupti_busy_message("kprof cannot subscribe:\n'Nsight Compute' holds it.", "Nsight Compute"),
      "kprof cannot subscribe: 'Nsight Compute' holds it.");
  EXPECT_EQ(cupti_busy_message("subscribe failed", ""),
            "CUPTI is held by another tool: subscribe failed");
}

TEST(CliDoctor, SaysWhetherSetFlopCountsHereWithoutFailingTheMachine) {
  SystemInfo sys = h200();
  sys.flop_counting = "set:flop counts instructions with CUPTI 13.5 or later";
  const auto checks = doctor_checks(sys, [] { return measured(10.4); }, env_of({}));
  EXPECT_EQ(find_check(checks, "set:flop").status, CheckStatus::skip);
  EXPECT_EQ(find_check(checks, "set:flop").detail, sys.flop_counting);
  std::ostringstream out;
  EXPECT_EQ(print_checks(checks, out), kExitOk);  // optional: timing still works
  sys.flop_counting = "";
  EXPECT_EQ(find_check(doctor_checks(
                           sys, [] { return measured(10.4); }, env_of({})),
                       "set:flop")
                .status,
            CheckStatus::ok);
}

// CUPTI 13.5 loads without the NVIDIA driver but answers no version then (cuptiGetVersion:
// CUPTI_ERROR_UNKNOWN): the line says where it loaded from rather than that it did not load.
TEST(CliDoctor, ACuptiThatLoadsButAnswersNoVersionIsNamedByItsPath) {
  SystemInfo sys = no_driver();
  sys.cupti_version = 0;
  sys.cupti_path = "/home/u/.kprof-cupti/nvidia/cu13/lib/libcupti.so.13";
  const Check cupti =
      find_check(doctor_checks(sys, [] { return measured(10); }, env_of({})), "CUPTI");
  EXPECT_EQ(cupti.status, CheckStatus::fail);
  EXPECT_TRUE(contains(cupti.detail, "loads from " + sys.cupti_path + " but answers no version"))
      << cupti.detail;
  sys.cupti_path = "";
  EXPECT_TRUE(contains(find_check(doctor_checks(
                                      sys, [] { return measured(10); }, env_of({})),
                                  "CUPTI")
                           .detail,
                       "libcupti could not be loaded"));
}
