// The pause around kernel replay's L2 flush (src/core/measure/pass_pause.hpp), against a scripted
// pass.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/measure/pass_pause.hpp"

using kprof::detail::PassControl;
using kprof::detail::PassPause;

namespace {

// A pass that logs its Stops ("end") and Starts ("start"), and fails when told to.
class ScriptedPass final : public PassControl {
 public:
  bool in_pass() const override { return open_; }
  bool end_pass() override {
    log("end");
    if (fail_end) throw std::runtime_error("Stop failed");
    open_ = false;
    return true;
  }
  void start_pass() override {
    log("start");
    if (fail_start) throw std::runtime_error("Start failed");
    open_ = true;
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  bool fail_end = false, fail_start = false;

 private:
  void log(const char* what) {
    std::lock_guard lock(mutex_);
    calls_.emplace_back(what);
  }
  std::atomic<bool> open_{true};
  std::mutex mutex_;
  std::vector<std::string> calls_;
};

std::string rethrown(PassPause& pause) {
  try {
    pause.rethrow();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PassPause, StopsThePassAroundWhatItEnclosesAndStartsItAgain) {
  ScriptedPass pass;
  PassPause pause;
  pause.arm(&pass);
  ASSERT_TRUE(pause.pause());
  EXPECT_FALSE(pass.in_pass());
  pause.resume();
  EXPECT_TRUE(pass.in_pass());
  EXPECT_EQ(pass.calls(), (std::vector<std::string>{"end", "start"}));
  EXPECT_GE(pause.seconds(), 0.0);
  EXPECT_EQ(rethrown(pause), "");
}

TEST(PassPause, DoesNothingUnarmedOrOutsideAPass) {
  ScriptedPass pass;
  PassPause pause;
  EXPECT_FALSE(pause.pause());  // not armed: a 1-pass set, range replay
  pause.arm(&pass);
  pass.end_pass();  // no session open: the unmeasured calls, between runs
  EXPECT_FALSE(pause.pause());
  EXPECT_FALSE(pause.pause());  // and the lock was let go
  pass.start_pass();
  pause.arm(nullptr);
  EXPECT_FALSE(pause.pause());
  EXPECT_EQ(pass.calls(), (std::vector<std::string>{"end", "start"}));  // the test's own only
}

TEST(PassPause, AFailedStopIsKeptForTheProfilingThreadAndNothingStaysLocked) {
  ScriptedPass pass;
  PassPause pause;
  pause.arm(&pass);
  pass.fail_end = true;
  EXPECT_FALSE(pause.pause());  // the flush is then profiled; the error waits
  pass.fail_end = false;
  ASSERT_TRUE(pause.pause());  // not deadlocked
  pause.resume();
  EXPECT_EQ(rethrown(pause), "Stop failed");
  EXPECT_EQ(rethrown(pause), "");  // forgotten once thrown
}

TEST(PassPause, AFailedStartIsKeptAndTheFirstFailureWins) {
  ScriptedPass pass;
  PassPause pause;
  pause.arm(&pass);
  pass.fail_start = true;
  ASSERT_TRUE(pause.pause());
  pause.resume();
  EXPECT_FALSE(pass.in_pass());
  pass.fail_start = false;
  pass.start_pass();
  pass.fail_end = true;
  EXPECT_FALSE(pause.pause());
  EXPECT_EQ(rethrown(pause), "Start failed");
  pause.reset();
  EXPECT_EQ(rethrown(pause), "");
}

// Two launching threads: the second waits for the first's resume before it stops the pass,
// so the pass is never stopped twice or started twice in a row.
TEST(PassPause, TwoThreadsNeverStopTheSamePass) {
  ScriptedPass pass;
  PassPause pause;
  pause.arm(&pass);
  ASSERT_TRUE(pause.pause());
  std::atomic<bool> second_paused{false};
  std::thread second([&] {
    second_paused = pause.pause();
    if (second_paused) pause.resume();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it reach the lock
  EXPECT_EQ(pass.calls(), (std::vector<std::string>{"end"}));
  pause.resume();
  second.join();
  EXPECT_TRUE(second_paused);
  EXPECT_EQ(pass.calls(), (std::vector<std::string>{"end", "start", "end", "start"}));
}
