// set:flop's counts joined to the measured kernels: a region's counts of a function go to that
// kernel's launches in every run, split over the launches of one run, NaN where nothing counted.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/metrics/flop_records.hpp"
#include "core/metrics/sass_opcodes.hpp"

namespace {

using kprof::Record;
using kprof::detail::flop_metric;
using kprof::detail::flop_records;
using kprof::detail::FlopClass;
using kprof::detail::FlopCounts;
using kprof::detail::RegionFlop;

Record launch(std::size_t config, int run, const std::string& annotation, const std::string& kernel,
              int index, const std::string& metric) {
  Record r;
  r.config = config;
  r.run = run;
  r.annotation = annotation;
  r.kernel = kernel;
  r.kernel_index = index;
  r.metric = metric;
  r.value = 1000;
  r.unit = "ns";
  return r;
}

FlopCounts counts(FlopClass c, double n) {
  FlopCounts f{};
  f[static_cast<std::size_t>(c)] = n;
  return f;
}

double value_of(const std::vector<Record>& out, int run, int index, FlopClass c) {
  for (const Record& r : out)
    if (r.run == run && r.kernel_index == index && r.metric == flop_metric(c)) return r.value;
  ADD_FAILURE() << "no record for run " << run << " kernel " << index;
  return -1;
}

TEST(FlopRecords, EveryRunOfAKernelGetsItsRegionsCountsByItsDemangledName) {
  // Two runs of "scale" (config 0), each one launch of scale(float*) with two metrics.
  std::vector<Record> measured;
  for (int run = 0; run < 2; ++run)
    for (const char* m : {"gpu__time_duration.sum", "dram__bytes_read.sum"})
      measured.push_back(launch(0, run, "scale", "scale(float*)", 0, m));
  const std::vector<RegionFlop> counted = {
      {0, "scale", {{"_Z5scalePf", counts(FlopClass::fmul, 4096)}}}};
  const std::vector<Record> out = flop_records(counted, measured, false);
  ASSERT_EQ(out.size(), 2u * 9u);  // a record per run and class, not per metric
  for (int run = 0; run < 2; ++run) {
    EXPECT_DOUBLE_EQ(value_of(out, run, 0, FlopClass::fmul), 4096);
    EXPECT_DOUBLE_EQ(value_of(out, run, 0, FlopClass::ffma), 0);
  }
  EXPECT_EQ(out.front().unit, "inst");
  EXPECT_EQ(out.front().kernel, "scale(float*)");
  EXPECT_EQ(out.front().annotation, "scale");
}

TEST(FlopRecords, ARegionThatLaunchedAFunctionTwiceSplitsItsCounts) {
  std::vector<Record> measured = {launch(0, 0, "twice", "scale(float*)", 0, "d"),
                                  launch(0, 0, "twice", "scale(float*)", 1, "d")};
  const std::vector<RegionFlop> counted = {
      {0, "twice", {{"_Z5scalePf", counts(FlopClass::ffma, 1000)}}}};
  const std::vector<Record> out = flop_records(counted, measured, false);
  EXPECT_DOUBLE_EQ(value_of(out, 0, 0, FlopClass::ffma), 500);
  EXPECT_DOUBLE_EQ(value_of(out, 0, 1, FlopClass::ffma), 500);
}

TEST(FlopRecords, WhatWasNotCountedIsNaNNotZero) {
  std::vector<Record> measured = {launch(0, 0, "a", "scale(float*)", 0, "d"),
                                  launch(1, 0, "a", "scale(float*)", 0, "d")};
  // Config 1 was not counted; config 0's region counted another function.
  const std::vector<RegionFlop> counted = {{0, "a", {{"_Z5otherPf", counts(FlopClass::ffma, 10)}}}};
  const std::vector<Record> out = flop_records(counted, measured, false);
  for (const Record& r : out) EXPECT_TRUE(std::isnan(r.value)) << r.config << " " << r.metric;
}

TEST(FlopRecords, CopiesAndMemsetsGetNone) {
  Record copy = launch(0, 0, "a", "memcpy HtoD", 0, "d");
  copy.kind = "memcpy HtoD";
  const std::vector<Record> out = flop_records({}, {copy}, false);
  EXPECT_TRUE(out.empty());
}

}  // namespace

namespace {

FlopCounts fmul_and_fadd(double fmul, double fadd) {
  FlopCounts f = counts(FlopClass::fmul, fmul);
  f[static_cast<std::size_t>(FlopClass::fadd)] = fadd;
  return f;
}

double region_value(const std::vector<Record>& out, const std::string& annotation, FlopClass c) {
  for (const Record& r : out)
    if (r.annotation == annotation && r.metric == flop_metric(c)) return r.value;
  ADD_FAILURE() << "no record of " << annotation;
  return -1;
}

// Range replay measures a region as a whole, its nested regions included: its record names the
// kernels it launched ("a|b", once per launch) and gets everything the region counted; NaN when
// a kernel it names was not counted. What it cannot name ("(graph)", "(unnamed kernel)") is
// not checked: the region's sum holds its functions.
TEST(FlopRecords, AWholeRegionRecordGetsEverythingItsRegionCounted) {
  const std::vector<Record> measured = {
      launch(0, 0, "both", "scale(float*)|add(float*, float*)", 0, "d"),
      launch(0, 0, "twice", "scale(float*)|scale(float*)", 0, "d"),
      launch(0, 0, "graph", "(graph)|(unnamed kernel)", 0, "d"),
      launch(0, 0, "missing", "scale(float*)|add(float*, float*)", 0, "d")};
  const std::vector<RegionFlop> counted = {
      {0,
       "both",
       {{"_Z5scalePf", counts(FlopClass::fmul, 100)}, {"_Z3addPfS_", counts(FlopClass::fadd, 10)}}},
      {0, "twice", {{"_Z5scalePf", counts(FlopClass::fmul, 200)}}},
      {0, "graph", {{"_Z5scalePf", counts(FlopClass::fmul, 100)}}},
      {0, "missing", {{"_Z5scalePf", counts(FlopClass::fmul, 100)}}}};
  const std::vector<Record> out = flop_records(counted, measured, true);
  EXPECT_DOUBLE_EQ(region_value(out, "both", FlopClass::fmul), 100);
  EXPECT_DOUBLE_EQ(region_value(out, "both", FlopClass::fadd), 10);
  EXPECT_DOUBLE_EQ(region_value(out, "twice", FlopClass::fmul), 200);  // counted once, not twice
  EXPECT_DOUBLE_EQ(region_value(out, "graph", FlopClass::fmul), 100);
  EXPECT_TRUE(std::isnan(region_value(out, "missing", FlopClass::fmul)));
  EXPECT_EQ(out.size(), 4u * 9u);
}

// A region opened twice in a run has a record per opening, and one sum of what both counted:
// each record gets its share, so that the run's records add up to the sum.
TEST(FlopRecords, ARegionOpenedTwiceInARunSharesItsCountsAmongItsOpenings) {
  const std::vector<Record> measured = {
      launch(0, 0, "step", "scale(float*)|add(float*, float*)", 0, "d"),
      launch(0, 0, "step", "scale(float*)", 0, "d")};
  const std::vector<RegionFlop> counted = {{0,
                                            "step",
                                            {{"_Z5scalePf", counts(FlopClass::fmul, 300)},
                                             {"_Z3addPfS_", counts(FlopClass::fadd, 10)}}}};
  const std::vector<Record> out = flop_records(counted, measured, true);
  double fmul = 0;
  for (const Record& r : out)
    if (r.metric == flop_metric(FlopClass::fmul)) fmul += r.value;
  EXPECT_DOUBLE_EQ(fmul, 300);
}

// An outer range holds its nested ranges' kernels in its counts (and in its measured values),
// whether or not it launched one itself: its record names only its own ("" when none).
TEST(FlopRecords, AnOuterRangeGetsItsNestedRegionsCounts) {
  const std::vector<Record> measured = {launch(0, 0, "outer", "", 0, "d"),
                                        launch(0, 0, "outer/inner", "add(float*, float*)", 0, "d")};
  const std::vector<RegionFlop> counted = {
      {0, "outer", {{"_Z3addPfS_", fmul_and_fadd(0, 10)}}},
      {0, "outer/inner", {{"_Z3addPfS_", fmul_and_fadd(0, 10)}}}};
  const std::vector<Record> out = flop_records(counted, measured, true);
  EXPECT_DOUBLE_EQ(region_value(out, "outer", FlopClass::fadd), 10);
  EXPECT_DOUBLE_EQ(region_value(out, "outer/inner", FlopClass::fadd), 10);
}

// A failed run's region that launched nothing has a NaN record of every metric asked for,
// set:flop's classes among them: it is no launch, and the first metric may be one of the classes.
TEST(FlopRecords, AFailedRunsRecordsOfEveryMetricAreNoLaunch) {
  Record failed = launch(0, 1, "scale", "", 0, std::string(flop_metric(FlopClass::fmul)));
  failed.value = std::nan("");
  failed.unit = "";
  Record failed_duration = failed;
  failed_duration.metric = "gpu__time_duration.sum";
  const std::vector<Record> measured = {
      failed, failed_duration, launch(0, 0, "scale", "scale(float*)", 0, "gpu__time_duration.sum")};
  const std::vector<RegionFlop> counted = {
      {0, "scale", {{"_Z5scalePf", counts(FlopClass::fmul, 4096)}}}};
  const std::vector<Record> out = flop_records(counted, measured, false);
  ASSERT_EQ(out.size(), 9u);  // run 0's launch only
  EXPECT_DOUBLE_EQ(value_of(out, 0, 0, FlopClass::fmul), 4096);
}

// The placeholder of a failed run carries every metric asked for, one no launch of the mode has
// among them (range replay measures no launch statistics): it picks no metric for the launches.
TEST(FlopRecords, AFailedRunFirstDoesNotPickAMetricNoLaunchHas) {
  Record failed = launch(0, 0, "scale", "", 0, "launch__grid_size");
  failed.value = std::nan("");
  failed.unit = "";
  const std::vector<Record> measured = {
      failed, launch(0, 1, "scale", "scale(float*)|scale(float*)", 0, "gpu__time_duration.sum")};
  const std::vector<RegionFlop> counted = {
      {0, "scale", {{"_Z5scalePf", counts(FlopClass::fmul, 4096)}}}};
  const std::vector<Record> out = flop_records(counted, measured, true);
  ASSERT_EQ(out.size(), 9u);  // run 1's record
  EXPECT_DOUBLE_EQ(value_of(out, 1, 0, FlopClass::fmul), 4096);
}

}  // namespace
