#include "gpu_test_support.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace kprof_test {
namespace {

template <typename Fn>
Fn cupti_function(const char* name) {
  // RTLD_NOLOAD: the libcupti that libkprof was loaded with, never a second copy.
  void* library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) throw std::runtime_error("libcupti.so.13 is not loaded");
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) throw std::runtime_error(std::string("no ") + name + " in libcupti");
  return reinterpret_cast<Fn>(symbol);
}

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace

kprof::Options duration_options(kprof::CacheControl cache, int runs) {
  kprof::Options options;
  options.runs = runs;
  options.cache_control = cache;
  options.thermal_mode = kprof::ThermalMode::off;
  options.verbosity = kprof::Verbosity::silent;
  return options;
}

const kprof::Row& duration_row(const kprof::Results& results, const std::string& annotation) {
  for (const auto& row : results.rows()) {
    if (row.annotation == annotation && row.metric == kprof::kDurationMetric && row.config == 0) {
      return row;
    }
  }
  throw std::runtime_error("no duration row for annotation '" + annotation + "'");
}

std::string short_name(const std::string& demangled) {
  std::string name = demangled.substr(0, demangled.find('('));
  std::size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

std::map<std::string, std::vector<std::string>> kernels_by_annotation(const kprof::Results& results,
                                                                      int run) {
  std::map<std::string, std::vector<std::pair<int, std::string>>> ordered;
  for (const auto& r : results.records()) {
    if (r.run != run || r.config != 0 || r.metric != kprof::kDurationMetric) continue;
    ordered[r.annotation].emplace_back(r.kernel_index, short_name(r.kernel));
  }
  std::map<std::string, std::vector<std::string>> out;
  for (auto& [annotation, kernels] : ordered) {
    std::sort(kernels.begin(), kernels.end());
    for (auto& k : kernels) out[annotation].push_back(k.second);
  }
  return out;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

CUptiResult OtherSubscriber::subscribe() {
  using Subscribe = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
  static auto fn = cupti_function<Subscribe>("cuptiSubscribe");
  return fn(&handle_, &ignore_callback, nullptr);
}

CUptiResult OtherSubscriber::unsubscribe() {
  using Unsubscribe = CUptiResult (*)(CUpti_SubscriberHandle);
  static auto fn = cupti_function<Unsubscribe>("cuptiUnsubscribe");
  if (handle_ == nullptr) return CUPTI_SUCCESS;
  CUptiResult result = fn(handle_);
  handle_ = nullptr;
  return result;
}

OtherSubscriber::~OtherSubscriber() { (void)unsubscribe(); }

}  // namespace kprof_test
