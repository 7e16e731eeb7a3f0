#include "cuda/backends/pass_regions.hpp"

#include <optional>

#include "core/measure/range_passes.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

void PassRegions::begin_session() {
  pass_ = -1;
  first_pass_regions_.clear();
  first_pass_paths_.clear();
  first_pass_kernels_.clear();
  parent_range_.clear();
}

void PassRegions::begin_pass() {
  ++pass_;
  opened_in_pass_ = 0;
  range_of_.clear();
  open_ranges_.clear();
}

std::size_t PassRegions::open(RegionId id, const std::string& path, bool nests) {
  const std::size_t n = opened_in_pass_++;
  range_of_[id] = n;
  if (pass_ == 0) {
    first_pass_regions_.push_back(id);
    first_pass_paths_.push_back(path);
    parent_range_.push_back(open_ranges_.empty() ? kNoParentRange : open_ranges_.back());
  }
  if (nests) open_ranges_.push_back(n);
  return n;
}

bool PassRegions::close(RegionId id) {
  if (!range_of_.contains(id)) return false;
  if (!open_ranges_.empty()) open_ranges_.pop_back();
  return true;
}

std::string PassRegions::pass_prefix(ReplayMode mode) const {
  return "replay_mode='" + to_string(mode) + "': in pass " + std::to_string(pass_ + 1) + " ";
}

void PassRegions::check_kernels(const std::vector<Launch>& launches, CounterCollection& counters) {
  std::vector<std::vector<std::string>> kernels(opened_in_pass_);
  for (const Launch& l : launches) {
    const auto it = range_of_.find(l.region);
    if (it != range_of_.end() && !l.flush)
      kernels[it->second].push_back(l.graph ? "(graph)" : l.kernel);
  }
  if (pass_ == 0) {
    first_pass_kernels_ = std::move(kernels);
    return;
  }
  const std::optional<std::size_t> changed = first_changed_range(first_pass_kernels_, kernels);
  if (!changed || *changed >= first_pass_kernels_.size()) return;  // a new range: the engine
  const std::size_t n = *changed;                                  // names it
  throw MeasurementError(
      pass_prefix(counters.options().replay_mode) + "annotation '" + first_pass_paths_[n] +
      "' launched " +
      counters.kernel_list(n < kernels.size() ? kernels[n] : std::vector<std::string>{}) +
      ", in the first pass " + counters.kernel_list(first_pass_kernels_[n]) +
      "; the benchmark must launch the same kernels in every pass");
}

std::vector<std::string> PassRegions::launch_order(const std::vector<Launch>& launches) const {
  std::vector<std::string> order;
  for (const Launch& l : launches) {
    const auto it = range_of_.find(l.region);
    const std::string region = it == range_of_.end() ? "-" : std::to_string(it->second);
    order.push_back(l.flush ? "(flush)" : region + ":" + (l.graph ? "(graph)" : l.kernel));
  }
  return order;
}

}  // namespace kprof::detail
