// The info collectors of a profile (nsight-python's custom information collectors): called at
// their scope, their values kept for the results' info columns.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "kprof/options.hpp"
#include "kprof/results.hpp"

namespace kprof::detail {

// Annotation-scope collectors run on whichever thread opens an annotation, hence the lock.
class InfoStore {
 public:
  explicit InfoStore(const Options& options) : options_(options) {}

  bool has(CollectionScope scope) const;
  // Calls every collector of `scope`. A collector that throws gives no value there and one
  // warning; kprof's own errors (an interrupt from the front end) stop the sweep.
  void call(CollectionScope scope, std::size_t config, int run, const std::string& annotation);
  // Later passes of range and application replay repeat runs whose values are already kept.
  void mute(bool muted) { muted_ = muted; }
  std::vector<InfoValue> take();

 private:
  void failed(const InfoCollector& c, const std::string& what);

  const Options& options_;
  std::mutex mutex_;
  std::vector<InfoValue> values_;
  std::set<std::string> warned_;
  std::atomic<bool> muted_{false};
};

}  // namespace kprof::detail
