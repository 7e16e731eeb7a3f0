// Helpers shared by the GPU tests: options, row and record look-ups, CUPTI access for the
// coexistence tests.
#pragma once

#include <cupti.h>

#include <map>
#include <string>
#include <vector>

#include "kprof/kprof.hpp"

namespace kprof_test {

// Quiet options measuring durations with the given cache control and runs.
kprof::Options duration_options(kprof::CacheControl cache, int runs);

// The row of `annotation` for the duration metric (config 0); fails the test when missing.
const kprof::Row& duration_row(const kprof::Results& results, const std::string& annotation);

// "kprof_test::k_inner(float*)" -> "k_inner".
std::string short_name(const std::string& demangled);

// annotation -> short kernel names of run `run`, config 0, in kernel order.
std::map<std::string, std::vector<std::string>> kernels_by_annotation(const kprof::Results& results,
                                                                      int run);

double median(std::vector<double> values);

// A CUPTI subscriber other than kprof, as a tool attached to the process would hold.
// The test binary does not link libcupti itself: the functions come from the copy libkprof
// loaded.
class OtherSubscriber {
 public:
  // Returns the CUPTI result of cuptiSubscribe.
  CUptiResult subscribe();
  CUptiResult unsubscribe();
  ~OtherSubscriber();

 private:
  CUpti_SubscriberHandle handle_ = nullptr;
};

}  // namespace kprof_test
