// Copies and memsets in a region, from the C++ API: measured from CUPTI's memcpy and memset
// records with their kind and bytes, against CUDA events around the same copy; beside a kernel
// they stay in the records and the region's value is the kernel's.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "kprof/demo.hpp"

namespace kprof_test {
namespace {

constexpr std::size_t kBytes = std::size_t{256} << 20;  // larger than the L2

struct Buffers {
  void* a = nullptr;
  void* b = nullptr;
  Buffers() {
    EXPECT_EQ(cudaMalloc(&a, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, kBytes), cudaSuccess);
  }
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
  }
};

const kprof::Record* first_record(const kprof::Results& r, const std::string& annotation,
                                  const std::string& kind) {
  for (const kprof::Record& rec : r.records())
    if (rec.annotation == annotation && rec.kind == kind) return &rec;
  return nullptr;
}

TEST(Copies, CopiesAndMemsetsAreMeasuredWithTheirKindAndBytes) {
  Buffers buf;
  kprof::demo::Kernels kernels(1 << 20);
  std::vector<double> events_ns;
  cudaEvent_t begin = nullptr, end = nullptr;
  ASSERT_EQ(cudaEventCreate(&begin), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&end), cudaSuccess);
  const kprof::Results r = kprof::profile(duration_options(kprof::CacheControl::all, 10), [&] {
    kernels.spin(100);  // outside every region: hides the launch latency from the events
    cudaEventRecord(begin, nullptr);
    {
      kprof::Annotation copy("copy");
      cudaMemcpyAsync(buf.b, buf.a, kBytes, cudaMemcpyDeviceToDevice, nullptr);
    }
    cudaEventRecord(end, nullptr);
    {
      kprof::Annotation set("memset");
      cudaMemsetAsync(buf.a, 0, kBytes, nullptr);
    }
    {
      kprof::Annotation both("scale and copy");
      kernels.scale(1 << 20);
      cudaMemcpyAsync(buf.b, buf.a, kBytes, cudaMemcpyDeviceToDevice, nullptr);
    }
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, begin, end);
    events_ns.push_back(ms * 1e6);
  });
  cudaEventDestroy(begin);
  cudaEventDestroy(end);

  const kprof::Record* copy = first_record(r, "copy", "memcpy DtoD");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->bytes, static_cast<std::int64_t>(kBytes));
  EXPECT_EQ(copy->kernel, "[memcpy DtoD]");
  const kprof::Record* set = first_record(r, "memset", "memset");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->bytes, static_cast<std::int64_t>(kBytes));
  const double copy_ns = duration_row(r, "copy").median;
  std::printf("[ RESULT ] 256 MiB cudaMemcpyAsync DtoD: kprof %.1f us, events %.1f us\n",
              copy_ns / 1e3, median(events_ns) / 1e3);
  EXPECT_NEAR(copy_ns, median(events_ns), 0.05 * median(events_ns));
  EXPECT_GT(duration_row(r, "memset").median, 0);
  // Beside a kernel the copy stays in the records; the region's value is the kernel's.
  EXPECT_NE(first_record(r, "scale and copy", "memcpy DtoD"), nullptr);
  EXPECT_EQ(duration_row(r, "scale and copy").kernel.find("memcpy"), std::string::npos);
  EXPECT_LT(duration_row(r, "scale and copy").median, 0.5 * copy_ns);
}

}  // namespace
}  // namespace kprof_test
