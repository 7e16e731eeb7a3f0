// What limits a region (kprof/analysis.hpp): the Speed-of-Light verdict, occupancy and roofline
// from the rows of set:analysis. The thresholds are Nsight Compute's (SOLBottleneck,
// TheoreticalOccupancy and AchievedOccupancy rules), so that both tools give the same verdict.
#include "kprof/analysis.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"
#include "core/text_table.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/units.hpp"

namespace kprof {

namespace {

constexpr const char* kDuration = "gpu__time_duration.sum";
constexpr const char* kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kDramBytes = "dram__bytes.sum.per_second";
constexpr const char* kDramPeak = "dram__bytes.sum.peak_sustained_elapsed.per_second";
constexpr const char* kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
constexpr const char* kWaves = "launch__waves_per_multiprocessor";
constexpr const char* kSmCount = "launch__sm_count";

// Counters give FLOP and bytes per second; the analysis speaks in TFLOP/s and TB/s.
constexpr double kTera = 1e12;

// Nsight Compute's SOLBottleneck thresholds, in % of peak.
constexpr double kHighThroughputPct = 80;
constexpr double kLatencyPct = 60;
constexpr double kBalancedPoints = 10;
// TheoreticalOccupancy fires below 80%; AchievedOccupancy when achieved is 10 points lower.
constexpr double kLowTheoreticalPct = 80;
constexpr double kOccupancyGapPoints = 10;

// The units of the Speed-of-Light breakdown kprof reads, named for people.
struct Unit {
  const char* name;
  const char* metric;
};
const std::vector<Unit>& units() {
  static const std::vector<Unit> all = {
      {"DRAM", kDram},
      {"L2", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"L1/TEX", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
      {"FMA pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"},
      {"ALU pipe", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"},
      {"FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"},
      {"tensor pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
      {"load/store pipe", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"}};
  return all;
}

// The tensor cores' work, from the tensor path's op counters (fp16, bf16 and tf32 sources), as
// Nsight Compute's tensor roofline plots it, against the fp16 peak (bf16's is the same, tf32's
// half).
constexpr const char* kTensorOps[] = {"sm__ops_path_tensor_src_fp16.sum.per_second",
                                      "sm__ops_path_tensor_src_bf16_dst_fp32.sum.per_second",
                                      "sm__ops_path_tensor_src_tf32_dst_fp32.sum.per_second"};
constexpr const char* kTensorPeak =
    "sm__ops_path_tensor_src_fp16.sum.peak_sustained_elapsed.per_second";

// FP32, FP64 and FP16 FLOP outside the tensor cores, as Nsight Compute's single, double and
// half precision roofline sections count them: the SASS thread instructions of each class
// (set:flop) times the FLOP each does, an FMA twice an add or a multiply, and a half-precision
// instruction (HADD2, HMUL2, HFMA2) twice its single-precision form, for its two halves; the peak
// is the FMA's at the FMA's FLOP. The counts need the code instrumented (core/measure/flop_pass.hpp
// in kprof's engine with CUPTI 13.5; Nsight Compute under Tool.NCU).
struct FpPrecision {
  const char* name;
  detail::FlopClass add, mul, fma;
  double add_flop, fma_flop;  // an add or a multiply; an FMA (and the peak)
  double RegionAnalysis::*tflops;
  double RegionAnalysis::*peak_tflops;
};
constexpr FpPrecision kFpPrecisions[] = {
    {"fp32", detail::FlopClass::fadd, detail::FlopClass::fmul, detail::FlopClass::ffma, 1, 2,
     &RegionAnalysis::fp32_tflops, &RegionAnalysis::fp32_peak_tflops},
    {"fp64", detail::FlopClass::dadd, detail::FlopClass::dmul, detail::FlopClass::dfma, 1, 2,
     &RegionAnalysis::fp64_tflops, &RegionAnalysis::fp64_peak_tflops},
    {"fp16", detail::FlopClass::hadd, detail::FlopClass::hmul, detail::FlopClass::hfma, 2, 4,
     &RegionAnalysis::fp16_tflops, &RegionAnalysis::fp16_peak_tflops}};

// The four occupancy limits (blocks per SM each allows), as Nsight Compute names its limiters.
const std::vector<std::pair<const char*, const char*>>& occupancy_limits() {
  static const std::vector<std::pair<const char*, const char*>> all = {
      {"launch__occupancy_limit_registers", "registers"},
      {"launch__occupancy_limit_shared_mem", "shared memory"},
      {"launch__occupancy_limit_warps", "block size"},
      {"launch__occupancy_limit_blocks", "blocks per SM"}};
  return all;
}

using Key = std::tuple<std::string, std::size_t, int>;  // annotation, config, kernel index

// The means of one region's rows, by metric.
struct RegionValues {
  std::string kernel;
  std::map<std::string, double> mean;
  double get(const std::string& metric) const {
    auto it = mean.find(metric);
    return it == mean.end() ? std::nan("") : it->second;
  }
};

bool range_replay(const Results& r) { return whole_regions(r.session().replay_mode); }

// Refuses results that lack `missing` of a set's `size` metrics, naming a few (a profile of
// durations alone lacks nearly all of them).
void refuse_missing(const std::vector<std::string>& missing, std::size_t size,
                    const std::string& needed) {
  if (missing.empty()) return;
  constexpr std::size_t kNamed = 3;
  std::string list;
  for (std::size_t i = 0; i < missing.size() && i < kNamed; ++i)
    list += (i ? ", " : "") + missing[i];
  if (missing.size() > kNamed)
    list += " and " + std::to_string(missing.size() - kNamed) + " more of its " +
            std::to_string(size) + " metrics";
  throw OptionError("metrics", "a profile without " + list, needed);
}

// What the rows hold, not what the session asked for: the session keeps the list as given
// ("set:analysis"), and a file may have been cut down since. set:flop is optional, but a part
// of it would count part of the FLOP: all of it or none.
void require_metrics(const Results& results) {
  std::set<std::string> measured;
  for (const Row& row : results.rows()) measured.insert(row.metric);
  std::vector<std::string> missing;
  for (const std::string& m : analysis_metrics()) {
    if (range_replay(results) && metrics::is_launch_metric(m)) continue;
    if (!measured.count(m)) missing.push_back(m);
  }
  refuse_missing(missing, analysis_metrics().size(),
                 "a profile that measured set:analysis (metrics=[\"set:analysis\"])");
  std::vector<std::string> flop_missing;
  bool flop_measured = false;
  for (const std::string& m : flop_metrics()) {
    if (m == kDuration) continue;
    if (measured.count(m))
      flop_measured = true;
    else
      flop_missing.push_back(m);
  }
  if (flop_measured)
    refuse_missing(flop_missing, flop_metrics().size(),
                   "all of set:flop or none of it (metrics=[\"set:analysis\", \"set:flop\"])");
}

std::vector<std::pair<Key, RegionValues>> region_values(const Results& results) {
  std::vector<std::pair<Key, RegionValues>> out;
  std::map<Key, std::size_t> index;
  for (const Row& row : results.rows()) {
    if (!row.normalized_against.empty())
      throw OptionError("normalize_against", "'" + row.normalized_against + "'",
                        "no normalization for analysis(): it reads absolute values");
    const Key key{row.annotation, row.config, row.kernel_index};
    auto [it, added] = index.emplace(key, out.size());
    if (added) out.push_back({key, RegionValues{row.kernel, {}}});
    out[it->second].second.mean[row.metric] = row.mean;
  }
  return out;
}

// No verdict without both throughputs (every run of the region failed): NaN compares false,
// which would read as a made-up "Balanced Throughput".
void judge_throughput(RegionAnalysis& a) {
  const double sm = a.sm_throughput_pct, mem = a.memory_throughput_pct;
  if (std::isnan(sm) || std::isnan(mem)) return;
  const std::string higher = sm >= mem ? "compute" : "memory";
  if (sm >= kHighThroughputPct || mem >= kHighThroughputPct) {
    a.bound = higher;
    a.verdict = "High Throughput";
  } else if (sm < kLatencyPct && mem < kLatencyPct) {
    a.bound = "latency";
    a.verdict = a.waves_per_sm < 1 ? "Small Grid" : "Latency Issue";
  } else if (std::fabs(sm - mem) >= kBalancedPoints) {
    a.bound = higher;
    a.verdict = sm > mem ? "High Compute Throughput" : "High Memory Throughput";
  } else {
    a.bound = higher;
    a.verdict = "Balanced Throughput";
  }
}

void find_limiting_unit(RegionAnalysis& a, const RegionValues& v) {
  for (const Unit& u : units()) {
    const double pct = v.get(u.metric);
    if (!std::isnan(pct) && (a.limiting_unit.empty() || pct > a.limiting_unit_pct)) {
      a.limiting_unit = u.name;
      a.limiting_unit_pct = pct;
    }
  }
}

// Named whatever the occupancy, as Nsight Compute's table does; the advice speaks under 80%.
void find_occupancy_limiter(RegionAnalysis& a, const RegionValues& v) {
  double lowest = std::nan("");
  std::string limiter;
  for (const auto& [metric, name] : occupancy_limits()) {
    const double blocks = v.get(metric);
    if (std::isnan(blocks)) return;  // all four or none
    if (std::isnan(lowest) || blocks < lowest) {
      lowest = blocks;
      limiter = name;
    } else if (blocks == lowest) {
      limiter += std::string(" and ") + name;
    }
  }
  a.occupancy_limiter = limiter;
}

// One precision's FLOP per second outside the tensor cores, and its peak, in TFLOP/s; NaN
// where its instruction counts or a positive duration were not measured.
void fp_tflops(const FpPrecision& p, const RegionValues& v, RegionAnalysis& a) {
  const auto count = [&](detail::FlopClass c) {
    return v.get(std::string(detail::flop_metric(c)));
  };
  const double flop = p.add_flop * (count(p.add) + count(p.mul)) + p.fma_flop * count(p.fma);
  const double seconds = v.get(kDuration) * 1e-9;
  a.*p.tflops = seconds > 0 ? flop / seconds / kTera : std::nan("");
  a.*p.peak_tflops = p.fma_flop * v.get(detail::flop_peak_metric(p.fma)) / kTera;
}

// The precision a region's roofline point stands for: of those that did work and have a peak,
// the one closest to its peak; where none has a peak, the one with the most FLOP.
void choose_precision(RegionAnalysis& a) {
  struct Candidate {
    const char* name;
    double achieved, peak;
  };
  std::vector<Candidate> all = {{"tensor", a.tensor_tflops, a.tensor_peak_tflops}};
  for (const FpPrecision& p : kFpPrecisions) all.push_back({p.name, a.*p.tflops, a.*p.peak_tflops});
  const bool any_peak = std::any_of(
      all.begin(), all.end(), [](const Candidate& c) { return c.achieved > 0 && c.peak > 0; });
  double best = 0;
  for (const Candidate& c : all) {
    if (!(c.achieved > 0) || (any_peak && !(c.peak > 0))) continue;
    const double score = any_peak ? c.achieved / c.peak : c.achieved;
    if (score > best) {
      a.precision = c.name;
      a.achieved_tflops = c.achieved;
      a.peak_tflops = c.peak;
      best = score;
    }
  }
}

void compute_roofline(RegionAnalysis& a, const RegionValues& v) {
  for (const char* m : kTensorOps)
    if (const double ops = v.get(m); !std::isnan(ops)) a.tensor_tflops += ops / kTera;
  a.tensor_peak_tflops = v.get(kTensorPeak) / kTera;
  for (const FpPrecision& p : kFpPrecisions) fp_tflops(p, v, a);
  choose_precision(a);
  a.dram_tbs = v.get(kDramBytes) / kTera;
  a.dram_peak_tbs = v.get(kDramPeak) / kTera;
  if (a.dram_tbs > 0 && a.achieved_tflops > 0) {
    a.arithmetic_intensity = a.achieved_tflops / a.dram_tbs;
    a.roofline_tflops = std::min(a.peak_tflops, a.arithmetic_intensity * a.dram_peak_tbs);
  }
}

std::string pct(double v) { return format_number(v, 3) + "%"; }

std::string verdict_advice(const RegionAnalysis& a) {
  const std::string sm = pct(a.sm_throughput_pct), mem = pct(a.memory_throughput_pct);
  const std::string busiest = a.limiting_unit + " busiest at " + pct(a.limiting_unit_pct);
  const bool near_limit = a.verdict == "High Throughput";
  if (a.verdict == "Small Grid")
    return "Latency-bound: " + format_number(a.waves_per_sm, 2) + " waves per SM, the grid is " +
           "too small for " + format_number(a.sm_count, 4) +
           " SMs: launch more blocks, or give each launch more work.";
  if (a.verdict == "Latency Issue")
    return "Latency-bound: SM " + sm + " and memory " + mem + " of peak, both under 60%: warps " +
           "wait on dependencies or memory; keep more work in flight (occupancy, independent " +
           "loads, fewer synchronizations).";
  if (a.bound == "memory")
    return std::string(near_limit ? "Memory-bound near the limit, at " : "Memory-bound at ") + mem +
           " of peak (" + busiest + "): move fewer bytes (fuse, reuse through shared " +
           "memory, smaller types)" +
           (a.verdict == "Balanced Throughput" ? "; compute is close behind at " + sm : "") + ".";
  return std::string(near_limit ? "Compute-bound near the limit, at " : "Compute-bound at ") + sm +
         " of SM peak (" + busiest + "): do less work per result (cheaper instructions, " +
         "tensor cores, lower precision)" +
         (a.verdict == "Balanced Throughput" ? "; memory is close behind at " + mem : "") + ".";
}

void give_advice(RegionAnalysis& a) {
  std::vector<std::string> found;
  if (!a.verdict.empty()) found.push_back(verdict_advice(a));
  if (a.theoretical_occupancy_pct < kLowTheoreticalPct && !a.occupancy_limiter.empty()) {
    std::string limiter = a.occupancy_limiter;
    limiter[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(limiter[0])));
    found.push_back(limiter + " limit occupancy to " + pct(a.theoretical_occupancy_pct) +
                    " of the SM's warps.");
  }
  if (a.theoretical_occupancy_pct - a.achieved_occupancy_pct > kOccupancyGapPoints)
    found.push_back("Achieved occupancy " + pct(a.achieved_occupancy_pct) + " is under the " +
                    "theoretical " + pct(a.theoretical_occupancy_pct) +
                    ": warps finish unevenly, or the last wave leaves SMs idle.");
  if (a.roofline_tflops > 0)
    found.push_back("The " + a.precision + " work runs at " +
                    pct(100 * a.achieved_tflops / a.roofline_tflops) + " of the roofline at " +
                    format_number(a.arithmetic_intensity, 3) + " FLOP/byte.");
  for (const std::string& f : found) a.advice += (a.advice.empty() ? "" : " ") + f;
}

RegionAnalysis analyze_region(const Key& key, const RegionValues& v) {
  RegionAnalysis a;
  std::tie(a.annotation, a.config, a.kernel_index) = key;
  a.kernel = v.kernel;
  a.sm_throughput_pct = v.get(kSm);
  a.memory_throughput_pct = v.get(kMemory);
  a.dram_throughput_pct = v.get(kDram);
  a.achieved_occupancy_pct = v.get(kAchievedOccupancy);
  a.theoretical_occupancy_pct = v.get(kTheoreticalOccupancy);
  a.waves_per_sm = v.get(kWaves);
  a.sm_count = v.get(kSmCount);
  judge_throughput(a);
  find_limiting_unit(a, v);
  find_occupancy_limiter(a, v);
  compute_roofline(a, v);
  give_advice(a);
  return a;
}

}  // namespace

const std::vector<std::string>& analysis_metrics() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> m = {kDuration, kSm, kMemory, kAchievedOccupancy};
    for (const Unit& u : units()) m.push_back(u.metric);
    for (const char* t : kTensorOps) m.push_back(t);
    m.push_back(kTensorPeak);
    m.push_back(kDramBytes);
    m.push_back(kDramPeak);
    for (const char* l : {kTheoreticalOccupancy, kWaves, kSmCount}) m.push_back(l);
    for (const auto& limit : occupancy_limits()) m.push_back(limit.first);
    return m;
  }();
  return all;
}

const std::vector<std::string>& flop_metrics() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> m = {kDuration};
    for (const FpPrecision& p : kFpPrecisions) {
      for (detail::FlopClass c : {p.add, p.mul, p.fma}) m.emplace_back(detail::flop_metric(c));
      m.push_back(detail::flop_peak_metric(p.fma));
    }
    return m;
  }();
  return all;
}

std::vector<RegionAnalysis> analyze(const Results& results) {
  require_metrics(results);
  std::vector<RegionAnalysis> out;
  for (const auto& [key, values] : region_values(results)) {
    out.push_back(analyze_region(key, values));
    out.back().region =
        region_name(results, out.back().annotation, out.back().config, out.back().kernel_index);
  }
  return out;
}

namespace {

constexpr auto kHeadings = std::to_array<AnalysisHeading>({
    {"Bound", false},
    {"SM %", true},
    {"Memory %", true},
    {"DRAM %", true},
    {"Busiest unit", false},
    {"Occupancy %", true},
    {"Theoretical %", true},
    {"Waves/SM", true},
    {"FLOP/byte", true},
    {"TFLOP/s", true},
});

}  // namespace

std::span<const AnalysisHeading> analysis_headings() { return kHeadings; }

std::vector<std::string> analysis_cells(const RegionAnalysis& a) {
  const auto number = [](double v) { return detail::cell_number(v, 3); };
  const std::string busiest =
      a.limiting_unit.empty() ? "-"
                              : a.limiting_unit + " " + format_number(a.limiting_unit_pct, 3) + "%";
  return {a.bound.empty() ? "-" : a.bound,
          number(a.sm_throughput_pct),
          number(a.memory_throughput_pct),
          number(a.dram_throughput_pct),
          busiest,
          number(a.achieved_occupancy_pct),
          number(a.theoretical_occupancy_pct),
          number(a.waves_per_sm),
          number(a.arithmetic_intensity),
          a.achieved_tflops > 0 ? number(a.achieved_tflops) + " " + a.precision : "-"};
}

std::string analysis_text(const std::vector<RegionAnalysis>& analysis) {
  detail::TextTable t;
  t.column("Region", false);
  for (const AnalysisHeading& h : kHeadings) t.column(std::string(h.text), h.numeric);
  std::string advice;
  for (const RegionAnalysis& a : analysis) {
    t.lines.push_back(analysis_cells(a));
    t.lines.back().insert(t.lines.back().begin(), a.region);
    advice += a.region + ": " + (a.verdict.empty() ? "no verdict (not measured)" : a.verdict) +
              "\n  " + a.advice + "\n";
  }
  return t.render() + "\n" + advice;
}

}  // namespace kprof
