// clock_control="base": the lock and its restore on every way out, with an injected setter.
// No test here (or anywhere) calls NVML's clock functions: a GPU's clocks are not a test's to
// change.
#include <gtest/gtest.h>

#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measure/clock_lock.hpp"
#include "core/measure/engine.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::ScriptedBackend;

namespace {

class RecordingSetter : public detail::ClockSetter {
 public:
  std::string device() const override { return "GPU 9 (test)"; }
  void lock_base() override {
    events.push_back("lock");
    if (deny) throw ClockPermissionError("clock_control='base': no permission (test)");
    ++locks;
  }
  std::string reset() noexcept override {
    events.push_back("reset");
    ++resets;
    return reset_error;
  }
  int locks = 0, resets = 0;
  bool deny = false;
  std::string reset_error;
  std::vector<std::string> events;
};

Options base_clocks() {
  Options o;
  o.runs = 2;
  o.verbosity = Verbosity::silent;
  o.thermal_mode = ThermalMode::off;
  o.clock_control = ClockControl::base;
  return o;
}

std::vector<int> g_chained;
void record_signal(int signal) { g_chained.push_back(signal); }

// Installs `handler` for `signal` for the scope's lifetime.
class HandlerScope {
 public:
  HandlerScope(int signal, void (*handler)(int)) : signal_(signal) {
    struct sigaction a {};
    a.sa_handler = handler;
    sigemptyset(&a.sa_mask);
    sigaction(signal, &a, &previous_);
  }
  ~HandlerScope() { sigaction(signal_, &previous_, nullptr); }

 private:
  int signal_;
  struct sigaction previous_ {};
};

void (*current_handler(int signal))(int) {
  struct sigaction a {};
  sigaction(signal, nullptr, &a);
  return (a.sa_flags & SA_SIGINFO) ? nullptr : a.sa_handler;
}

}  // namespace

TEST(ClockLock, LocksThenRestoresOnceAtTheEndOfTheScope) {
  RecordingSetter setter;
  {
    detail::ClockLock lock(setter);
    EXPECT_EQ(setter.locks, 1);
    EXPECT_TRUE(detail::clock_signal_handlers_installed());
    EXPECT_EQ(lock.restore(), "");
    EXPECT_EQ(lock.restore(), "");  // once only
  }
  EXPECT_EQ(setter.resets, 1);
  EXPECT_FALSE(detail::clock_signal_handlers_installed());
  EXPECT_EQ(setter.events, (std::vector<std::string>{"lock", "reset"}));
}

TEST(ClockLock, PermissionDeniedLocksNothingAndRestoresNothing) {
  RecordingSetter setter;
  setter.deny = true;
  EXPECT_THROW(detail::ClockLock lock(setter), ClockPermissionError);
  EXPECT_EQ(setter.resets, 0);
  EXPECT_FALSE(detail::clock_signal_handlers_installed());
}

TEST(ClockLock, ARestoreThatFailsIsReportedWithTheFix) {
  RecordingSetter setter;
  setter.reset_error = "GPU is lost";
  std::vector<std::string> lines;
  set_log_sink([&](std::string_view l) { lines.emplace_back(l); });
  { detail::ClockLock lock(setter); }
  set_log_sink(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("GPU is lost"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("nvidia-smi -rgc"), std::string::npos) << lines[0];
}

TEST(ClockLock, SignalRestoresClocksThenChainsToThePreviousHandler) {
  g_chained.clear();
  HandlerScope scope(SIGTERM, &record_signal);
  RecordingSetter setter;
  {
    detail::ClockLock lock(setter);
    std::raise(SIGTERM);
    EXPECT_EQ(setter.resets, 1);  // by the handler, before the program's own handler ran
    EXPECT_EQ(g_chained, (std::vector<int>{SIGTERM}));
  }
  EXPECT_EQ(setter.resets, 1);  // the scope's end does not reset again
  EXPECT_EQ(setter.events, (std::vector<std::string>{"lock", "reset"}));
  // The program's handler is back in place.
  EXPECT_EQ(current_handler(SIGTERM), &record_signal);
}

TEST(ClockLock, AnIgnoredSignalStillRestoresAndIsStillIgnored) {
  HandlerScope scope(SIGINT, SIG_IGN);
  RecordingSetter setter;
  detail::ClockLock lock(setter);
  std::raise(SIGINT);
  EXPECT_EQ(setter.resets, 1);
}

TEST(ClockLock, AHandlerInstalledDuringTheLockIsLeftInPlace) {
  HandlerScope original(SIGTERM, SIG_DFL);  // puts the test process's handler back at the end
  RecordingSetter setter;
  detail::ClockLock lock(setter);
  HandlerScope program(SIGTERM, &record_signal);  // the program replaces kprof's meanwhile
  lock.restore();
  EXPECT_EQ(current_handler(SIGTERM), &record_signal);
  EXPECT_FALSE(detail::clock_signal_handlers_installed());
}

TEST(ClockLockEngine, ClocksAreLockedForTheSweepAndGivenBackAtTheEnd) {
  ScriptedBackend gpu;
  RecordingSetter setter;
  detail::SweepServices services;
  services.clocks = &setter;
  Results r = detail::run_sweep(
      gpu, base_clocks(), Sweep(),
      [&](std::size_t, int run) {
        setter.events.push_back("run " + std::to_string(run));
        Annotation a("k");
        gpu.launch("kern", 1);
      },
      {}, services);
  // The unprofiled call after the profile (run -1) runs at the profile's clocks too.
  EXPECT_EQ(setter.events, (std::vector<std::string>{"lock", "run 0", "run 1", "run -1", "reset"}));
  EXPECT_EQ(r.session().clock_control, "base");
}

TEST(ClockLockEngine, AnExceptionInTheBenchmarkGivesTheClocksBack) {
  ScriptedBackend gpu;
  RecordingSetter setter;
  detail::SweepServices services;
  services.clocks = &setter;
  EXPECT_THROW(detail::run_sweep(
                   gpu, base_clocks(), Sweep(),
                   [&](std::size_t, int) {
                     Annotation a("k");
                     gpu.launch("kern", 1);
                     throw std::runtime_error("out of memory");
                   },
                   {}, services),
               UserFunctionError);
  EXPECT_EQ(setter.locks, 1);
  EXPECT_EQ(setter.resets, 1);
  EXPECT_EQ(gpu.stops, 1);
  EXPECT_FALSE(detail::clock_signal_handlers_installed());
}

TEST(ClockLockEngine, AMeasurementErrorGivesTheClocksBack) {
  ScriptedBackend gpu;
  RecordingSetter setter;
  detail::SweepServices services;
  services.clocks = &setter;
  EXPECT_THROW(detail::run_sweep(
                   gpu, base_clocks(), Sweep(),
                   [&](std::size_t, int) { Annotation a("no kernel"); }, {}, services),
               MeasurementError);
  EXPECT_EQ(setter.resets, 1);
}

TEST(ClockLockEngine, PermissionDeniedStopsBeforeAnyRun) {
  ScriptedBackend gpu;
  RecordingSetter setter;
  setter.deny = true;
  detail::SweepServices services;
  services.clocks = &setter;
  int runs = 0;
  EXPECT_THROW(detail::run_sweep(
                   gpu, base_clocks(), Sweep(), [&](std::size_t, int) { ++runs; }, {}, services),
               ClockPermissionError);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(gpu.starts, 0);
  EXPECT_EQ(setter.resets, 0);
  EXPECT_FALSE(detail::RegionTracker::instance().profiling());
}

TEST(ClockLockEngine, WithoutNvmlBaseIsAClockControlErrorSayingWhy) {
  ScriptedBackend gpu;
  detail::SweepServices services;
  services.clocks_unavailable = "libnvidia-ml.so.1 could not be loaded";
  try {
    detail::run_sweep(
        gpu, base_clocks(), Sweep(), [&](std::size_t, int) {}, {}, services);
    FAIL() << "no error";
  } catch (const ClockControlError& e) {
    EXPECT_NE(std::string(e.what()).find("libnvidia-ml.so.1"), std::string::npos) << e.what();
    EXPECT_STREQ(e.kind(), "ClockControlError");
  }
}

TEST(ClockLockEngine, ClockControlNoneNeverTouchesTheSetter) {
  ScriptedBackend gpu;
  RecordingSetter setter;
  detail::SweepServices services;
  services.clocks = &setter;
  Options o = base_clocks();
  o.clock_control = ClockControl::none;
  detail::run_sweep(
      gpu, o, Sweep(),
      [&](std::size_t, int) {
        Annotation a("k");
        gpu.launch("kern", 1);
      },
      {}, services);
  EXPECT_TRUE(setter.events.empty());
}
