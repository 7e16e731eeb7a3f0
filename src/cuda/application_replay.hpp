// Hardware counters in application replay (replay_mode="application", Nsight Compute's
// --replay-mode application): values per kernel as in kernel replay (auto ranges), passes as
// in range replay (the benchmark runs once per pass). With cache_control="all" the flush before
// every kernel runs in every pass, so every pass of every kernel starts with a cold L2, which
// CUPTI's kernel replay before 13.4 cannot give its later passes. Each flush is an auto range of
// its own, measured and dropped. Every pass must launch the same kernels in the same order:
// auto ranges are paired with the first pass's launches by their order.
#pragma once

#include <string>
#include <vector>

#include "cuda/user_replay.hpp"

namespace kprof::detail {

class ApplicationReplay final : public UserReplay {
 public:
  explicit ApplicationReplay(const Options& options) : UserReplay(options) {}
  void start(const Options& options) override;

 private:
  std::size_t call_done(std::size_t config, std::size_t regions) override;
  void check_launch_order(const std::vector<Launch>& launches);

  std::size_t run_done(std::size_t regions) override;
  void begin_session(int depth) override;
  int passes_per_session(int) const override { return session_.profiler().passes(); }
  void begin_pass() override;
  bool end_pass() override;
  std::vector<Measurement> decode() override;

  std::size_t logged_before_run_ = 0;          // launches logged when the run began
  std::vector<Launch> first_pass_launches_;    // auto range i of every pass measured launch i
  std::vector<std::string> first_pass_order_;  // launch_order of the first pass
};

}  // namespace kprof::detail
