#include "core/results/results_checks.hpp"

#include <cstddef>
#include <string>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/options.hpp"
#include "kprof/units.hpp"

namespace kprof::detail {
namespace {

class Checker {
 public:
  Checker(const Results& results, const std::string& source, const ItemPlace& place)
      : configs_(results.sweep().size()), source_(source), place_(place) {}

  // Every item's config must be one of the sweep's.
  template <class T>
  void configs(std::string_view table, const std::vector<T>& items) const {
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].config >= configs_)
        fail(table, "config", i,
             "config " + std::to_string(items[i].config) + " does not exist; valid: " +
                 (configs_ == 0
                      ? std::string("none, the sweep is empty")
                      : "0 to " + std::to_string(configs_ - 1) + " (the sweep has " +
                            std::to_string(configs_) + (configs_ == 1 ? " config)" : " configs)")));
  }

  // A kernel takes no negative time; NaN (a failed run) is a value's absence, not a value.
  void duration(std::string_view table, std::string_view field, std::size_t i,
                const std::string& metric, double value, const std::string& unit) const {
    if (metric != kDurationMetric || !(value < 0)) return;
    fail(table, field, i,
         "a duration of " + format_number(value) + (unit.empty() ? "" : " " + unit) +
             "; valid: durations of 0 or more");
  }

 private:
  [[noreturn]] void fail(std::string_view table, std::string_view field, std::size_t i,
                         const std::string& what) const {
    throw FormatError(source_ + ": " + place_(table, field, i) + ": " + what);
  }

  std::size_t configs_;
  const std::string& source_;
  const ItemPlace& place_;
};

}  // namespace

void check_read_results(const Results& results, const std::string& source, const ItemPlace& place) {
  const Checker check(results, source, place);
  check.configs("records", results.records());
  check.configs("samples", results.samples());
  check.configs("rows", results.rows());
  check.configs("configs", results.config_info());
  check.configs("runs", results.run_info());
  check.configs("info", results.info());
  check.configs("source", results.source());
  const auto& records = results.records();
  for (std::size_t i = 0; i < records.size(); ++i)
    check.duration("records", "value", i, records[i].metric, records[i].value, records[i].unit);
  const auto& samples = results.samples();
  for (std::size_t i = 0; i < samples.size(); ++i)
    check.duration("samples", "value", i, samples[i].metric, samples[i].value, samples[i].unit);
  // The smallest of a row's values; a ratio of durations (normalized) is no less positive.
  const auto& rows = results.rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    check.duration("rows", "min", i, rows[i].metric, rows[i].min, rows[i].unit);
    check.duration("rows", "mean", i, rows[i].metric, rows[i].mean, rows[i].unit);
  }
}

}  // namespace kprof::detail
