// Results of several ranks or GPUs as one (kprof/merge.hpp): renumbered configs, the session of
// each part on every line, statistics per rank, files that read back, the imbalance summary and
// `kprof merge`.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/merge.hpp"
#include "kprof/results.hpp"
#include "results_io_support.hpp"

namespace kprof {
namespace {

using testing::full_session;
using testing::kprof_cli;

// One rank's durations: configs n = 1, 2 (or those given), three runs of `ns * n` each.
Results rank_results(int rank, double ns, std::vector<std::int64_t> ns_values = {1, 2},
                     int device = -1) {
  SessionInfo s = full_session();
  s.rank = rank;
  s.world_size = 4;
  s.launcher = "torchrun";
  s.device = device < 0 ? rank : device;
  s.host = rank < 2 ? "node-a" : "node-b";
  std::vector<std::vector<Value>> points;
  std::vector<Record> records;
  for (std::size_t c = 0; c < ns_values.size(); ++c) {
    points.push_back({ns_values[c]});
    for (int run = 0; run < 3; ++run)
      records.push_back({c, run, "gemm", "k", 0, "gpu__time_duration.sum",
                         ns * static_cast<double>(ns_values[c]) + run, "ns"});
  }
  Options options;
  options.runs = 3;
  return Results::aggregate(s, Sweep::list({"n"}, points), records, options);
}

TEST(Merge, ConfigsFollowEachOtherAndEveryLineKeepsItsSession) {
  const std::vector<Results> parts{rank_results(0, 100), rank_results(1, 110)};
  const Results merged = merge(parts);
  ASSERT_EQ(merged.sweep().size(), 4u);
  ASSERT_EQ(merged.parts().size(), 2u);
  EXPECT_EQ(merged.parts()[1].first_config, 2u);
  EXPECT_EQ(merged.session_of(1).rank, 0);
  EXPECT_EQ(merged.session_of(2).rank, 1);
  EXPECT_EQ(merged.session_of(3).device, 1);
  EXPECT_EQ(merged.ranks(), (std::vector<int>{0, 1}));
  ASSERT_EQ(merged.rows().size(), 4u);
  // Rank 1's rows are rank 1's statistics, on its configs renumbered.
  EXPECT_EQ(merged.rows()[2].config, 2u);
  EXPECT_DOUBLE_EQ(merged.rows()[2].mean, parts[1].rows()[0].mean);
  EXPECT_DOUBLE_EQ(merged.rows()[2].geomean, parts[1].rows()[0].geomean);
  EXPECT_EQ(merged.records().back().config, 3u);
  EXPECT_EQ(merged.samples().back().config, 3u);
}

TEST(Merge, SharesOfOneSweepReadAsOneProfileOfItProcessesKeepTheirGeomean) {
  // One sweep n = 1, 2, 4, 8 measured in two shares (two GPUs of one process).
  const Results whole = rank_results(0, 100, {1, 2, 4, 8});
  const std::vector<Results> shares{rank_results(0, 100, {1, 2}, 0),
                                    rank_results(0, 100, {4, 8}, 1)};
  const Results merged = merge_shares(shares);
  ASSERT_EQ(merged.rows().size(), whole.rows().size());
  for (std::size_t i = 0; i < whole.rows().size(); ++i) {
    EXPECT_DOUBLE_EQ(merged.rows()[i].mean, whole.rows()[i].mean);
    EXPECT_DOUBLE_EQ(merged.rows()[i].geomean, whole.rows()[i].geomean);
  }
  EXPECT_EQ(merged.session_of(3).device, 1);
  // Two processes of an array of jobs, both rank 0: each keeps its own Geomean.
  const Results apart = merge(shares);
  EXPECT_DOUBLE_EQ(apart.rows()[0].geomean, shares[0].rows()[0].geomean);
  EXPECT_DOUBLE_EQ(apart.rows()[3].geomean, shares[1].rows()[1].geomean);
}

TEST(Merge, MergedPartsBringTheirPartsAndTheOrderIsKept) {
  const std::vector<Results> first{rank_results(0, 100), rank_results(1, 100)};
  const std::vector<Results> all{merge(first), rank_results(2, 100), rank_results(3, 100)};
  const Results merged = merge(all);
  ASSERT_EQ(merged.parts().size(), 4u);
  EXPECT_EQ(merged.parts()[3].first_config, 6u);
  EXPECT_EQ(merged.ranks(), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Merge, DifferentParametersAreAFormatErrorNamingBoth) {
  SessionInfo s = full_session();
  Options options;
  const Results other =
      Results::aggregate(s, Sweep::list({"m"}, {{std::int64_t{1}}}),
                         {{0, 0, "gemm", "k", 0, "gpu__time_duration.sum", 1.0, "ns"}}, options);
  const std::vector<Results> parts{rank_results(0, 100), other};
  try {
    merge(parts);
    FAIL() << "no FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("[n] and [m]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge(std::vector<Results>{}), FormatError);
}

TEST(Merge, JsonAndCsvReadBackExactlyWithEachLinesRank) {
  const std::vector<Results> parts{rank_results(0, 100), rank_results(3, 130)};
  const Results merged = merge(parts);
  EXPECT_TRUE(Results::from_json(merged.to_json()) == merged);
  const auto dir = std::filesystem::temp_directory_path() / "kprof_test_merge_csv";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "m_").string();
  merged.write_csv(prefix, "t");
  EXPECT_TRUE(std::filesystem::exists(prefix + "parts-t.csv"));
  EXPECT_TRUE(Results::read_csv(prefix, "t") == merged);
  std::ifstream in(prefix + "processed_data-t.csv");
  std::string header, line0, line1, line2;
  std::getline(in, header);
  std::getline(in, line0);
  std::getline(in, line1);
  std::getline(in, line2);
  EXPECT_TRUE(header.ends_with(",Rank,Device")) << header;
  EXPECT_TRUE(line0.ends_with(",0,0")) << line0;
  EXPECT_TRUE(line2.ends_with(",3,3")) << line2;
  EXPECT_NE(line2.find("node-b"), std::string::npos) << line2;
  std::filesystem::remove_all(dir);
}

TEST(Merge, PartsMustCoverTheSweepInOrder) {
  const Results one = rank_results(0, 100);
  EXPECT_THROW(Results(one.session(), one.sweep(), one.records(), one.samples(), one.rows(), {}, {},
                       {}, {{one.session(), 1, 1}}),
               FormatError);
  EXPECT_THROW(Results(one.session(), one.sweep(), one.records(), one.samples(), one.rows(), {}, {},
                       {}, {{one.session(), 0, 1}}),
               FormatError);
}

TEST(Merge, FilesOfARankOfSeveralCarryItsRank) {
  const Results r = rank_results(2, 100);
  EXPECT_EQ(r.file_tag("gemm-0"), "gemm-0-rank2");
  // A rank's own sweep shared among its GPUs is still that rank's; several ranks are nobody's.
  const std::vector<Results> shares{rank_results(2, 100, {1}, 0), rank_results(2, 100, {2}, 1)};
  EXPECT_EQ(merge_shares(shares).file_tag("gemm-0"), "gemm-0-rank2");
  const std::vector<Results> ranks{rank_results(1, 100), rank_results(2, 100)};
  EXPECT_EQ(merge(ranks).file_tag("gemm-0"), "gemm-0");
  SessionInfo alone = full_session();
  EXPECT_EQ(Results(alone, Sweep(), {}, {}, {}).file_tag("gemm-0"), "gemm-0");
}

TEST(Merge, ImbalanceNamesTheSlowestAndFastestRankPerConfig) {
  const std::vector<Results> parts{rank_results(0, 100), rank_results(1, 125),
                                   rank_results(2, 110)};
  const Results merged = merge(parts);
  const std::vector<Imbalance> m = imbalance(merged);
  ASSERT_EQ(m.size(), 2u);  // n = 1 and n = 2, each measured by three ranks
  EXPECT_EQ(m[0].ranks, 3);
  EXPECT_EQ(m[0].slowest_rank, 1);
  EXPECT_EQ(m[0].fastest_rank, 0);
  EXPECT_DOUBLE_EQ(m[0].ratio, 126.0 / 101.0);  // means of 100+run and 125+run over runs 0..2
  EXPECT_EQ(std::get<std::int64_t>(merged.sweep().point(m[1].config)[0]), 2);
  const std::string text = imbalance_text(merged);
  EXPECT_NE(text.find("gemm [n=1]: rank 1 is 1.25x slower than rank 0"), std::string::npos) << text;
  // One rank alone has no imbalance; neither has a merge of GPUs of one process.
  EXPECT_TRUE(imbalance(parts[0]).empty());
  EXPECT_EQ(parts_note(parts[0]), "");
  EXPECT_EQ(parts_note(merged),
            "3 ranks (0, 1, 2) on 2 hosts (node-a, node-b), GPUs 0, 1, 2, 3 parts");
}

TEST(Merge, ProcessesOfTheSameRankAreNamedByHostAndGpu) {
  // An array of jobs: every task is rank 0 of 1, on its own node.
  Results a = rank_results(0, 100, {1, 2}, 0);
  Results b = rank_results(0, 130, {1, 2}, 0);
  SessionInfo on_b = b.session();
  on_b.host = "node-b";
  b = Results(on_b, b.sweep(), b.records(), b.samples(), b.rows(), b.config_info(), b.run_info(),
              b.info());
  const std::vector<Results> parts{a, b};
  const Results merged = merge(parts);
  const std::vector<Imbalance> m = imbalance(merged);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].slowest_host, "node-b");
  EXPECT_EQ(m[0].fastest_host, "node-a");
  EXPECT_NE(imbalance_text(merged).find("node-b GPU 0 (rank 0) is 1.3x slower than node-a GPU 0 "
                                        "(rank 0)"),
            std::string::npos)
      << imbalance_text(merged);
}

TEST(Merge, ACsvSetWrittenOverMergedResultsReadsAsItsOwn) {
  const auto dir = std::filesystem::temp_directory_path() / "kprof_test_merge_stale";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "m_").string();
  const std::vector<Results> parts{rank_results(0, 100), rank_results(1, 100)};
  merge(parts).write_csv(prefix, "t");
  const Results alone = rank_results(5, 100, {1, 2, 4, 8});
  alone.write_csv(prefix, "t");
  EXPECT_FALSE(std::filesystem::exists(prefix + "parts-t.csv"));
  EXPECT_TRUE(Results::read_csv(prefix, "t") == alone);
  std::filesystem::remove_all(dir);
}

TEST(Merge, TheTableHasARankColumnWhenRanksDiffer) {
  const std::vector<Results> parts{rank_results(0, 100), rank_results(1, 125)};
  const TableCells t = merge(parts).table_cells();
  ASSERT_GE(t.header.size(), 2u);
  EXPECT_EQ(t.header[1], "Rank");
  EXPECT_EQ(t.rows[2][1], "1");
  EXPECT_NE(rank_results(0, 100).table_cells().header[1], "Rank");
}

TEST(Merge, TheCommandWritesOneFileAndSaysWhatItMerged) {
  const auto dir = std::filesystem::temp_directory_path() / "kprof_test_merge_cli";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> args{"merge"};
  for (int rank = 0; rank < 2; ++rank) {
    const std::string path = (dir / ("rank" + std::to_string(rank) + ".json")).string();
    rank_results(rank, 100 + 20 * rank).write_json(path);
    args.push_back(path);
  }
  const std::string out = (dir / "all.json").string();
  args.insert(args.end(), {"--out", out});
  const auto o = kprof_cli(args);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("merged 2 files: 2 ranks (0, 1)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("rank 1 is 1.2x slower than rank 0"), std::string::npos) << o.out;
  EXPECT_EQ(Results::read_json(out).parts().size(), 2u);
  // An existing output needs --force; one file is not a merge.
  EXPECT_EQ(kprof_cli(args).code, 2);
  args.push_back("--force");
  EXPECT_EQ(kprof_cli(args).code, 0);
  const auto one = kprof_cli({"merge", args[1], "--out", out, "--force"});
  EXPECT_EQ(one.code, 2);
  EXPECT_NE(one.err.find("missing argument FILE..."), std::string::npos) << one.err;
  const auto report = kprof_cli({"report", out});
  EXPECT_NE(report.out.find("merged  "), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("imbalance between ranks:"), std::string::npos) << report.out;
  std::filesystem::remove_all(dir);
}

// ---- what cannot be merged (real H200 recordings in tests/data) -----------------------------

const std::string kData = KPROF_TEST_DATA;

Results recording(const std::string& name) { return Results::read_json(kData + "/" + name); }

std::string merge_error(const std::vector<Results>& parts) {
  try {
    merge(parts);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "merged";
}

// The part `p` of merged results as the results its process saved.
template <class T>
std::vector<T> of_part(const std::vector<T>& items, const ResultPart& p) {
  std::vector<T> out;
  for (T item : items)
    if (item.config >= p.first_config && item.config < p.first_config + p.configs) {
      item.config -= p.first_config;
      out.push_back(std::move(item));
    }
  return out;
}

Results part_alone(const Results& merged, const ResultPart& p) {
  std::vector<std::vector<Value>> points;
  for (std::size_t c = p.first_config; c < p.first_config + p.configs; ++c)
    points.push_back(merged.sweep().point(c));
  return Results(p.session, Sweep::list(merged.sweep().names(), points),
                 of_part(merged.records(), p), of_part(merged.samples(), p),
                 of_part(merged.rows(), p), of_part(merged.config_info(), p),
                 of_part(merged.run_info(), p), of_part(merged.info(), p));
}

TEST(MergeRefuses, TheSameResultsTwice) {
  const Results demo = recording("h200-python-demo-2026-11-30.json");
  EXPECT_EQ(merge_error({demo, demo}),
            "merge: results 1 and 2 hold the same profile (rank 0 on vm, GPU 0, started "
            "2026-11-30T06:14:11Z): the same results twice; valid: each process's results once "
            "(a profile is named by its host, rank, GPU and start time)");
  // A part of merged results given again is the same profile too.
  const Results ranks = recording("h200-ranks-torchrun-2026-12-04.json");
  const std::string again = merge_error({ranks, part_alone(ranks, ranks.parts()[2])});
  EXPECT_NE(again.find("results 1 and 2 hold the same profile (rank 2 on vm, GPU 0"),
            std::string::npos)
      << again;
}

TEST(MergeRefuses, DurationsWithCounters) {
  const Results durations = recording("h200-python-demo-2026-11-30.json");
  const Results counters = recording("h200-python-counters-2026-11-30.json");
  EXPECT_EQ(merge_error({durations, counters}),
            "merge: results 1 were measured by backend 'cupti-activity', results 2 by "
            "'cupti-range-profiler'; valid: results of one job, every part measured by the same "
            "backend (the same metrics and options)");
}

TEST(MergeRefuses, AMetricInDifferentUnitsOrNormalizedInOnePartOnly) {
  const Results plain = recording("h200-python-demo-2026-11-30.json");
  const Results normalized = recording("h200-python-normalized-2026-11-30.json");
  EXPECT_EQ(merge_error({plain, normalized}),
            "merge: gpu__time_duration.sum is in 'ns' in results 1 and in 'ratio' (normalized "
            "against 'memory/scale') in results 2; valid: every metric in one unit, normalized "
            "the same way in every part or in none");
  // Units that convert are still two units: the imbalance would compare their numbers.
  Results a = rank_results(0, 100), b = rank_results(1, 100);
  std::vector<Row> rows = b.rows();
  for (Row& r : rows) r.unit = "us";
  b = Results(b.session(), b.sweep(), b.records(), b.samples(), rows);
  EXPECT_NE(merge_error({a, b}).find("is in 'ns' in results 1 and in 'us' in results 2"),
            std::string::npos);
}

TEST(MergeRefuses, NothingThatTheRanksOfOneJobGive) {
  // The four ranks of a torchrun job on one H200, as each saved its results: the same host,
  // GPU and start second, four ranks.
  const Results ranks = recording("h200-ranks-torchrun-2026-12-04.json");
  ASSERT_EQ(ranks.parts().size(), 4u);
  std::vector<Results> alone;
  for (const ResultPart& p : ranks.parts()) alone.push_back(part_alone(ranks, p));
  const Results merged = merge(alone);
  EXPECT_EQ(merged.rows().size(), ranks.rows().size());
  EXPECT_EQ(imbalance_text(merged), imbalance_text(ranks));
  // Shares of one sweep on one GPU (devices=[0, 0]) are kprof's own workers: not refused.
  const std::vector<Results> shares{rank_results(0, 100, {1}, 0), rank_results(0, 100, {2}, 0)};
  EXPECT_EQ(merge_shares(shares).parts().size(), 2u);
  EXPECT_THROW(merge(shares), FormatError);
}

TEST(MergeRefuses, TheCommandSaysWhyOnOneLineAndExits2) {
  const auto dir = std::filesystem::temp_directory_path() / "kprof_test_merge_refused";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string demo = kData + "/h200-python-demo-2026-11-30.json";
  const std::string out = (dir / "all.json").string();
  const auto o = kprof_cli({"merge", demo, demo, "--out", out});
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.substr(0, o.err.find('\n')),
            "kprof merge: cannot merge these files: results 1 and 2 hold the same profile (rank "
            "0 on vm, GPU 0, started 2026-11-30T06:14:11Z): the same results twice; valid: each "
            "process's results once (a profile is named by its host, rank, GPU and start time)");
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kprof
