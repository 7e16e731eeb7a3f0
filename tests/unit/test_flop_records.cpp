// set:flop's counts joined to the measured kernels: a region's counts of a function go to that
// kernel's launches in every run, split over the launches of one run, NaN where nothing counted.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/flop_records.hpp"
#include "core/sass_opcodes.hpp"

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
  const std::vector<Record> out = flop_records(counted, measured);
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
  const std::vector<Record> out = flop_records(counted, measured);
  EXPECT_DOUBLE_EQ(value_of(out, 0, 0, FlopClass::ffma), 500);
  EXPECT_DOUBLE_EQ(value_of(out, 0, 1, FlopClass::ffma), 500);
}

TEST(FlopRecords, WhatWasNotCountedIsNaNNotZero) {
  std::vector<Record> measured = {launch(0, 0, "a", "scale(float*)", 0, "d"),
                                  launch(1, 0, "a", "scale(float*)", 0, "d")};
  // Config 1 was not counted; config 0's region counted another function.
  const std::vector<RegionFlop> counted = {{0, "a", {{"_Z5otherPf", counts(FlopClass::ffma, 10)}}}};
  const std::vector<Record> out = flop_records(counted, measured);
  for (const Record& r : out) EXPECT_TRUE(std::isnan(r.value)) << r.config << " " << r.metric;
}

TEST(FlopRecords, CopiesAndMemsetsGetNone) {
  Record copy = launch(0, 0, "a", "memcpy HtoD", 0, "d");
  copy.kind = "memcpy HtoD";
  const std::vector<Record> out = flop_records({}, {copy});
  EXPECT_TRUE(out.empty());
}

}  // namespace

namespace {

// Range replay measures a region as a whole: its record names every kernel in it ("a|b"), and
// gets the sum of their counts; NaN when one of them was not counted.
TEST(FlopRecords, AWholeRegionRecordGetsTheSumOfItsKernels) {
  const std::vector<Record> measured = {
      launch(0, 0, "both", "scale(float*)|add(float*, float*)", 0, "d"),
      launch(0, 0, "half", "scale(float*)|(unnamed kernel)", 0, "d")};
  const std::vector<RegionFlop> counted = {
      {0,
       "both",
       {{"_Z5scalePf", counts(FlopClass::fmul, 100)}, {"_Z3addPfS_", counts(FlopClass::fadd, 10)}}},
      {0, "half", {{"_Z5scalePf", counts(FlopClass::fmul, 100)}}}};
  const std::vector<Record> out = flop_records(counted, measured);
  for (const Record& r : out) {
    if (r.annotation == "both" && r.metric == flop_metric(FlopClass::fmul))
      EXPECT_DOUBLE_EQ(r.value, 100);
    if (r.annotation == "both" && r.metric == flop_metric(FlopClass::fadd))
      EXPECT_DOUBLE_EQ(r.value, 10);
    if (r.annotation == "half") EXPECT_TRUE(std::isnan(r.value)) << r.metric;
  }
  EXPECT_EQ(out.size(), 2u * 9u);
}

}  // namespace
