#include "core/region_tracker.hpp"

#include <algorithm>
#include <exception>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// One entry per open annotation of this thread. Outside a profile the ids are kNoRegion, but
// the names are kept so that nesting stays checked and paths stay right.
struct OpenRegion {
  RegionId id;
  std::string name;
};

thread_local std::vector<OpenRegion> t_stack;
thread_local bool t_is_profiling_thread = false;

std::string path_of(const std::vector<OpenRegion>& stack, std::string_view name) {
  std::string path;
  for (const auto& r : stack) path += r.name + "/";
  return path + std::string(name);
}

void check_name(std::string_view name) {
  if (name.empty()) throw AnnotationError("an annotation name cannot be empty");
  if (name.find('/') != std::string_view::npos)
    throw AnnotationError("annotation name '" + std::string(name) +
                          "' contains '/', which kprof uses to join nested annotations");
}

}  // namespace

RegionTracker& RegionTracker::instance() {
  static RegionTracker tracker;
  return tracker;
}

RegionId RegionTracker::open(std::string_view name) {
  check_name(name);
  RegionId id = kNoRegion;
  if (profiling()) {
    const std::string path = path_of(t_stack, name);
    auto check_unique = [&] {
      auto same = std::find_if(runs_.begin(), runs_.end(),
                               [&](const RegionRun& r) { return r.path == path; });
      if (same != runs_.end())
        throw AnnotationError("annotation '" + path + "' was opened twice in one run (config " +
                              std::to_string(config_) + ", run " + std::to_string(run_) +
                              "); each annotation may be used once per run, or nested under "
                              "another name");
    };
    OpenListener listener;
    std::size_t config = 0;
    int run = 0;
    {
      std::lock_guard lock(mutex_);
      check_unique();
      listener = listener_;
      config = config_;
      run = run_;
    }
    // Outside the lock: the listener runs user code (info collectors), which may take time or
    // open annotations of its own.
    if (listener) listener(path, config, run);
    {
      std::lock_guard lock(mutex_);
      check_unique();
      id = next_id_.fetch_add(1);
    }
    if (t_is_profiling_thread && range_hooks_.opened) {
      // Annotations opened before the profile began are not regions: they do not count.
      const auto outer = std::count_if(t_stack.begin(), t_stack.end(),
                                       [](const OpenRegion& r) { return r.id != kNoRegion; });
      range_hooks_.opened(id, path, static_cast<std::size_t>(outer) + 1);
    }
    std::lock_guard lock(mutex_);
    RegionId parent = t_stack.empty() ? kNoRegion : t_stack.back().id;
    runs_.push_back({id, parent, path, config_, run_, false, false});
  }
  t_stack.push_back({id, std::string(name)});
  if (t_is_profiling_thread) published_top_.store(id, std::memory_order_release);
  return id;
}

void RegionTracker::close(RegionId id, bool failed) {
  if (t_stack.empty() || t_stack.back().id != id)
    throw AnnotationError("annotations must close in the reverse order they opened");
  t_stack.pop_back();
  // The region is closed whatever the hook does: a failed pop fails the run, not the nesting.
  std::exception_ptr hook_error;
  if (id != kNoRegion && t_is_profiling_thread && range_hooks_.closing) {
    try {
      range_hooks_.closing(id);
    } catch (...) {
      hook_error = std::current_exception();
    }
  }
  if (t_is_profiling_thread)
    published_top_.store(t_stack.empty() ? kNoRegion : t_stack.back().id,
                         std::memory_order_release);
  if (id == kNoRegion) return;
  {
    std::lock_guard lock(mutex_);
    for (auto& r : runs_)
      if (r.id == id) {
        r.closed = true;
        r.failed = r.failed || failed;
      }
  }
  if (hook_error) std::rethrow_exception(hook_error);
}

RegionId RegionTracker::attribute_launch() const noexcept {
  if (!profiling()) return kNoRegion;
  if (!t_stack.empty()) return t_stack.back().id;
  return published_top_.load(std::memory_order_acquire);
}

void RegionTracker::check_no_profile() const {
  if (!profiling()) return;
  if (t_is_profiling_thread)
    throw AnnotationError("a profile is already running in this process; profiles cannot nest");
  throw CuptiBusyError(
      "a kprof profile is already running on another thread of this process, and CUPTI "
      "measures one profile per process at a time: start this one after that one ends (join "
      "its thread), or in another process",
      "kprof (a profile on another thread)");
}

void RegionTracker::begin_profile() {
  if (active_.exchange(true)) {
    check_no_profile();
    // The other profile ended in between.
    throw CuptiBusyError("another kprof profile was ending as this one began; start it again",
                         "kprof (a profile on another thread)");
  }
  t_is_profiling_thread = true;
  published_top_.store(kNoRegion);
}

void RegionTracker::begin_run(std::size_t config, int run) {
  std::lock_guard lock(mutex_);
  config_ = config;
  run_ = run;
  runs_.clear();
}

std::vector<RegionRun> RegionTracker::end_run() {
  std::lock_guard lock(mutex_);
  std::vector<RegionRun> done = std::move(runs_);
  runs_.clear();
  for (const auto& r : done)
    if (!r.closed)
      throw AnnotationError("annotation '" + r.path + "' was still open when the run ended");
  return done;
}

void RegionTracker::set_open_listener(OpenListener listener) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
}

void RegionTracker::set_range_hooks(RangeHooks hooks) { range_hooks_ = std::move(hooks); }

void RegionTracker::end_profile() noexcept {
  {
    std::lock_guard lock(mutex_);
    runs_.clear();
    listener_ = nullptr;
  }
  range_hooks_ = {};
  // A run that failed may have left this thread's annotations open; they belong to the
  // aborted run, not to whatever the program does next.
  std::erase_if(t_stack, [](const OpenRegion& r) { return r.id != kNoRegion; });
  t_is_profiling_thread = false;
  published_top_.store(kNoRegion);
  active_.store(false, std::memory_order_release);
}

}  // namespace kprof::detail
