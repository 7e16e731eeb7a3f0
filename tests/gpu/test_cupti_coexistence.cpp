// kprof shares the process's one CUPTI subscription: it says who holds it, and gives it back.
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"

namespace kprof_test {
namespace {

kprof::Results small_profile(kprof::demo::Kernels& kernels) {
  return kprof::profile(duration_options(kprof::CacheControl::none, 2), [&] {
    kprof::Annotation a("scale");
    kernels.scale(1024);
  });
}

TEST(CuptiCoexistence, BusySubscriberIsReportedThenProfilingWorksAgain) {
  kprof::demo::Kernels kernels(1024);
  OtherSubscriber other;
  ASSERT_EQ(other.subscribe(), CUPTI_SUCCESS);
  try {
    small_profile(kernels);
    FAIL() << "expected CuptiBusyError";
  } catch (const kprof::CuptiBusyError& e) {
    std::string message = e.what();
    std::printf("[ RESULT ] CuptiBusyError: holder '%s': %s\n", e.holder().c_str(), e.what());
    EXPECT_NE(message.find("torch.profiler"), std::string::npos);
    EXPECT_NE(message.find("fresh process"), std::string::npos);
  }
  ASSERT_EQ(other.unsubscribe(), CUPTI_SUCCESS);
  auto results = small_profile(kernels);
  EXPECT_GT(duration_row(results, "scale").median, 0);
}

TEST(CuptiCoexistence, ProfileLeavesCuptiUnsubscribed) {
  kprof::demo::Kernels kernels(1024);
  small_profile(kernels);
  OtherSubscriber other;
  EXPECT_EQ(other.subscribe(), CUPTI_SUCCESS) << "kprof still holds CUPTI after its profile";
  EXPECT_EQ(other.unsubscribe(), CUPTI_SUCCESS);
  auto results = small_profile(kernels);
  EXPECT_GT(duration_row(results, "scale").median, 0);
}

// A failing benchmark must not leave kprof subscribed either.
TEST(CuptiCoexistence, FailedProfileLeavesCuptiUnsubscribed) {
  kprof::demo::Kernels kernels(1024);
  EXPECT_THROW(kprof::profile(duration_options(kprof::CacheControl::all, 2),
                              [&] {
                                kprof::Annotation a("scale");
                                kernels.scale(1024);
                                throw std::runtime_error("user failure");
                              }),
               kprof::UserFunctionError);
  OtherSubscriber other;
  EXPECT_EQ(other.subscribe(), CUPTI_SUCCESS);
  EXPECT_EQ(other.unsubscribe(), CUPTI_SUCCESS);
}

}  // namespace
}  // namespace kprof_test
