// Hardware counters in range replay (replay_mode="range"): one user range per annotation
// (nested annotations nest), one value per region. The benchmark runs once per pass, and CUPTI
// repeats each pass once per nesting level. cache_control="all" flushes the L2 before every
// top-level region in every pass (a flush and a synchronization before the range opens:
// whatever runs inside a range is counted).
#pragma once

#include <string>
#include <vector>

#include "cuda/user_replay.hpp"

namespace kprof::detail {

class RangeReplay final : public UserReplay {
 public:
  explicit RangeReplay(const Options& options) : UserReplay(options) {}
  void start(const Options& options) override;

 private:
  std::size_t call_done(std::size_t config, std::size_t regions) override;
  void on_region_open(RegionId id, const std::string& path, std::size_t depth);
  void on_region_close(RegionId id);

  std::size_t run_done(std::size_t regions) override;
  void begin_session(int depth) override;
  int passes_per_session(int depth) const override { return session_.profiler().passes() * depth; }
  bool end_pass() override;
  std::vector<Measurement> decode() override;

  int session_depth_ = 1;  // nesting levels the session profiles
};

}  // namespace kprof::detail
