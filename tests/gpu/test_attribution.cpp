// Every launch style lands in the region that was open when it launched, and only there.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.hpp"
#include "test_kernels.hpp"

namespace kprof_test {
namespace {

using Kernels = std::vector<std::string>;

class DeviceBuffer {
 public:
  DeviceBuffer() {
    check(cudaMalloc(reinterpret_cast<void**>(&data_), 1024 * sizeof(float)), "cudaMalloc");
  }
  ~DeviceBuffer() { (void)cudaFree(data_); }
  float* get() const { return data_; }

 private:
  float* data_ = nullptr;
};

void one_run_of_every_style(float* out, cudaStream_t stream, cudaGraphExec_t graph) {
  launch_named(Named::outside, out);  // outside every region: never measured
  {
    kprof::Annotation a("chevron");
    launch_chevron(out);
  }
  {
    kprof::Annotation a("runtime");
    launch_runtime(out);
  }
  {
    kprof::Annotation a("ex");
    launch_ex(out);
  }
  {
    kprof::Annotation a("driver");
    launch_driver(out);
  }
  {
    kprof::Annotation a("cooperative");
    launch_cooperative(out);
  }
  {
    kprof::Annotation outer("outer");
    launch_named(Named::outer_a, out);
    {
      kprof::Annotation inner("inner");
      launch_named(Named::inner, out);
    }
    launch_named(Named::outer_b, out);
  }
  {
    // The worker has no region of its own: its launch belongs to the region the profiling
    // thread has open.
    kprof::Annotation a("thread");
    std::thread worker([out] {
      launch_named(Named::worker, out);
      check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    });
    worker.join();
  }
  {
    kprof::Annotation a("graph");
    check(cudaGraphLaunch(graph, stream), "cudaGraphLaunch");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  launch_named(Named::outside, out);
}

void expect_every_region_gets_its_kernels(kprof::CacheControl cache) {
  DeviceBuffer out;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraphExec_t graph = capture_graph(stream, out.get());  // outside the profile
  constexpr int kRuns = 3;
  kprof::Options options = duration_options(cache, kRuns);
  options.combine = kprof::CombineKind::sum;  // "outer" and "graph" hold several kernels
  auto results = kprof::profile(options, [&] { one_run_of_every_style(out.get(), stream, graph); });
  const std::map<std::string, Kernels> expected = {
      {"chevron", {"k_chevron"}},
      {"runtime", {"k_runtime"}},
      {"ex", {"k_ex"}},
      {"driver", {"k_driver"}},
      {"cooperative", {"k_coop"}},
      {"outer", {"k_outer_a", "k_inner", "k_outer_b"}},
      {"outer/inner", {"k_inner"}},
      {"thread", {"k_worker"}},
      {"graph", {"k_graph1", "k_graph2", "k_graph3"}},
  };
  for (int run = 0; run < kRuns; ++run) {
    EXPECT_EQ(kernels_by_annotation(results, run), expected) << "run " << run;
  }
  for (const auto& record : results.records()) {
    EXPECT_GT(record.value, 0) << record.annotation << " " << record.kernel;
  }
  check(cudaGraphExecDestroy(graph), "cudaGraphExecDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TEST(Attribution, EveryLaunchStyleWithColdCache) {
  expect_every_region_gets_its_kernels(kprof::CacheControl::all);
}

TEST(Attribution, EveryLaunchStyleWithWarmCache) {
  expect_every_region_gets_its_kernels(kprof::CacheControl::none);
}

// Capturing a graph inside a region launches nothing; the L2 flush must not end up in the
// user's graph, and the graph's launch is measured in the region.
TEST(Attribution, GraphCapturedInsideARegion) {
  DeviceBuffer out;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::vector<size_t> node_counts;
  kprof::Options options = duration_options(kprof::CacheControl::all, 2);
  options.combine = kprof::CombineKind::sum;  // the graph's three kernels
  auto results = kprof::profile(options, [&] {
    kprof::Annotation a("capture_and_launch");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = capture_graph(stream, out.get(), &graph);
    size_t nodes = 0;
    check(cudaGraphGetNodes(graph, nullptr, &nodes), "cudaGraphGetNodes");
    node_counts.push_back(nodes);
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  });
  for (size_t nodes : node_counts) EXPECT_EQ(nodes, 3u) << "the flush leaked into the graph";
  for (int run = 0; run < 2; ++run) {
    auto kernels = kernels_by_annotation(results, run);
    EXPECT_EQ(kernels["capture_and_launch"], (Kernels{"k_graph1", "k_graph2", "k_graph3"}));
  }
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

}  // namespace
}  // namespace kprof_test
