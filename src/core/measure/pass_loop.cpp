#include "core/measure/pass_loop.hpp"

#include <string>
#include <utility>

#include "core/say.hpp"

namespace kprof::detail {
namespace {

using Unit = std::pair<std::size_t, int>;  // (config, run)

class SessionLoop {
 public:
  SessionLoop(SweepRuns& runs, PassSessions& sessions, UnmeasuredCalls& calls)
      : runs_(runs), sessions_(sessions), calls_(calls) {
    for (std::size_t c = 0; c < runs.configs(); ++c)
      for (int r = 0; r < runs.options().runs; ++r) units_.emplace_back(c, r);
  }

  void run() {
    for (std::size_t next = 0; next < units_.size();) next = run_session(next);
  }

 private:
  // Runs the session that starts at unit `first`; returns the first unit it left out.
  std::size_t run_session(std::size_t first) {
    calls_.raise_if_failed(units_[first].first);
    const std::size_t capacity = sessions_.session_capacity();  // the session being opened
    const int depth = calls_.depth();
    sessions_.begin_session(depth);
    std::vector<std::vector<std::string>> paths;  // the first pass's regions, per unit
    std::size_t end = first;
    const int passes = sessions_.passes_per_session(depth);
    bool done = false;
    for (int pass = 0; !done; ++pass) {
      sessions_.begin_pass();
      if (pass == 0) {
        end = first_pass(first, capacity, paths);
      } else {  // the first pass reports its runs as any sweep does
        say(runs_.options(), Verbosity::info,
            to_string(runs_.options().replay_mode) + " replay: pass " + std::to_string(pass + 1) +
                " of " + std::to_string(passes) + " over " + std::to_string(end - first) +
                " run(s)");
        for (std::size_t u = first; u < end; ++u)
          runs_.replay(units_[u].first, units_[u].second, paths[u - first], pass);
      }
      done = sessions_.end_pass();
    }
    runs_.collect([this] { return sessions_.decode(); });
    return end;
  }

  // The measured pass: runs units from `first` while they fit the session; returns the end.
  std::size_t first_pass(std::size_t first, std::size_t capacity,
                         std::vector<std::vector<std::string>>& paths) {
    std::size_t end = first;
    std::size_t used = 0;
    do {
      const auto [c, r] = units_[end++];
      if (r == 0) runs_.begin_config(c);
      paths.push_back(runs_.run(c, r));
      const std::size_t ranges = sessions_.run_done(paths.back().size());
      used += ranges;
      calls_.widen(c, ranges);  // wider than its call said
      if (r + 1 == runs_.options().runs) runs_.end_config(StopReason::runs);
    } while (end < units_.size() && fits(units_[end].first, used, capacity));
    return end;
  }

  // Whether a run of config `c` fits a session holding `used` of `capacity` ranges; a config
  // whose unmeasured call failed starts a session of its own, where its error is raised.
  bool fits(std::size_t c, std::size_t used, std::size_t capacity) const {
    return !calls_.failed(c) && used + calls_.ranges(c) <= capacity;
  }

  SweepRuns& runs_;
  PassSessions& sessions_;
  UnmeasuredCalls& calls_;
  std::vector<Unit> units_;
};

}  // namespace

void run_passes(SweepRuns& runs, PassSessions& sessions, UnmeasuredCalls& calls) {
  SessionLoop(runs, sessions, calls).run();
}

}  // namespace kprof::detail
