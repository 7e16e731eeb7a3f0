// Which launch APIs fire, and how they nest, for every launch style on this driver.
//
// kprof flushes L2 from the driver launch callback, so every runtime launch style must reach
// one of the driver launch APIs kprof watches. This test subscribes a probe of its own (kprof
// is not running) to the whole runtime and driver domains and prints what it sees, like
// cupti-probe Test 2a.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cupti/launch_apis.hpp"
#include "gpu_test_support.hpp"
#include "test_kernels.hpp"

namespace kprof_test {
namespace {

struct Seen {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  int depth;
  std::uint32_t correlation;
  std::string name;
};

std::mutex g_mutex;
std::vector<Seen> g_seen;
thread_local int t_depth = 0;

void CUPTIAPI probe(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->functionName == nullptr ||
      std::string(cb->functionName).find("aunch") == std::string::npos) {
    return;
  }
  if (cb->callbackSite == CUPTI_API_EXIT) {
    --t_depth;
    return;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_seen.push_back({domain, cbid, t_depth++, cb->correlationId, cb->functionName});
}

template <typename Fn>
Fn cupti(const char* name) {
  void* library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  return library ? reinterpret_cast<Fn>(dlsym(library, name)) : nullptr;
}

bool is_watched_driver_launch(const Seen& s) {
  auto ids = kprof::detail::driver_launch_cbids();
  return s.domain == CUPTI_CB_DOMAIN_DRIVER_API &&
         std::find(ids.begin(), ids.end(), s.cbid) != ids.end();
}

bool is_watched_runtime_launch(const Seen& s) {
  auto ids = kprof::detail::runtime_launch_cbids();
  return s.domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
         std::find(ids.begin(), ids.end(), s.cbid) != ids.end();
}

TEST(LaunchApis, EveryStyleReachesAWatchedDriverLaunch) {
  using Subscribe = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
  using EnableDomain = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
  using Unsubscribe = CUptiResult (*)(CUpti_SubscriberHandle);
  auto subscribe = cupti<Subscribe>("cuptiSubscribe");
  auto enable_domain = cupti<EnableDomain>("cuptiEnableDomain");
  auto unsubscribe = cupti<Unsubscribe>("cuptiUnsubscribe");
  ASSERT_TRUE(subscribe && enable_domain && unsubscribe);

  float* out = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&out), 1024 * sizeof(float)), "cudaMalloc");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraphExec_t graph = capture_graph(stream, out);

  CUpti_SubscriberHandle handle = nullptr;
  ASSERT_EQ(subscribe(&handle, &probe, nullptr), CUPTI_SUCCESS);
  ASSERT_EQ(enable_domain(1, handle, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
  ASSERT_EQ(enable_domain(1, handle, CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_SUCCESS);

  struct Style {
    const char* name;
    std::function<void()> launch;
  };
  const std::vector<Style> styles = {
      {"<<<>>>", [&] { launch_chevron(out); }},
      {"cudaLaunchKernel", [&] { launch_runtime(out); }},
      {"cudaLaunchKernelEx", [&] { launch_ex(out); }},
      {"cuLaunchKernel", [&] { launch_driver(out); }},
      {"cudaLaunchCooperativeKernel", [&] { launch_cooperative(out); }},
      {"cudaGraphLaunch", [&] { check(cudaGraphLaunch(graph, stream), "cudaGraphLaunch"); }},
  };
  for (const auto& style : styles) {
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_seen.clear();
    }
    style.launch();
    std::vector<Seen> seen;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      seen = g_seen;
    }
    std::string line;
    bool driver = false, outermost_watched = false;
    for (const auto& s : seen) {
      line += std::string(" ") + (s.domain == CUPTI_CB_DOMAIN_DRIVER_API ? "DRIVER " : "RUNTIME ") +
              s.name + "(cbid " + std::to_string(s.cbid) + ", depth " + std::to_string(s.depth) +
              ", corr " + std::to_string(s.correlation) + ")";
      driver = driver || is_watched_driver_launch(s);
      if (s.depth == 0) {
        outermost_watched = is_watched_driver_launch(s) || is_watched_runtime_launch(s);
      }
    }
    std::printf("[ RESULT ] launch style %-28s:%s\n", style.name, line.c_str());
    EXPECT_TRUE(driver) << style.name << " reached no watched driver launch API";
    EXPECT_TRUE(outermost_watched) << style.name << ": the outermost launch API is not watched";
  }
  EXPECT_EQ(unsubscribe(handle), CUPTI_SUCCESS);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaGraphExecDestroy(graph), "cudaGraphExecDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  check(cudaFree(out), "cudaFree");
}

}  // namespace
}  // namespace kprof_test
