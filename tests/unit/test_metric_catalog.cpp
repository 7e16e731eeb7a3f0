// The metric catalog of GH100 (H100, H200) from CUPTI's Profiler Host API, on the CPU: no GPU
// and no driver needed. The pass counts asserted here are those the CUPTI probe measured with
// CUDA 13.0 (cupti-probe/NOTES.md, section 1) and that kprof computes the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "core/metrics/metric_catalog.hpp"
#include "core/option_checks.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"

using namespace kprof;
using namespace kprof::metrics;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has(const std::vector<std::string>& v, const std::string& item) {
  return std::find(v.begin(), v.end(), item) != v.end();
}

// The catalog needs CUPTI: a build without CUDA has none (and says so, tested below).
#define REQUIRE_CUPTI()                                                        \
  do {                                                                         \
    if (!query_system().built_with_cuda) GTEST_SKIP() << "built without CUDA"; \
  } while (0)

MetricCatalog gh100() { return catalog("GH100"); }

}  // namespace

TEST(MetricCatalog, SupportedChipsIncludeGH100) {
  REQUIRE_CUPTI();
  const std::vector<std::string> chips = supported_chips();
  EXPECT_TRUE(has(chips, "GH100"));
  EXPECT_TRUE(has(chips, "GA100"));
  EXPECT_GE(chips.size(), 20u);
}

TEST(MetricCatalog, Gh100ListsBaseMetricsAndEveryName) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  EXPECT_EQ(c.chip(), "GH100");
  EXPECT_GT(c.base_names().size(), 3000u);
  EXPECT_TRUE(std::is_sorted(c.base_names().begin(), c.base_names().end()));
  EXPECT_TRUE(c.is_base("dram__bytes_read"));
  EXPECT_TRUE(c.is_base("TriageCompute.sm__throughput"));  // group prefix
  const std::vector<std::string> names = c.names();
  EXPECT_EQ(names.size(), c.size());
  EXPECT_GT(names.size(), 100000u);
  for (const char* n :
       {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_read.sum.per_second",
        "dram__bytes_read.avg.pct_of_peak_sustained_elapsed",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct",
        "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "CTC.TriageCompute.ctc__rx_bytes.sum"}) {
    EXPECT_TRUE(c.contains(n)) << n;
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), std::string(n))) << n;
  }
  // A base metric alone, a wrong case, a rollup a throughput lacks: not collectable.
  for (const char* n : {"dram__bytes_read", "DRAM__BYTES_READ.SUM", "sm__throughput.avg",
                        "dram__bytes_read.sum ", "bogus__metric.sum", ""}) {
    EXPECT_FALSE(c.contains(n)) << n;
  }
}

TEST(MetricCatalog, ChipNamesIgnoreCaseAndCatalogsAreBuiltOnce) {
  REQUIRE_CUPTI();
  const MetricCatalog a = catalog("gh100"), b = catalog("GH100");
  EXPECT_EQ(a.chip(), "GH100");
  EXPECT_EQ(&a.base_names(), &b.base_names());  // the same shared index
}

TEST(MetricCatalog, UnknownChipNamesItAndTheSupportedOnes) {
  REQUIRE_CUPTI();
  try {
    catalog("GX999");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "chip");
    EXPECT_TRUE(contains(e.what(), "'GX999'")) << e.what();
    EXPECT_TRUE(contains(e.valid(), "'GH100'")) << e.what();
    EXPECT_TRUE(contains(e.valid(), "'GA100'")) << e.what();
  }
}

TEST(MetricCatalog, SearchFindsNamesBySubstringOrPattern) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  const std::vector<std::string> found = c.search("dram__bytes");
  EXPECT_TRUE(has(found, "dram__bytes_read.sum"));
  EXPECT_TRUE(has(found, "dram__bytes_write.sum.per_second"));
  EXPECT_TRUE(std::is_sorted(found.begin(), found.end()));
  for (const std::string& n : found) EXPECT_TRUE(contains(n, "dram__bytes")) << n;
  EXPECT_EQ(c.search("DRAM__BYTES"), found);  // case ignored

  EXPECT_EQ(c.search_base("dram__bytes"),
            (std::vector<std::string>{"dram__bytes", "dram__bytes_read", "dram__bytes_write"}));
  // A pattern with * or ? matches the whole name.
  const std::vector<std::string> sums = c.search("dram__bytes_re?d.sum*");
  EXPECT_TRUE(has(sums, "dram__bytes_read.sum"));
  EXPECT_TRUE(has(sums, "dram__bytes_read.sum.per_second"));
  EXPECT_FALSE(has(sums, "dram__bytes_read.avg"));
  EXPECT_TRUE(c.search("*dram__bytes_read").empty());  // anchored at both ends
  EXPECT_EQ(c.search("*dram__bytes_read*"), c.search("dram__bytes_read"));
  EXPECT_TRUE(c.search("no_such_metric_anywhere").empty());
}

TEST(MetricCatalog, DescribeGivesTypeUnitDescriptionAndPasses) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  const MetricInfo read = c.describe("dram__bytes_read.sum");
  EXPECT_EQ(read.type, MetricType::counter);
  EXPECT_EQ(read.unit, "byte");
  EXPECT_EQ(read.hw_unit, "dram");
  EXPECT_EQ(read.base, "dram__bytes_read");
  EXPECT_EQ(read.suffix, ".sum");
  EXPECT_TRUE(contains(read.description, "bytes read from DRAM")) << read.description;
  EXPECT_EQ(read.passes, 1);
  EXPECT_TRUE(has(read.suffixes, ".sum.per_second"));

  const MetricInfo time = c.describe("gpu__time_duration.sum");
  EXPECT_EQ(time.unit, "nanosecond");
  EXPECT_EQ(time.passes, 1);

  const MetricInfo sm = c.describe("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(sm.type, MetricType::throughput);
  EXPECT_EQ(sm.unit, "percent");
  EXPECT_EQ(sm.passes, 8);

  EXPECT_EQ(c.describe("dram__bytes_read.sum.per_second").unit, "byte/second");
  const MetricInfo hit = c.describe("lts__t_sector_hit_rate.pct");
  EXPECT_EQ(hit.type, MetricType::ratio);
  EXPECT_EQ(hit.unit, "percent");
  EXPECT_EQ(c.describe("lts__t_sector_hit_rate.ratio").unit, "");

  // A base metric: described, with its suffixes, but no pass count (it is not collectable).
  const MetricInfo base = c.describe("dram__bytes_read");
  EXPECT_EQ(base.unit, "byte");
  EXPECT_EQ(base.suffix, "");
  EXPECT_FALSE(base.passes.has_value());
  EXPECT_TRUE(has(base.suffixes, ".sum"));
  EXPECT_EQ(c.type_of("sm__throughput"), MetricType::throughput);
  EXPECT_EQ(to_string(MetricType::ratio), "ratio");
}

TEST(MetricCatalog, PassCountsAsTheCuptiProbeMeasuredThem) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  EXPECT_EQ(c.passes({"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"}),
            1);
  EXPECT_EQ(c.passes({"sm__throughput.avg.pct_of_peak_sustained_elapsed"}), 8);
  EXPECT_EQ(c.passes({"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"}), 2);
  EXPECT_EQ(c.passes({"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}), 5);
  EXPECT_EQ(c.passes({"lts__throughput.avg.pct_of_peak_sustained_elapsed"}), 4);
  // The six metrics of the probe's Tests 3 and 4 together.
  EXPECT_EQ(c.passes({"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                      "gpc__cycles_elapsed.avg.per_second",
                      "sm__throughput.avg.pct_of_peak_sustained_elapsed"}),
            8);
  // Order and repetition do not matter (and the answer is cached).
  EXPECT_EQ(c.passes({"dram__bytes_write.sum", "dram__bytes_read.sum", "dram__bytes_read.sum"}), 1);
  EXPECT_THROW(c.passes({}), OptionError);
  EXPECT_THROW(c.passes({"bogus__metric.sum"}), OptionError);
  EXPECT_THROW(c.passes({"dram__bytes_read"}), OptionError);  // a base metric needs a suffix
}

TEST(MetricCatalog, UnknownMetricNamesTheClosestValidNames) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  try {
    c.describe("dram__bytes_red.sum");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metric");
    EXPECT_EQ(e.value(), "'dram__bytes_red.sum'");
    EXPECT_TRUE(contains(e.valid(), "GH100")) << e.what();
    EXPECT_TRUE(contains(e.valid(), "closest: 'dram__bytes_read.sum'")) << e.what();
  }
  EXPECT_EQ(c.closest("dram__bytes_red.sum", 1), std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(c.closest("DRAM__BYTES_READ.SUM", 1), std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(c.closest("sm__throughput.avg.pct_of_peak_sustaned_elapsed", 1),
            std::vector<std::string>{"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_EQ(c.closest("gpu__time_duration.summ", 1),
            std::vector<std::string>{"gpu__time_duration.sum"});
  // A base metric without its suffix: the usual rollups, .sum first.
  EXPECT_EQ(c.closest("dram__bytes_read", 2),
            (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_read.avg"}));
  EXPECT_EQ(c.closest("sm_throughput", 1),
            std::vector<std::string>{"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_EQ(
      c.closest("triagecompute.sm__throughput.avg.pct_of_peak_sustained_elapsed", 1),
      std::vector<std::string>{"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_TRUE(c.closest("foo").empty());
  EXPECT_EQ(c.closest("dram__bytes_red.sum", 3).size(), 3u);

  try {
    c.describe("dram__bytes_read.sum.per_secnd");
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_TRUE(contains(e.valid(), "'dram__bytes_read.sum.per_second'")) << e.what();
  }
}

// --- sets --------------------------------------------------------------------------------------

TEST(MetricCatalog, SetsHaveNamesQuestionsAndMembers) {
  std::vector<std::string> names;
  for (const MetricSet& s : sets()) {
    names.push_back(s.name);
    EXPECT_GT(s.question.size(), 40u) << s.name;
    EXPECT_FALSE(s.metrics.empty()) << s.name;
    EXPECT_EQ(s.metrics.front(), std::string(kDurationMetric)) << s.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"speed-of-light", "memory", "compute", "occupancy",
                                             "launch", "analysis", "flop", "source"}));
  EXPECT_EQ(find_set("set:memory").name, "memory");
  EXPECT_EQ(find_set("memory").name, "memory");
}

TEST(MetricCatalog, EverySetMemberExistsOnGh100AndItsPassCountIsKnown) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  const std::vector<std::pair<std::string, int>> expected = {
      {"speed-of-light", 9}, {"memory", 2}, {"compute", 3},
      {"occupancy", 1},      {"launch", 1}, {"flop", 1}};  // flop's counts: a pass of their own
  for (const auto& [name, passes] : expected) {
    const MetricSet& s = find_set(name);
    for (const std::string& m : s.metrics) EXPECT_TRUE(c.contains(m)) << name << ": " << m;
    const int n = c.passes({std::string(kSetPrefix) + name});
    std::cout << "[ set      ] set:" << name << ": " << s.metrics.size() << " metrics, " << n
              << " passes on GH100\n";
    EXPECT_EQ(n, passes) << name;
    EXPECT_EQ(n, c.passes(s.metrics)) << name;
  }
}

TEST(MetricCatalog, ExpandReplacesSetsAndDropsDuplicates) {
  const std::vector<std::string> out =
      expand({"dram__bytes_read.sum", "set:memory", "gpu__time_duration.sum"});
  EXPECT_EQ(out.front(), "dram__bytes_read.sum");
  EXPECT_EQ(out.size(), find_set("memory").metrics.size());
  EXPECT_EQ(std::count(out.begin(), out.end(), "dram__bytes_read.sum"), 1);
  EXPECT_EQ(std::count(out.begin(), out.end(), "gpu__time_duration.sum"), 1);
  try {
    expand({"set:speed_of_light"});
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_TRUE(contains(e.valid(), "'set:speed-of-light'")) << e.what();
  }
}

// --- Options::validate() ------------------------------------------------------------------------

TEST(MetricCatalog, ValidationWithAChipRejectsUnknownNamesWithTheClosest) {
  REQUIRE_CUPTI();
  auto on_gh100 = [] { return std::optional<std::string>("GH100"); };
  try {
    kprof::detail::check_metrics({"gpu__time_duration.sum", "dram__bytes_red.sum"}, on_gh100);
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_EQ(e.value(), "'dram__bytes_red.sum'");
    EXPECT_TRUE(contains(e.valid(), "'dram__bytes_read.sum'")) << e.what();
  }
}

TEST(MetricCatalog, ValidCountersAndSetsPassValidation) {
  REQUIRE_CUPTI();
  auto on_gh100 = [] { return std::optional<std::string>("GH100"); };
  EXPECT_NO_THROW(kprof::detail::check_metrics(
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum"}, on_gh100));
  EXPECT_NO_THROW(kprof::detail::check_metrics({"set:speed-of-light"}, on_gh100));
  EXPECT_NO_THROW(kprof::detail::check_metrics(
      {"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"}, on_gh100));
}

TEST(MetricCatalog, SassInstructionCountersAreRefusedWhateverTheChip) {
  // In GH100's catalog, yet read as 0 by the range profiler: refused before any GPU work, with
  // or without a chip to check names against, even where set:flop's classes can be counted.
  const auto counted_here = [] { return std::string(); };
  for (const auto& chip : {std::optional<std::string>("GH100"), std::optional<std::string>()}) {
    try {
      kprof::detail::check_metrics(
          {"gpu__time_duration.sum", "smsp__sass_thread_inst_executed_op_integer_pred_on.sum"},
          [chip] { return chip; }, counted_here);
      FAIL() << "no error";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.value(), "'smsp__sass_thread_inst_executed_op_integer_pred_on.sum'");
      EXPECT_TRUE(contains(e.valid(), "instrumenting")) << e.what();
      EXPECT_TRUE(contains(e.valid(), "Tool.NCU")) << e.what();
    }
  }
  EXPECT_THROW(kprof::detail::check_metrics(
                   {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_second"},
                   [] { return std::optional<std::string>(); }, counted_here),
               OptionError);
  EXPECT_NO_THROW(kprof::detail::check_metrics({"smsp__inst_executed.sum"},
                                               [] { return std::optional<std::string>(); }));
}

TEST(MetricCatalog, TheWarpSamplesPassWhereTheyCanBeTakenAndSayWhyNotElsewhere) {
  const auto gh100 = [] { return std::optional<std::string>("GH100"); };
  const auto none = [] { return std::optional<std::string>(); };
  int asked = 0;
  const auto here = [&asked] {
    ++asked;
    return std::string();
  };
  EXPECT_NO_THROW(kprof::detail::check_metrics({"set:source"}, none, {}, here));
  EXPECT_EQ(asked, 1);  // once for the set
  EXPECT_NO_THROW(kprof::detail::check_metrics({"gpu__time_duration.sum"}, none, {}, here));
  EXPECT_EQ(asked, 1);                   // not asked without a sampled metric
  if (query_system().built_with_cuda) {  // names checked against GH100's catalog too
    EXPECT_NO_THROW(kprof::detail::check_metrics(
        {"smsp__pcsamp_warps_issue_stalled_barrier", "dram__bytes_read.sum"}, gh100, {}, here));
    EXPECT_THROW(
        kprof::detail::check_metrics({"smsp__pcsamp_warps_issue_stalled_barier"}, gh100, {}, here),
        OptionError);
    const auto info = catalog("GH100").describe("smsp__pcsamp_warps_issue_stalled_wait_not_issued");
    EXPECT_EQ(info.unit, "sample");
    EXPECT_EQ(info.passes, 0);
  }
  try {
    kprof::detail::check_metrics({"gpu__time_duration.sum", "set:source"}, none, {},
                                 [] { return std::string("no PC sampling here"); });
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_EQ(e.value(), "'smsp__pcsamp_sample_count'");
    EXPECT_EQ(e.valid(), "no PC sampling here");
  }
}

TEST(MetricCatalog, TheFlopClassesPassWhereTheyCanBeCountedAndSayWhyNotElsewhere) {
  const auto none = [] { return std::optional<std::string>(); };
  const std::vector<std::string> flop = {"set:flop"};
  int asked = 0;
  EXPECT_NO_THROW(kprof::detail::check_metrics(flop, none, [&asked] {
    ++asked;
    return std::string();
  }));
  EXPECT_EQ(asked, 1);  // once for the nine classes
  try {
    kprof::detail::check_metrics(flop, none, [] { return std::string("no CUPTI 13.5 here"); });
    FAIL() << "no error";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "metrics");
    EXPECT_TRUE(contains(e.value(), "smsp__sass_thread_inst_executed_op_")) << e.what();
    EXPECT_EQ(e.valid(), "no CUPTI 13.5 here");
  }
  // A caller that names no way to count them: refused.
  EXPECT_THROW(kprof::detail::check_metrics(flop, none), OptionError);
}

TEST(MetricCatalog, ValidationOfTheDurationAloneAsksForNoChip) {
  bool asked = false;
  auto chip = [&asked] {
    asked = true;
    return std::optional<std::string>("GH100");
  };
  kprof::detail::check_metrics({std::string(kDurationMetric)}, chip);
  kprof::detail::check_metrics({std::string(kDurationMetric), std::string(kDurationMetric)}, chip);
  EXPECT_FALSE(asked);
}

TEST(MetricCatalog, ValidationWithoutAChipSkipsTheNameCheck) {
  // Without a GPU the names cannot be checked: profiling reports the missing GPU instead.
  auto none = [] { return std::optional<std::string>(); };
  EXPECT_NO_THROW(kprof::detail::check_metrics({"not__a_metric.sum"}, none));
  // A chip CUPTI does not know: names are not checked either.
  auto unknown = [] { return std::optional<std::string>("GX999"); };
  EXPECT_NO_THROW(kprof::detail::check_metrics({"not__a_metric.sum"}, unknown));
  // An unknown set is an error with or without a chip.
  EXPECT_THROW(kprof::detail::check_metrics({"set:nope"}, none), OptionError);
}

TEST(MetricCatalog, OptionsValidateKeepsTheDurationMetricAsItWas) {
  Options o;
  EXPECT_NO_THROW(o.validate());
  o.metrics = {"set:memory"};
  EXPECT_NO_THROW(o.validate());  // no GPU here, or a GPU and valid names
  o.metrics = {"set:memroy"};
  EXPECT_THROW(o.validate(), OptionError);
}

TEST(MetricCatalog, WithoutCudaTheCatalogSaysSo) {
  if (query_system().built_with_cuda) GTEST_SKIP() << "built with CUDA";
  EXPECT_THROW(supported_chips(), NoGpuError);
  EXPECT_FALSE(current_chip().has_value());
  try {
    catalog("GH100");
    ADD_FAILURE() << "a catalog without CUDA";
  } catch (const NoGpuError& e) {
    // The library's one wording of the reason, what needs CUDA, and what to do.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(std::string(kBuiltWithoutCuda), 0), 0u) << what;
    EXPECT_NE(what.find("Profiler Host API"), std::string::npos) << what;
    EXPECT_NE(what.find(kRebuildWithCuda), std::string::npos) << what;
  }
}

// Launch statistics (kprof/metrics.hpp) stand in the catalog beside the counters.
TEST(LaunchMetrics, TheCatalogListsThemAtNoPass) {
  REQUIRE_CUPTI();
  const MetricCatalog c = gh100();
  EXPECT_TRUE(c.contains("launch__sm_count"));
  EXPECT_EQ(c.type_of("launch__grid_size"), MetricType::counter);
  EXPECT_EQ(c.passes({"launch__sm_count", "launch__grid_size"}), 0);
  EXPECT_EQ(c.passes({"dram__bytes_read.sum", "launch__sm_count"}),
            c.passes({"dram__bytes_read.sum"}));
  const std::vector<std::string> limits = c.search("launch__occupancy_limit");
  EXPECT_EQ(limits, (std::vector<std::string>{
                        "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                        "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps"}));
  EXPECT_EQ(c.names().size(), c.size());
  const MetricInfo info = c.describe("launch__shared_mem_per_block_static");
  EXPECT_EQ(info.unit, "B");
  EXPECT_EQ(info.hw_unit, "launch");
  EXPECT_EQ(info.passes, 0);
  EXPECT_TRUE(has(c.closest("launch__sm_cont"), "launch__sm_count"));
}

TEST(LaunchMetrics, TheyValidateBesideCountersAndTheLaunchSetTakesOnePass) {
  REQUIRE_CUPTI();
  Options o;
  o.metrics = {"set:launch", "dram__bytes_read.sum"};
  EXPECT_NO_THROW(
      kprof::detail::check_metrics(o.metrics, [] { return std::optional<std::string>("GH100"); }));
  EXPECT_EQ(gh100().passes({"set:launch"}), 1);
}
