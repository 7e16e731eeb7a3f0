// kprof's metric sets and the expansion of "set:NAME" in a metric list. Pure data: works in
// every build; tests check that each member exists in the GH100 catalog.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "kprof/analysis.hpp"
#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"

namespace kprof::metrics {
namespace {

// The duration, the sample count and each reason's samples (not the `_not_issued` variants,
// a part of each: named alone, they are measured too).
std::vector<std::string> source_metrics() {
  std::vector<std::string> out = {"gpu__time_duration.sum"};
  for (const LaunchMetric& m : sampled_metrics())
    if (!is_not_issued(m.name)) out.emplace_back(m.name);
  return out;
}

}  // namespace

const std::vector<MetricSet>& sets() {
  static const std::vector<MetricSet> all = {
      {"speed-of-light",
       "How close does the kernel come to the GPU's limits? Duration, SM clock, and the "
       "throughput of the SMs, DRAM, L1, L2 and of the busiest compute or memory unit, each in % "
       "of its sustained peak: the highest one names the bottleneck.",
       {"gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "l1tex__throughput.avg.pct_of_peak_sustained_active",
        "lts__throughput.avg.pct_of_peak_sustained_elapsed",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}},
      {"memory",
       "Where does the data come from? Bytes read from and written to DRAM, bytes through L2 and "
       "L1, and the L2 and L1 hit rates (with the duration, to turn bytes into bandwidth).",
       {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
        "lts__t_bytes.sum", "l1tex__t_bytes.sum", "lts__t_sector_hit_rate.pct",
        "l1tex__t_sector_hit_rate.pct"}},
      {"compute",
       "What do the SMs execute, and how busy are their pipes? Warp instructions executed, "
       "instructions per cycle, issue slots used, and the utilisation of the ALU, FMA, FP64, "
       "tensor and load/store pipes.",
       {"gpu__time_duration.sum", "smsp__inst_executed.sum",
        "sm__inst_executed.avg.per_cycle_active",
        "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"}},
      {"occupancy",
       "How full are the SMs? Achieved occupancy (warps in flight in % of the SM's warp slots), "
       "warps in flight per SM, and the SM's warp slots. Theoretical occupancy (the limit that "
       "registers, shared memory and block size put on a launch) is a property of the launch, "
       "not a hardware counter: set:launch holds it.",
       {"gpu__time_duration.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
        "sm__warps_active.avg.per_cycle_active", "sm__warps_active.avg.peak_sustained"}},
      {"launch",
       "How was the kernel launched? Grid and block, registers and shared memory, SMs, waves, "
       "the occupancy limits and the theoretical occupancy, as Nsight Compute's LaunchStats and "
       "Occupancy sections give them; read from the launch, so the set takes no counter pass.",
       {"gpu__time_duration.sum", "launch__grid_size", "launch__block_size", "launch__thread_count",
        "launch__registers_per_thread", "launch__shared_mem_per_block_static",
        "launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_driver",
        "launch__shared_mem_config_size", "launch__sm_count", "launch__waves_per_multiprocessor",
        "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
        "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
        "sm__maximum_warps_per_active_cycle_pct"}},
      {"analysis",
       "What limits the kernel? The least that answers it: the Speed-of-Light throughputs and "
       "the busiest unit, achieved and theoretical occupancy with the launch that limits it, "
       "and the tensor cores' work and DRAM bytes per second against their peaks, for a "
       "roofline. results.analysis() and `kprof report --explain` read it.",
       analysis_metrics()},
      {"flop",
       "How many FP32, FP64 and FP16 operations outside the tensor cores, against which peak? "
       "The SASS thread instructions of each add, multiply and fused multiply-add class (an FMA "
       "counts two FLOP, a half-precision instruction twice its single form), with each "
       "precision's FMA peak: a roof per precision in "
       "results.analysis() and the roofline. They are counted by instrumenting the code: kprof "
       "does it in one more call of each config after the measured runs, with CUPTI 13.5 or "
       "later and nvdisasm (`kprof doctor` says whether this machine has them); elsewhere "
       "measure this set with kprof.Tool.NCU.",
       flop_metrics()},
      {"source",
       "Where in the kernel do the warps wait, and why? Warp samples of each stall reason "
       "(Nsight Compute's SourceCounters and WarpStateStats sections), from CUPTI's PC sampling in "
       "one more call of each config after the measured runs, with the duration: a reason's "
       "share of the samples is its share of the warps' time.",
       source_metrics()},
  };
  return all;
}

namespace {

std::string_view without_prefix(std::string_view name, std::string_view prefix) {
  if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  return name;
}

const MetricSet* set_named(std::string_view name) {
  const std::string_view bare = without_prefix(name, kSetPrefix);
  for (const MetricSet& s : sets())
    if (s.name == bare) return &s;
  return nullptr;
}

// A name that is none of kprof's sets (an unknown set, or one of Nsight Compute's sets or
// sections, which only Nsight Compute measures).
[[noreturn]] void refuse_set(std::string_view name) {
  std::vector<std::string> valid;
  for (const MetricSet& s : sets()) valid.push_back(std::string(kSetPrefix) + s.name);
  throw OptionError("metrics", "'" + std::string(name) + "'",
                    "a metric name or a set: " + join_choices(valid) +
                        " (Nsight Compute's own sets and sections, set:full or "
                        "section:SpeedOfLight, are measured by Nsight Compute: Python's "
                        "kprof.activate(kprof.Tool.NCU))");
}

}  // namespace

const MetricSet& find_set(std::string_view name) {
  if (const MetricSet* s = set_named(name)) return *s;
  refuse_set(name);
}

bool is_ncu_selection(std::string_view name) {
  return name.starts_with(kSectionPrefix) ||
         (name.starts_with(kSetPrefix) && set_named(name) == nullptr);
}

std::vector<NcuSelection> ncu_selections(const std::vector<std::string>& metrics) {
  std::vector<NcuSelection> out;
  for (const std::string& m : metrics) {
    if (!is_ncu_selection(m)) continue;
    const bool section = m.starts_with(kSectionPrefix);
    out.push_back({section ? "section" : "set",
                   std::string(without_prefix(m, section ? kSectionPrefix : kSetPrefix))});
  }
  return out;
}

std::vector<std::string> tabled_metrics(const std::vector<std::string>& metrics) {
  std::vector<std::string> own;
  for (const std::string& m : metrics)
    if (!is_ncu_selection(m)) own.push_back(m);
  if (own.empty()) own.emplace_back(kDurationMetric);
  return expand(own);
}

std::vector<std::string> expand(const std::vector<std::string>& metrics) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string& m) {
    if (seen.insert(m).second) out.push_back(m);
  };
  for (const std::string& m : metrics) {
    if (m.starts_with(kSectionPrefix)) {
      refuse_set(m);
    } else if (m.starts_with(kSetPrefix)) {
      for (const std::string& member : find_set(m).metrics) add(member);
    } else {
      add(m);
    }
  }
  return out;
}

}  // namespace kprof::metrics
