// Ctrl-C in a C++ program: the first stops the profile with the runs made, the second would
// end the program (SIGINT's default action is back).
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "core/measure/engine.hpp"
#include "core/measure/interrupt_watch.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/profile.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::ScriptedBackend;
namespace fs = std::filesystem;

namespace {

void (*sigint_handler())(int) {
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  return now.sa_handler;
}

// SIGINT's action for the test's length, given back after it.
class SigintAction {
 public:
  explicit SigintAction(void (*handler)(int)) {
    struct sigaction set {};
    set.sa_handler = handler;
    sigemptyset(&set.sa_mask);
    sigaction(SIGINT, &set, &saved_);
  }
  ~SigintAction() { sigaction(SIGINT, &saved_, nullptr); }

 private:
  struct sigaction saved_ {};
};

// Config 0 runs twice, config 1 is interrupted in its second run.
Results interrupted_sweep(ScriptedBackend& gpu, const detail::InterruptWatch& watch) {
  Options options;
  options.runs = 2;
  options.verbosity = Verbosity::silent;
  detail::SweepHooks hooks;
  hooks.interrupt_poll = [&watch] { watch.check(); };
  return detail::run_sweep(
      gpu, options, Sweep().axis("n", {1, 2, 3}),
      [&](std::size_t c, int run) {
        Annotation a("k");
        gpu.launch("kern", 10.0 + c);
        if (c == 1 && run == 1) std::raise(SIGINT);
      },
      hooks);
}

}  // namespace

TEST(InterruptWatch, AFirstCtrlCStopsTheProfileAndGivesSigintItsDefaultActionBack) {
  SigintAction plain(SIG_DFL);
  detail::InterruptWatch watch;
  ASSERT_TRUE(watch.installed());
  EXPECT_NO_THROW(watch.check());
  std::raise(SIGINT);
  EXPECT_THROW(watch.check(), InterruptError);
  EXPECT_EQ(sigint_handler(), SIG_DFL);  // a second Ctrl-C ends the program
}

TEST(InterruptWatch, LeavesAProgramsOwnHandlerAlone) {
  SigintAction ignored(SIG_IGN);
  {
    detail::InterruptWatch watch;
    EXPECT_FALSE(watch.installed());
    std::raise(SIGINT);
    EXPECT_NO_THROW(watch.check());
  }
  EXPECT_EQ(sigint_handler(), SIG_IGN);
}

TEST(InterruptWatch, PutsTheDefaultActionBackWhenNoSignalCame) {
  SigintAction plain(SIG_DFL);
  { detail::InterruptWatch watch; }
  EXPECT_EQ(sigint_handler(), SIG_DFL);
}

TEST(InterruptWatch, TheSweepEndsAfterTheRunInProgressWithTheRunsMade) {
  SigintAction plain(SIG_DFL);
  ScriptedBackend gpu;
  const detail::InterruptWatch watch;
  try {
    interrupted_sweep(gpu, watch);
    FAIL() << "no InterruptError";
  } catch (const InterruptError& e) {
    EXPECT_NE(std::string(e.what()).find("Ctrl-C"), std::string::npos) << e.what();
    ASSERT_TRUE(e.partial_results());
    const Results& partial = *e.partial_results();
    EXPECT_EQ(partial.run_info().size(), 4u);  // both runs of config 0, both of config 1
    for (const Record& r : partial.records()) EXPECT_LT(r.config, 2u);
    EXPECT_EQ(partial_results_note(partial, {}),
              "4 runs of 2 configs measured before are kept in partial_results");
  }
  EXPECT_EQ(gpu.stops, 1);
}

TEST(InterruptWatch, PartialResultsAreSavedAsJsonAndCsvUnderThePrefix) {
  SigintAction plain(SIG_DFL);
  ScriptedBackend gpu;
  const detail::InterruptWatch watch;
  const fs::path dir = fs::temp_directory_path() / ("kprof-partial-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    interrupted_sweep(gpu, watch);
    FAIL() << "no InterruptError";
  } catch (const InterruptError& e) {
    const std::string prefix = (dir / "run-").string();
    const auto saved = save_partial_results(*e.partial_results(), prefix, "bench/0", true);
    ASSERT_GT(saved.size(), 4u);  // the JSON document, then output_csv's files
    EXPECT_EQ(saved.front(), prefix + "partial-bench_0.json");  // the tag cannot leave the folder
    for (const std::string& path : saved) {
      EXPECT_TRUE(fs::exists(path)) << path;
      EXPECT_NE(path.find("partial-bench_0"), std::string::npos) << path;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()),
              static_cast<std::ptrdiff_t>(saved.size()));
    EXPECT_EQ(Results::read_json(saved.front()), *e.partial_results());
    EXPECT_NE(partial_results_note(*e.partial_results(), saved).find("saved to " + saved.front()),
              std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(InterruptWatch, PartialResultsAreSavedWhereFilesWereAskedFor) {
  EXPECT_FALSE(saves_partial_results(false, ""));
  EXPECT_TRUE(saves_partial_results(false, "out/run-"));
  EXPECT_TRUE(saves_partial_results(true, ""));  // output_csv's folder, made when first used
}
