#include "core/measure/info_store.hpp"

#include <algorithm>
#include <exception>
#include <utility>
#include <variant>

#include "core/say.hpp"
#include "kprof/errors.hpp"

namespace kprof::detail {

bool InfoStore::has(CollectionScope scope) const {
  return std::any_of(options_.info_collectors.begin(), options_.info_collectors.end(),
                     [&](const InfoCollector& c) { return c.scope == scope; });
}

void InfoStore::call(CollectionScope scope, std::size_t config, int run,
                     const std::string& annotation) {
  if (muted_) return;
  for (const InfoCollector& c : options_.info_collectors) {
    if (c.scope != scope) continue;
    InfoValue v;
    v.name = c.name;
    v.scope = to_string(scope);
    v.config = config;
    v.run = run;
    v.annotation = annotation;
    try {
      const InfoResult r = c.collect({scope, config, run, annotation});
      if (const auto* d = std::get_if<double>(&r)) v.value = *d;
      if (const auto* t = std::get_if<std::string>(&r)) v.text = *t;
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      failed(c, e.what());
    } catch (...) {
      failed(c, "an exception of unknown type");
    }
    std::lock_guard lock(mutex_);
    values_.push_back(std::move(v));
  }
}

std::vector<InfoValue> InfoStore::take() {
  std::lock_guard lock(mutex_);
  return std::move(values_);
}

// nsight-python: the value is missing and one warning per collector and scope says why.
void InfoStore::failed(const InfoCollector& c, const std::string& what) {
  {
    std::lock_guard lock(mutex_);
    if (!warned_.insert(c.name + "/" + to_string(c.scope)).second) return;
  }
  // Logged outside the lock: a front end's log sink may wait for its interpreter lock, which
  // another thread opening an annotation may hold while it waits for this lock.
  say(options_, Verbosity::info,
      "warning: info collector '" + c.name + "' (" + to_string(c.scope) + " scope) threw: " + what +
          "; its value is missing wherever it fails");
}

}  // namespace kprof::detail
