// Which region is open where: the annotation state shared by the front ends and the backends.
//
// Each thread keeps its own stack of open regions. The thread that runs the profile publishes
// the top of its stack, so a launch from a thread with no region of its own is attributed to
// the region the profiling thread has open (kernels from worker threads count).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::detail {

using RegionId = std::uint32_t;  // 0: no region
inline constexpr RegionId kNoRegion = 0;

// One opening of a region in one run.
struct RegionRun {
  RegionId id = kNoRegion;
  RegionId parent = kNoRegion;  // enclosing region on the same thread, kNoRegion at top level
  std::string path;             // "outer/inner"
  std::size_t config = 0;
  int run = 0;
  bool closed = false;
  bool failed = false;  // the body failed and the failure was ignored: values become NaN
};

class RegionTracker {
 public:
  static RegionTracker& instance();

  // --- front ends (Annotation, Python annotate) ---
  // Opens `name` on this thread. Outside a profile it only keeps the nesting (returns a handle
  // that names no region). Throws AnnotationError when the same path was already opened in
  // this run, or when the name is empty, longer than 256 bytes, only blanks, or contains a
  // control character or '/'.
  RegionId open(std::string_view name);
  // Closes the innermost region of this thread; `failed` marks its run as failed.
  // Throws AnnotationError when `id` is not the innermost open region of this thread
  // (check_closes), before anything closes: a refused close closes nothing.
  void close(RegionId id, bool failed);
  void check_closes(RegionId id) const;

  // --- backends, from CUPTI callbacks on the launching thread; never blocks for long ---
  RegionId attribute_launch() const noexcept;

  // --- the engine ---
  void begin_profile();  // the calling thread becomes the profiling thread
  // Throws unless a profile could begin on the calling thread: AnnotationError when this thread
  // runs one (profiles cannot nest) or has an annotation open, CuptiBusyError when another
  // thread does (CUPTI measures one profile per process at a time).
  void check_no_profile() const;
  void begin_run(std::size_t config, int run);
  // Ends the run; throws AnnotationError naming any region still open.
  std::vector<RegionRun> end_run();
  void end_profile() noexcept;  // also clears state left by a failed run
  // Called by open() during a profile, on the opening thread, before the region starts, with
  // the region's path and the current config and run (annotation-scope info collectors). What
  // it throws propagates out of open(). Cleared by end_profile().
  using OpenListener = std::function<void(const std::string& path, std::size_t config, int run)>;
  void set_open_listener(OpenListener listener);
  // Called on the profiling thread when it opens a region (after its id is given, before it
  // starts; depth 1 = top level) and before it closes one: the range profiler's user ranges.
  // What `opened` throws propagates out of open(). Cleared by end_profile().
  struct RangeHooks {
    std::function<void(RegionId id, const std::string& path, std::size_t depth)> opened;
    std::function<void(RegionId id)> closing;
  };
  void set_range_hooks(RangeHooks hooks);
  bool profiling() const noexcept { return active_.load(std::memory_order_acquire); }

 private:
  RegionTracker() = default;
  std::atomic<bool> active_{false};
  std::atomic<RegionId> published_top_{kNoRegion};
  std::atomic<RegionId> next_id_{1};
  mutable std::mutex mutex_;  // guards the fields below
  std::size_t config_ = 0;
  int run_ = 0;
  std::vector<RegionRun> runs_;  // regions opened in the current run
  OpenListener listener_;
  RangeHooks range_hooks_;  // read and written on the profiling thread only
};

}  // namespace kprof::detail
