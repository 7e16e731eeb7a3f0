// Copies and memsets in a region: a region of copies alone is measured by them, combined as
// kernels are; beside kernels they stay in the raw records only, so that a region's values are
// its kernels' as in Nsight Compute; KernelIndex counts kernels alone.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/measure/engine.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::quiet;
using kprof::testing::ScriptedBackend;

namespace {

const Row& duration_row(const Results& r, const std::string& annotation) {
  for (const Row& row : r.rows())
    if (row.annotation == annotation && row.metric == kDurationMetric) return row;
  throw std::runtime_error("no row for " + annotation);
}

TEST(Copies, ARegionOfOneCopyIsMeasuredByIt) {
  ScriptedBackend gpu;
  const Results r = detail::run_sweep(gpu, quiet(2), Sweep(), [&](std::size_t, int) {
    Annotation region("copy");
    gpu.copy("memcpy DtoD", 1 << 20, 40);
  });
  const Row& row = duration_row(r, "copy");
  EXPECT_DOUBLE_EQ(row.mean, 40);
  EXPECT_EQ(row.kernel, "[memcpy DtoD]");
  ASSERT_EQ(r.records().size(), 2u);
  EXPECT_EQ(r.records()[0].kind, "memcpy DtoD");
  EXPECT_EQ(r.records()[0].bytes, 1 << 20);
}

TEST(Copies, SeveralCopiesFollowTheKernelRuleAndCombine) {
  ScriptedBackend gpu;
  const auto body = [&](std::size_t, int) {
    Annotation region("copies");
    gpu.copy("memcpy HtoD", 4096, 10);
    gpu.copy("memset", 4096, 3);
  };
  try {
    detail::run_sweep(gpu, quiet(1), Sweep(), body);
    FAIL() << "two copies without a combine";
  } catch (const MeasurementError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("More than one copy or memset is launched within the copies annotation"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("replay_mode"), std::string::npos) << what;  // range replay has no copy
  }
  Options sum = quiet(1);
  sum.combine = CombineKind::sum;
  const Results r = detail::run_sweep(gpu, sum, Sweep(), body);
  EXPECT_DOUBLE_EQ(duration_row(r, "copies").mean, 13);
  EXPECT_EQ(duration_row(r, "copies").kernel, "[memcpy HtoD]|[memset]");
}

TEST(Copies, BesideAKernelTheValueIsTheKernelsAndTheCopyStaysInTheRecords) {
  ScriptedBackend gpu;
  const Results r = detail::run_sweep(gpu, quiet(2), Sweep(), [&](std::size_t, int) {
    Annotation region("step");
    gpu.copy("memcpy HtoD", 4096, 10);
    gpu.launch("k", 100);
    gpu.copy("memcpy DtoH", 4096, 12);
  });
  // No "several kernels": the region launched one kernel; its value is the kernel's.
  const Row& row = duration_row(r, "step");
  EXPECT_DOUBLE_EQ(row.mean, 100);
  EXPECT_EQ(row.kernel, "k");
  ASSERT_EQ(r.records().size(), 6u);
  // The kernel is the region's kernel 0; the copies follow it, in launch order.
  for (const Record& rec : r.records()) {
    if (rec.kind == kKernelKind) EXPECT_EQ(rec.kernel_index, 0);
    if (rec.kind == "memcpy HtoD") EXPECT_EQ(rec.kernel_index, 1);
    if (rec.kind == "memcpy DtoH") EXPECT_EQ(rec.kernel_index, 2);
  }
}

TEST(Copies, PerKernelRowsAreTheKernels) {
  ScriptedBackend gpu;
  Options o = quiet(1);
  o.per_kernel = true;
  const Results r = detail::run_sweep(gpu, o, Sweep(), [&](std::size_t, int) {
    Annotation region("step");
    gpu.copy("memcpy HtoD", 4096, 10);
    gpu.launch("a", 100);
    gpu.launch("b", 50);
  });
  ASSERT_EQ(r.rows().size(), 2u);
  EXPECT_EQ(r.rows()[0].kernel, "a");
  EXPECT_EQ(r.rows()[1].kernel, "b");
}

TEST(Copies, SavedAndReadBackWithTheirKindAndBytes) {
  ScriptedBackend gpu;
  const Results r = detail::run_sweep(gpu, quiet(1), Sweep(), [&](std::size_t, int) {
    Annotation region("copy");
    gpu.copy("memset", 256, 2);
  });
  const Results back = Results::from_json(r.to_json());
  EXPECT_EQ(back, r);
  EXPECT_EQ(back.records()[0].kind, "memset");
  EXPECT_EQ(back.records()[0].bytes, 256);
}

}  // namespace
