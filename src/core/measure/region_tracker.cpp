#include "core/measure/region_tracker.hpp"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// One entry per open annotation of this thread. Outside a profile the ids are handles that
// name no region (is_region is false), but the names are kept so that nesting stays checked
// and paths stay right.
struct OpenRegion {
  RegionId id;
  std::string name;
};

// This thread's open annotations, innermost last; whether it runs the profile; how many
// annotations it opened outside a profile. One thread_local object: in a shared library each
// thread_local is a lookup of its own, and an annotation outside a profile costs little more.
struct ThreadRegions {
  std::vector<OpenRegion> stack;
  bool profiling_thread = false;
  // Annotations outside a profile are no regions, but each gets a handle of its own so that
  // closing them out of order is refused there as it is inside one.
  RegionId outside_opened = 0;
};
thread_local ThreadRegions t_regions;

// The top bit tells the handles of annotations outside a profile from region ids, which count
// up from 1.
constexpr RegionId kOutsideBit = RegionId{1} << 31;

bool is_region(RegionId id) { return id != kNoRegion && (id & kOutsideBit) == 0; }
RegionId region_or_none(RegionId id) { return is_region(id) ? id : kNoRegion; }

std::string path_of(const std::vector<OpenRegion>& stack, std::string_view name) {
  std::string path;
  for (const auto& r : stack) path += r.name + "/";
  return path + std::string(name);
}

// A name is a column of every results table and a range on Nsight Systems' timeline: one
// longer than this is a generated string by mistake, not a name to read.
constexpr std::size_t kMaxNameBytes = 256;

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// The name as a message quotes it: control characters escaped, at most 60 characters.
std::string quoted(std::string_view name) {
  constexpr std::size_t kShown = 60;
  std::string out = "'";
  for (const char c : name.substr(0, kShown)) {
    if (!is_control(c)) {
      out += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(c);
    out += c == '\n' ? std::string("\\n") : std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
  }
  return out + (name.size() > kShown ? "...'" : "'");
}

void check_name(std::string_view name) {
  const auto refuse = [&](const std::string& why) {
    throw AnnotationError("annotation name " + quoted(name) + " " + why +
                          "; valid: 1 to 256 bytes of printable text, not only blanks, without "
                          "'/'");
  };
  if (name.empty()) throw AnnotationError("an annotation name cannot be empty");
  if (name.size() > kMaxNameBytes) refuse("is " + std::to_string(name.size()) + " bytes long");
  if (std::any_of(name.begin(), name.end(), is_control))
    refuse("contains a control character (a NUL, newline or tab)");
  if (name.find_first_not_of(' ') == std::string_view::npos) refuse("is only blanks");
  if (name.find('/') != std::string_view::npos)
    throw AnnotationError("annotation name " + quoted(name) +
                          " contains '/', which kprof uses to join nested annotations");
}

}  // namespace

RegionTracker& RegionTracker::instance() {
  static RegionTracker tracker;
  return tracker;
}

RegionId RegionTracker::open(std::string_view name) {
  check_name(name);
  ThreadRegions& t = t_regions;
  RegionId id = kOutsideBit | (++t.outside_opened & ~kOutsideBit);
  if (profiling()) {
    const std::string path = path_of(t.stack, name);
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
    if (t.profiling_thread && range_hooks_.opened) {
      // Annotations opened before the profile began are not regions: they do not count.
      const auto outer = std::count_if(t.stack.begin(), t.stack.end(),
                                       [](const OpenRegion& r) { return is_region(r.id); });
      range_hooks_.opened(id, path, static_cast<std::size_t>(outer) + 1);
    }
    std::lock_guard lock(mutex_);
    RegionId parent = t.stack.empty() ? kNoRegion : region_or_none(t.stack.back().id);
    runs_.push_back({id, parent, path, config_, run_, false, false});
  }
  t.stack.push_back({id, std::string(name)});
  if (t.profiling_thread) published_top_.store(region_or_none(id), std::memory_order_release);
  return id;
}

void RegionTracker::check_closes(RegionId id) const {
  const std::vector<OpenRegion>& stack = t_regions.stack;
  if (stack.empty() || stack.back().id != id)
    throw AnnotationError("annotations must close in the reverse order they opened");
}

void RegionTracker::close(RegionId id, bool failed) {
  ThreadRegions& t = t_regions;
  if (t.stack.empty() || t.stack.back().id != id) check_closes(id);  // throws
  t.stack.pop_back();
  // The region is closed whatever the hook does: a failed pop fails the run, not the nesting.
  std::exception_ptr hook_error;
  if (is_region(id) && t.profiling_thread && range_hooks_.closing) {
    try {
      range_hooks_.closing(id);
    } catch (...) {
      hook_error = std::current_exception();
    }
  }
  if (t.profiling_thread)
    published_top_.store(t.stack.empty() ? kNoRegion : region_or_none(t.stack.back().id),
                         std::memory_order_release);
  if (!is_region(id)) return;
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
  const std::vector<OpenRegion>& stack = t_regions.stack;
  if (!stack.empty()) return region_or_none(stack.back().id);
  return published_top_.load(std::memory_order_acquire);
}

void RegionTracker::check_no_profile() const {
  const ThreadRegions& t = t_regions;
  // An annotation left open would prefix the path of every region inside it, and is no region
  // itself: said before the profile rather than found in its results.
  if (!t.stack.empty() && !profiling()) {
    const std::vector<OpenRegion> outer(t.stack.begin(), t.stack.end() - 1);
    throw AnnotationError("annotation '" + path_of(outer, t.stack.back().name) +
                          "' is still open on this thread as the profile begins; close it "
                          "first: annotations outside a profile are not measured, and the "
                          "regions inside it would carry its name");
  }
  if (!profiling()) return;
  if (t.profiling_thread)
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
  t_regions.profiling_thread = true;
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
  std::erase_if(t_regions.stack, [](const OpenRegion& r) { return is_region(r.id); });
  t_regions.profiling_thread = false;
  published_top_.store(kNoRegion);
  active_.store(false, std::memory_order_release);
}

}  // namespace kprof::detail
