// CountersBusyError and the wait for a GPU's counters (core/measure/counter_wait.hpp), on a
// scripted "try to take the counters" and a fake clock; and the option wait_for_counters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measure/counter_wait.hpp"
#include "kprof/errors.hpp"
#include "kprof/options.hpp"

using namespace kprof;
using namespace kprof::detail;

namespace {

// A clock that moves only when slept on (and by `try_cost` per try, if the test says so).
struct FakeClock {
  double t = 100;
  std::vector<double> sleeps;
  int polls = 0;

  CounterWaitClock clock() {
    return {[this] { return t; },
            [this](double s) {
              sleeps.push_back(s);
              t += s;
            },
            [this] { ++polls; }};
  }
  double slept() const { return std::accumulate(sleeps.begin(), sleeps.end(), 0.0); }
};

// Busy for the first `busy` tries, then free.
struct ScriptedCounters {
  int busy = 0;
  int tries = 0;
  bool operator()() { return ++tries > busy; }
};

const CounterGpu kH200{0, [] { return std::string("NVIDIA H200"); }};

const std::string kBusyMessage =
    "another process profiles the counters of GPU 0 (NVIDIA H200); counters are exclusive per "
    "GPU: profile one process at a time, or pass wait_for_counters=<seconds> to wait for them";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(CountersBusyError, IsACuptiBusyErrorOfAnotherProcess) {
  const CountersBusyError e(kBusyMessage);
  const CuptiBusyError& busy = e;
  EXPECT_STREQ(busy.kind(), "CountersBusyError");
  EXPECT_EQ(busy.holder(), "another process");
  EXPECT_EQ(std::string(busy.what()), kBusyMessage);
  EXPECT_TRUE(dynamic_cast<const Error*>(&busy) != nullptr);
}

TEST(CountersBusyError, MessageNamesTheCauseTheGpuAndTheWayOut) {
  EXPECT_EQ(counters_busy_message(kH200, ""), kBusyMessage);
  // The CUPTI call that answered busy follows, for whoever searches for the code.
  EXPECT_EQ(counters_busy_message(kH200, "cuptiRangeProfilerStart"),
            kBusyMessage + " (cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY)");
  // A GPU whose name cannot be read is named by its ordinal alone.
  EXPECT_TRUE(contains(counters_busy_message(CounterGpu{3, {}}, ""), "counters of GPU 3;"));
}

TEST(CounterWait, CountersFreeAfterThreeTriesAreTaken) {
  FakeClock clock;
  std::vector<std::string> said;
  CounterWait wait(60, clock.clock(), [&](const std::string& line) { said.push_back(line); });
  ScriptedCounters counters{2};
  wait.take(std::ref(counters), kH200, "cuptiProfilerGetCounterAvailability");
  EXPECT_EQ(counters.tries, 3);
  EXPECT_EQ(wait.tries(), 3);
  EXPECT_EQ(clock.sleeps, (std::vector<double>{0.05, 0.1}));  // 50 ms, then twice as long
  EXPECT_EQ(clock.polls, 2);                                  // Ctrl-C checked after each sleep
  EXPECT_NEAR(wait.waited_s(), 0.15, 1e-12);
  EXPECT_EQ(
      said,
      (std::vector<std::string>{"waiting for GPU 0's counters (another process profiles them)"}));
}

TEST(CounterWait, CountersNeverFreeRaiseAfterTheWaitNamingItsSeconds) {
  FakeClock clock;
  CounterWait wait(2, clock.clock());
  ScriptedCounters counters{1000};
  try {
    wait.take(std::ref(counters), kH200, "cuptiProfilerGetCounterAvailability");
    FAIL() << "no error";
  } catch (const CountersBusyError& e) {
    const std::string m = e.what();
    EXPECT_TRUE(contains(m, "another process still profiles the counters of GPU 0 (NVIDIA H200)"))
        << m;
    EXPECT_TRUE(contains(m, "after kprof waited 2.0 s for them (wait_for_counters=2)")) << m;
    EXPECT_TRUE(contains(m, "counters are exclusive per GPU")) << m;
    EXPECT_TRUE(contains(m, "(cuptiProfilerGetCounterAvailability: CUPTI_ERROR_HARDWARE_BUSY)"))
        << m;
    EXPECT_EQ(e.holder(), "another process");
  }
  // 50 ms doubling, the last sleep cut to what is left of the 2 s.
  ASSERT_EQ(clock.sleeps.size(), 6u);
  EXPECT_EQ(std::vector<double>(clock.sleeps.begin(), clock.sleeps.end() - 1),
            (std::vector<double>{0.05, 0.1, 0.2, 0.4, 0.8}));
  EXPECT_NEAR(clock.sleeps.back(), 0.45, 1e-9);
  EXPECT_NEAR(clock.slept(), 2.0, 1e-9);
  EXPECT_EQ(counters.tries, 7);  // one before the first sleep, one after each
}

TEST(CounterWait, WaitZeroRaisesAtOnceWithoutRetrying) {
  FakeClock clock;
  std::vector<std::string> said;
  CounterWait wait(0, clock.clock(), [&](const std::string& line) { said.push_back(line); });
  ScriptedCounters counters{1};
  try {
    wait.take(std::ref(counters), kH200, "");
    FAIL() << "no error";
  } catch (const CountersBusyError& e) {
    EXPECT_EQ(std::string(e.what()), kBusyMessage);
  }
  EXPECT_EQ(counters.tries, 1);
  EXPECT_TRUE(clock.sleeps.empty());
  EXPECT_TRUE(said.empty());  // nothing waited for, nothing said
}

TEST(CounterWait, FreeCountersAreTakenAtOnceWithoutAWord) {
  FakeClock clock;
  std::vector<std::string> said;
  CounterWait wait(60, clock.clock(), [&](const std::string& line) { said.push_back(line); });
  ScriptedCounters counters{0};
  wait.take(std::ref(counters), kH200, "");
  EXPECT_EQ(counters.tries, 1);
  EXPECT_TRUE(clock.sleeps.empty());
  EXPECT_TRUE(said.empty());
  EXPECT_EQ(wait.waited_s(), 0);
}

TEST(CounterWait, TheSleepGrowsToOneSecondAndNoFurther) {
  FakeClock clock;
  CounterWait wait(std::numeric_limits<double>::infinity(), clock.clock());
  ScriptedCounters counters{40};
  wait.take(std::ref(counters), kH200, "");  // infinity: until they are free
  EXPECT_EQ(counters.tries, 41);
  ASSERT_EQ(clock.sleeps.size(), 40u);
  EXPECT_EQ(std::vector<double>(clock.sleeps.begin(), clock.sleeps.begin() + 6),
            (std::vector<double>{0.05, 0.1, 0.2, 0.4, 0.8, 1.0}));
  for (double s : clock.sleeps) EXPECT_LE(s, CounterWait::kMaxSleep);
}

TEST(CounterWait, TheTimeOfTheTriesCountsAndOneWaitServesTheWholeProfile) {
  FakeClock clock;
  std::vector<std::string> said;
  CounterWait wait(1, clock.clock(), [&](const std::string& line) { said.push_back(line); });
  // Each try takes 0.1 s (reading the availability image does, on the H200).
  int tries = 0;
  auto busy_twice = [&] {
    clock.t += 0.1;
    return ++tries > 2;
  };
  wait.take(busy_twice, kH200, "cuptiProfilerGetCounterAvailability");
  EXPECT_NEAR(wait.waited_s(), 0.05 + 0.1 + 0.1 + 0.1, 1e-9);  // sleeps and the tries after them
  // The first pass finds them busy again: what is left of the 1 s is all it waits.
  auto never = [&] {
    clock.t += 0.1;
    return false;
  };
  EXPECT_THROW(wait.take(never, kH200, "cuptiRangeProfilerStart"), CountersBusyError);
  EXPECT_GT(wait.waited_s(), 1.0 - 1e-3);
  EXPECT_LT(wait.waited_s(), 1.2);
  EXPECT_EQ(said.size(), 1u);  // said once per profile
}

TEST(CounterWait, AnInterruptStopsTheWait) {
  FakeClock clock;
  CounterWaitClock c = clock.clock();
  c.poll = [] { throw InterruptError("interrupted"); };
  CounterWait wait(std::numeric_limits<double>::infinity(), c);
  ScriptedCounters counters{1000};
  EXPECT_THROW(wait.take(std::ref(counters), kH200, ""), InterruptError);
  EXPECT_EQ(counters.tries, 1);
}

TEST(CounterWait, AnotherFailureOfTheTryPassesOn) {
  FakeClock clock;
  CounterWait wait(60, clock.clock());
  int tries = 0;
  auto fails = [&]() -> bool {
    if (++tries == 1) return false;
    throw CudaError("cuptiProfilerGetCounterAvailability failed: CUPTI_ERROR_UNKNOWN");
  };
  EXPECT_THROW(wait.take(fails, kH200, ""), CudaError);
  EXPECT_EQ(tries, 2);
}

TEST(CounterWait, TheSystemClockPollsWhatTheEngineGaveThisThread) {
  int polled = 0;
  CounterWaitClock c = system_counter_wait_clock();
  c.poll();  // nothing published: nothing to poll
  {
    InterruptPollScope scope([&] { ++polled; });
    c.poll();
    c.sleep(0.001);
    EXPECT_GT(c.now(), 0);
  }
  c.poll();  // the scope is over
  EXPECT_EQ(polled, 1);
}

// --- the option ---------------------------------------------------------------------------

TEST(WaitForCounters, DefaultsToRaisingAtOnce) { EXPECT_EQ(Options{}.wait_for_counters, 0); }

TEST(WaitForCounters, ANegativeOrNanWaitIsAnOptionErrorNamingIt) {
  for (double bad : {-1.0, -0.001, std::nan("")}) {
    Options o;
    o.wait_for_counters = bad;
    try {
      o.validate_settings();
      FAIL() << "no error for " << bad;
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "wait_for_counters");
      EXPECT_TRUE(contains(e.what(), "wait_for_counters=")) << e.what();
      EXPECT_TRUE(contains(e.valid(), "a number of seconds >= 0")) << e.valid();
    }
  }
}

TEST(WaitForCounters, ZeroSecondsAndInfinityAreValid) {
  for (double good : {0.0, 0.5, 60.0, std::numeric_limits<double>::infinity()}) {
    Options o;
    o.wait_for_counters = good;
    EXPECT_NO_THROW(o.validate_settings()) << good;
  }
}

TEST(WaitForCounters, HasATextForm) {
  Options o;
  set_option(o, "wait_for_counters", "30");
  EXPECT_EQ(o.wait_for_counters, 30);
  set_option(o, "wait_for_counters", "inf");
  EXPECT_TRUE(std::isinf(o.wait_for_counters));
  EXPECT_TRUE(contains(to_string(o), "wait_for_counters=inf")) << to_string(o);
  try {
    set_option(o, "wait_for_counters", "soon");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "wait_for_counters");
    EXPECT_EQ(e.value(), "'soon'");
  }
  set_option(o, "wait_for_counters", "-5");  // read as text; validate() refuses it
  EXPECT_THROW(o.validate_settings(), OptionError);
}
