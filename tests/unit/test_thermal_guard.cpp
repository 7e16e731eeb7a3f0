// The thermal guard's algorithm (nsight-python's thermovision) over a scripted temperature
// source and a fake clock: no GPU, no waiting.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/measure/thermal_guard.hpp"
#include "kprof/errors.hpp"

using namespace kprof;
using detail::ThermalGuard;
using detail::ThermalSettings;

namespace {

// Headroom readings in order; the last one repeats. nullopt: the GPU does not report it.
class ScriptedTemperature : public detail::TemperatureSource {
 public:
  explicit ScriptedTemperature(std::vector<std::optional<int>> margins)
      : margins_(std::move(margins)) {}
  std::optional<int> margin_c() override {
    ++reads;
    const std::optional<int> m = margins_[std::min(next_, margins_.size() - 1)];
    ++next_;
    return m;
  }
  std::optional<int> temperature_c() override { return 80; }
  // Appends readings (the repeated last one is replaced).
  void then(std::vector<std::optional<int>> more) {
    margins_.resize(std::min(next_, margins_.size()));
    margins_.insert(margins_.end(), more.begin(), more.end());
  }
  int reads = 0;

 private:
  std::vector<std::optional<int>> margins_;
  std::size_t next_ = 0;
};

struct FakeClock {
  double now = 0;
  std::vector<double> sleeps;
  ThermalGuard::Now now_fn() {
    return [this] { return now; };
  }
  ThermalGuard::Sleep sleep_fn() {
    return [this](double s) {
      sleeps.push_back(s);
      now += s;
    };
  }
};

ThermalSettings settings(ThermalMode mode, int wait = 10, int cont = 20, int timeout = 180) {
  return {mode, wait, cont, timeout};
}

}  // namespace

TEST(ThermalGuard, ConstantsAreNsightPythons) {
  EXPECT_EQ(kDefaultThermalWait, 10);
  EXPECT_EQ(kDefaultThermalCont, 20);
  EXPECT_EQ(kDefaultThermalTimeout, 180);
  EXPECT_EQ(ThermalGuard::kMinCont, 12);
  EXPECT_EQ(ThermalGuard::kMaxCont, 50);
  EXPECT_EQ(ThermalGuard::kTargetMinRuns, 5);
  EXPECT_EQ(ThermalGuard::kTargetMaxRuns, 50);
  EXPECT_EQ(ThermalGuard::kStep, 3);
  EXPECT_DOUBLE_EQ(ThermalGuard::kPollInterval, 0.5);
}

TEST(ThermalGuard, UnsupportedWithoutHeadroom) {
  ScriptedTemperature source({std::nullopt});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  EXPECT_FALSE(guard.supported());
  ScriptedTemperature ok({30});
  ThermalGuard guard2(settings(ThermalMode::automatic), ok, clock.now_fn(), clock.sleep_fn());
  EXPECT_TRUE(guard2.supported());
}

TEST(ThermalGuard, CoolGpuRunsWithoutPause) {
  ScriptedTemperature source({40});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(guard.before_run(), 0);
  EXPECT_TRUE(clock.sleeps.empty());
  EXPECT_EQ(guard.pauses(), 0);
  EXPECT_EQ(guard.thermal_cont(), 20);
}

TEST(ThermalGuard, PausesAtWaitAndPollsEveryHalfSecondUntilCont) {
  // 10 <= wait: pause; then 12, 15, 19 (< 20) and 20: resume after four polls.
  ScriptedTemperature source({10, 12, 15, 19, 20});
  FakeClock clock;
  std::vector<std::string> lines;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn(),
                     [&](const std::string& l) { lines.push_back(l); });
  EXPECT_DOUBLE_EQ(guard.before_run(), 2.0);
  EXPECT_EQ(clock.sleeps, (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(guard.pauses(), 1);
  EXPECT_DOUBLE_EQ(guard.paused_s(), 2.0);
  EXPECT_EQ(guard.thermal_cont(), 20);  // not counting before the first pause: no adaptation
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("headroom 10 C <= thermal_wait=10"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("waited 2.0 s"), std::string::npos) << lines[1];
}

TEST(ThermalGuard, AdaptsUpWhenTheGpuHeatsWithinFewRuns) {
  // nsight-python's test: 20 -> 23. Cool (starts counting), two runs, then hot.
  ScriptedTemperature source({25, 18, 9, 23});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  EXPECT_EQ(guard.before_run(), 0);  // 25 >= 20: counting starts
  EXPECT_EQ(guard.before_run(), 0);  // 18: run 1 since
  EXPECT_GT(guard.before_run(), 0);  // 9: run 2 since; 2 < 5 -> cool more
  EXPECT_EQ(guard.thermal_cont(), 23);
  EXPECT_EQ(source.reads, 4);  // waited until 23, the new target
}

TEST(ThermalGuard, AdaptsDownWhenTheGpuTakesManyRunsToHeat) {
  // nsight-python's test: 20 -> 17. More than 50 runs between resuming and the next pause.
  std::vector<std::optional<int>> margins{25};
  margins.insert(margins.end(), 55, 15);
  margins.push_back(9);
  margins.push_back(30);
  ScriptedTemperature source(margins);
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  for (int i = 0; i < 56; ++i) EXPECT_EQ(guard.before_run(), 0);
  EXPECT_GT(guard.before_run(), 0);
  EXPECT_EQ(guard.thermal_cont(), 17);
}

TEST(ThermalGuard, KeepsContBetweenFiveAndFiftyRuns) {
  std::vector<std::optional<int>> margins{25};
  margins.insert(margins.end(), 20, 15);
  margins.push_back(9);
  margins.push_back(30);
  ScriptedTemperature source(margins);
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  for (int i = 0; i < 22; ++i) guard.before_run();
  EXPECT_EQ(guard.pauses(), 1);
  EXPECT_EQ(guard.thermal_cont(), 20);
}

TEST(ThermalGuard, CountsRunsFromTheEndOfThePreviousPause) {
  // After a pause counting restarts at once: three runs later it pauses again -> 23, and the
  // pause after that, three runs later again -> 26.
  ScriptedTemperature source({9, 20, 15, 15, 9, 23, 15, 15, 9, 26});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  guard.before_run();  // 9: pause (not counting yet: no adaptation), cools to 20
  EXPECT_EQ(guard.thermal_cont(), 20);
  guard.before_run();  // 15: run 1
  guard.before_run();  // 15: run 2
  guard.before_run();  // 9: run 3 -> pause, 3 < 5 -> 23, cools to 23
  EXPECT_EQ(guard.thermal_cont(), 23);
  guard.before_run();
  guard.before_run();
  guard.before_run();  // -> 26
  EXPECT_EQ(guard.thermal_cont(), 26);
  EXPECT_EQ(guard.pauses(), 3);
}

TEST(ThermalGuard, AutoModeNeverWaitsForMoreThanFiftyDegrees) {
  std::vector<std::optional<int>> margins{60};
  for (int i = 0; i < 20; ++i) {
    margins.push_back(9);
    margins.push_back(60);
  }
  ScriptedTemperature source(margins);
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  for (int i = 0; i < 21; ++i) guard.before_run();
  EXPECT_EQ(guard.thermal_cont(), ThermalGuard::kMaxCont);
}

TEST(ThermalGuard, ManualModeDoesNotAdapt) {
  ScriptedTemperature source({25, 18, 9, 20});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::manual), source, clock.now_fn(), clock.sleep_fn());
  guard.before_run();
  guard.before_run();
  EXPECT_GT(guard.before_run(), 0);
  EXPECT_EQ(guard.thermal_cont(), 20);
}

TEST(ThermalGuard, ManualModeTimesOutWithCoolingTimeoutError) {
  ScriptedTemperature source({9, 15});  // never back at 20
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::manual, 10, 20, 60), source, clock.now_fn(),
                     clock.sleep_fn());
  try {
    guard.before_run();
    FAIL() << "no timeout";
  } catch (const CoolingTimeoutError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("thermal_timeout=60"), std::string::npos) << msg;
    EXPECT_NE(msg.find("thermal_cont=20"), std::string::npos) << msg;
    EXPECT_NE(msg.find("headroom is 15"), std::string::npos) << msg;
    EXPECT_STREQ(e.kind(), "CoolingTimeoutError");
  }
  EXPECT_GT(clock.now, 60.0);
  EXPECT_LT(clock.now, 61.0);
}

TEST(ThermalGuard, AutoModeLowersContOnTimeoutAndResumes) {
  ScriptedTemperature source({9, 15});  // stuck at 15: 20 -> 17 (timeout) -> 14 (timeout) -> ok
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic, 10, 20, 60), source, clock.now_fn(),
                     clock.sleep_fn());
  const double waited = guard.before_run();
  EXPECT_EQ(guard.thermal_cont(), 14);
  EXPECT_GT(waited, 120.0);
  EXPECT_LT(waited, 122.0);
}

TEST(ThermalGuard, AutoModeGivesUpAtTheFloor) {
  ScriptedTemperature source({9, 5});  // 20 -> 17 -> 14 -> 12 and still 5 < 12
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic, 10, 20, 30), source, clock.now_fn(),
                     clock.sleep_fn());
  try {
    guard.before_run();
    FAIL() << "no timeout";
  } catch (const CoolingTimeoutError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("minimum, 12 C"), std::string::npos) << msg;
    EXPECT_NE(msg.find("only 5 C"), std::string::npos) << msg;
  }
  EXPECT_EQ(guard.thermal_cont(), 12);
  EXPECT_GT(clock.now, 3 * 30.0);  // three timeouts: 17, 14, then 12 with the throw
}

TEST(ThermalGuard, AFailedReadingNeitherPausesNorCounts) {
  ScriptedTemperature source({std::nullopt, 25});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  EXPECT_EQ(guard.before_run(), 0);
  EXPECT_EQ(guard.before_run(), 0);
  EXPECT_EQ(guard.pauses(), 0);
}

TEST(ThermalGuard, AReadingLostWhilePausedEndsThePause) {
  ScriptedTemperature source({9, 12, std::nullopt, 30});
  FakeClock clock;
  ThermalGuard guard(settings(ThermalMode::automatic), source, clock.now_fn(), clock.sleep_fn());
  EXPECT_DOUBLE_EQ(guard.before_run(), 1.0);  // as nsight-python: a None reading stops waiting
}
