#include "core/measure/record_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace {

// "void ns::k<int>(float*, int)" -> "void ns::k<int>"
std::string_view without_parameters(std::string_view name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

std::string_view without_return_type(std::string_view name) {
  constexpr std::string_view kVoid = "void ";
  return name.starts_with(kVoid) ? name.substr(kVoid.size()) : name;
}

}  // namespace

bool RecordBuilder::ignored(const Measurement& m) const {
  const std::string_view base = without_parameters(m.kernel);
  for (const auto& name : options_.ignore_kernels)
    if (name == m.kernel || name == m.mangled || name == base || name == without_return_type(base))
      return true;
  return false;
}

void RecordBuilder::add_regions(std::vector<RegionRun> regions) {
  const std::size_t first = regions_.size();
  for (auto& r : regions) {
    index_[r.id] = regions_.size();
    regions_.push_back(std::move(r));
  }
  // Parents open in the same run as their children: only the new regions need a look.
  for (std::size_t i = first; i < regions_.size(); ++i)
    if (const RegionRun& r = regions_[i]; r.failed)
      for (auto it = index_.find(r.parent); it != index_.end();
           it = index_.find(regions_[it->second].parent))
        regions_[it->second].failed = true;
}

void RecordBuilder::fail_pending() noexcept {
  for (auto& r : regions_) r.failed = true;
}

void RecordBuilder::add_measurements(const std::vector<Measurement>& measurements) {
  for (const auto& m : measurements) {
    if (m.region != kNoRegion && m.region <= last_flushed_)
      throw MeasurementError("a record of kernel " + m.kernel +
                             " arrived after the config it was launched in had been collected; "
                             "its region would have been measured without it");
    if (!index_.contains(m.region) || ignored(m)) continue;
    if (!std::isnan(m.sm_clock_hz)) {
      const RegionRun& r = regions_[index_.at(m.region)];
      auto& [sum, count] = clocks_[{r.config, r.run}];
      sum += m.sm_clock_hz;
      ++count;
    }
    owned_.push_back(m);
    if (m.whole_region) {
      kernels_[m.region].push_back(&owned_.back());
      continue;
    }
    // An outer region includes the kernels of the regions nested in it.
    for (RegionId id = m.region; id != kNoRegion;) {
      kernels_[id].push_back(&owned_.back());
      auto it = index_.find(id);
      id = it == index_.end() ? kNoRegion : regions_[it->second].parent;
    }
  }
}

std::map<std::pair<std::size_t, int>, double> RecordBuilder::take_clocks() {
  std::map<std::pair<std::size_t, int>, double> out;
  for (const auto& [key, value] : clocks_) out[key] = value.first / value.second / 1e3;
  clocks_.clear();
  return out;
}

void RecordBuilder::emit(const RegionRun& region, std::vector<Record>& out) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto it = kernels_.find(region.id);
  if (it == kernels_.end()) {
    // A failed run that launched nothing still leaves a NaN record: the run is visible in
    // the raw data, and NumRuns (which counts values that are not NaN) leaves it out.
    for (const auto& metric : options_.metrics)
      out.push_back({region.config, region.run, region.path, "", 0, metric, nan, ""});
    return;
  }
  std::vector<const Measurement*> kernels = it->second;
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const Measurement* a, const Measurement* b) { return a->order < b->order; });
  // Kernels first: a region's kernels are 0..k-1 as Nsight Compute (which sees no copy) counts
  // them; its copies and memsets follow, k and on, so that an index names one record.
  int next_kernel = 0;
  int next_copy = static_cast<int>(std::count_if(kernels.begin(), kernels.end(),
                                                 [](auto* m) { return m->kind == kKernelKind; }));
  for (const Measurement* m : kernels) {
    const int index = m->kind == kKernelKind ? next_kernel++ : next_copy++;
    for (const auto& v : m->values)
      out.push_back({region.config, region.run, region.path, m->kernel, index, v.metric,
                     region.failed ? nan : v.value, v.unit, m->start_ns, m->end_ns, m->stream,
                     m->kind, m->bytes});
  }
}

void RecordBuilder::flush(std::vector<Record>& out, bool require_kernels) {
  // Checked before anything is emitted, so that a later flush after the error (salvaging a
  // failed sweep) emits each region once.
  if (require_kernels)
    for (const auto& region : regions_)
      if (!region.failed && !kernels_.contains(region.id))
        throw MeasurementError(
            "annotation '" + region.path + "' launched no kernel in config " +
            std::to_string(region.config) + " (" + sweep_.config(region.config).to_string() +
            "), run " + std::to_string(region.run) +
            ". Kernels are measured when they are launched while the annotation is open; check "
            "that the work runs on the GPU inside it and that ignore_kernel_list does not "
            "remove all of its kernels. Copies and memsets count as a region's work when "
            "durations are measured alone; hardware counters measure kernels only.");
  for (const auto& region : regions_) {
    emit(region, out);
    last_flushed_ = std::max(last_flushed_, region.id);
  }
  regions_.clear();
  index_.clear();
  kernels_.clear();
  owned_.clear();
}

}  // namespace kprof::detail
