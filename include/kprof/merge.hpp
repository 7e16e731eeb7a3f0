// Results of several processes as one: the ranks of a job (gathered at rank 0, or saved files
// merged afterwards) or the shares of one sweep spread over GPUs. Each part keeps its session,
// so every row still says which rank, host and GPU measured it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kprof/results.hpp"

namespace kprof {

// `parts` as one Results, in the order given: each part's sweep after the one before (its
// configs renumbered, every table's items with them) and each part's session kept
// (Results::parts(); a part that was itself merged brings its parts). Statistics stay as each
// part computed them, Geomean included. Throws FormatError, saying what differs and what is
// valid, when none is given or the parts cannot be read as processes of one job:
//  - their parameters differ (naming both lists);
//  - they were measured by different backends (durations with counters);
//  - a metric is in different units, or normalized in one part and not (or against another
//    annotation) in another;
//  - a profile is given twice: two parts with the same session host, rank, device and start
//    time (started_at) are the same results twice. Ranks of one job started together differ
//    in rank, the rank 0s of an array of jobs in host or start time.
Results merge(std::span<const Results> parts);

// The shares of one sweep measured apart (analyze.kernel's devices=): merge(), with Geomean
// computed again over every config, as one profile of the whole sweep gives it. Shares come
// from kprof's own workers, which may share a GPU and a start second: no check of a profile
// given twice.
Results merge_shares(std::span<const Results> shares);

// What merged results hold, for reports: "4 ranks (0, 1, 2, 3) on 1 host (node1), GPUs 0, 1,
// 2, 3"; empty for the results of one profile.
std::string parts_note(const Results& results);

// Where ranks measured the same region, metric and config, the slowest and the fastest: only
// for metrics of time, and only where at least two ranks measured.
// Each process (a part of merged results) is named by its rank, host and GPU: the ranks of an
// array of jobs may all be 0.
struct Imbalance {
  std::string annotation;
  std::string metric;
  std::string kernel;
  int kernel_index = -1;
  std::size_t config = 0;  // the slowest process's config (the parameter values)
  int ranks = 0;           // processes that measured it
  int slowest_rank = 0;
  std::string slowest_host;
  int slowest_device = -1;
  double slowest = 0;  // its mean, in `unit`
  int fastest_rank = 0;
  std::string fastest_host;
  int fastest_device = -1;
  double fastest = 0;
  double ratio = 0;  // slowest / fastest
  std::string unit;
};

// One Imbalance per region, metric, kernel and config measured by two processes or more, in the
// order of their first row.
std::vector<Imbalance> imbalance(const Results& results);

// The same as text: "softmax [n=4096]: rank 3 is 1.08x slower than rank 0 (2.31 ms vs 2.14 ms,
// 4 ranks)", a line each, processes named "node-b GPU 1 (rank 0)" where ranks repeat; empty when
// no two processes measured the same thing.
std::string imbalance_text(const Results& results);

}  // namespace kprof
