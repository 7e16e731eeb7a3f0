// The fields of each result struct, by name and in order: the one list that the JSON document
// (results_json.cpp, writing and reading) and the Python columns (python/bindings) share.
// `f(name, field)` is called with a const or mutable field, as the struct is.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

#include "kprof/analysis.hpp"
#include "kprof/compare.hpp"
#include "kprof/merge.hpp"
#include "kprof/results.hpp"
#include "kprof/stalls.hpp"

namespace kprof::fields {

inline constexpr auto session_fields = [](auto& s, auto&& f) {
  f("gpu", s.gpu);
  f("device", s.device);
  f("host", s.host);
  f("compute_clock_khz", s.compute_clock_khz);
  f("memory_clock_khz", s.memory_clock_khz);
  f("backend", s.backend);
  f("replay_mode", s.replay_mode);
  f("cache_control", s.cache_control);
  f("clock_control", s.clock_control);
  f("passes", s.passes);
  f("runs", s.runs);
  f("metrics", s.metrics);
  f("kprof_version", s.kprof_version);
  f("cuda_driver_version", s.cuda_driver_version);
  f("cuda_runtime_version", s.cuda_runtime_version);
  f("cupti_version", s.cupti_version);
  f("started_at", s.started_at);
  f("thermal_mode", s.thermal_mode);
  f("clock_source", s.clock_source);
  f("profiler_seconds", s.profiler_seconds);
  f("throttle_threshold", s.throttle_threshold);
  f("stop_rel_half_width", s.stop_rel_half_width);
  f("stop_min_runs", s.stop_min_runs);
  f("stop_max_runs", s.stop_max_runs);
  f("stop_time_budget_s", s.stop_time_budget_s);
  f("overhead_seconds_per_run", s.overhead_seconds_per_run);
  f("unprofiled_seconds_per_run", s.unprofiled_seconds_per_run);
  f("rank", s.rank);
  f("world_size", s.world_size);
  f("local_rank", s.local_rank);
  f("launcher", s.launcher);
};

// Session fields added after the first files were written: a JSON document or CSV session file
// without them reads with their defaults.
inline bool session_field_added_later(std::string_view name) {
  constexpr std::string_view names[] = {"thermal_mode",
                                        "throttle_threshold",
                                        "stop_rel_half_width",
                                        "stop_min_runs",
                                        "stop_max_runs",
                                        "stop_time_budget_s",
                                        "clock_source",
                                        "profiler_seconds",
                                        "overhead_seconds_per_run",
                                        "unprofiled_seconds_per_run",
                                        "rank",
                                        "world_size",
                                        "local_rank",
                                        "launcher"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

inline constexpr auto record_fields = [](auto& r, auto&& f) {
  f("config", r.config);
  f("run", r.run);
  f("annotation", r.annotation);
  f("kernel", r.kernel);
  f("kernel_index", r.kernel_index);
  f("metric", r.metric);
  f("value", r.value);
  f("unit", r.unit);
  f("start_ns", r.start_ns);
  f("end_ns", r.end_ns);
  f("stream", r.stream);
  f("kind", r.kind);
  f("bytes", r.bytes);
};

inline constexpr auto sample_fields = [](auto& s, auto&& f) {
  f("config", s.config);
  f("run", s.run);
  f("annotation", s.annotation);
  f("metric", s.metric);
  f("value", s.value);
  f("unit", s.unit);
  f("kernel", s.kernel);
  f("kernel_index", s.kernel_index);
};

inline constexpr auto row_fields = [](auto& r, auto&& f) {
  f("annotation", r.annotation);
  f("metric", r.metric);
  f("config", r.config);
  f("kernel", r.kernel);
  f("kernel_index", r.kernel_index);
  f("mean", r.mean);
  f("stddev", r.stddev);
  f("min", r.min);
  f("max", r.max);
  f("median", r.median);
  f("num_runs", r.num_runs);
  f("ci95_lower", r.ci95_lower);
  f("ci95_upper", r.ci95_upper);
  f("rel_stddev_pct", r.rel_stddev_pct);
  f("stable", r.stable);
  f("unit", r.unit);
  f("normalized_against", r.normalized_against);
  f("normalization_value", r.normalization_value);
  f("geomean", r.geomean);
  f("runs_done", r.runs_done);
  f("stopped_by", r.stopped_by);
  f("measured_clock_khz", r.measured_clock_khz);
  f("temperature_c", r.temperature_c);
  f("throttled_runs", r.throttled_runs);
  f("overhead_seconds", r.overhead_seconds);
  f("info", r.info);
};

inline constexpr auto config_fields = [](auto& c, auto&& f) {
  f("config", c.config);
  f("runs", c.runs);
  f("stopped_by", c.stopped_by);
  f("seconds", c.seconds);
  f("unprofiled_seconds", c.unprofiled_seconds);
};

inline constexpr auto run_fields = [](auto& r, auto&& f) {
  f("config", r.config);
  f("run", r.run);
  f("seconds", r.seconds);
  f("pause_s", r.pause_s);
  f("sm_clock_khz", r.sm_clock_khz);
  f("temperature_c", r.temperature_c);
  f("clock_event_reasons", r.clock_event_reasons);
  f("throttled", r.throttled);
};

inline constexpr auto info_fields = [](auto& v, auto&& f) {
  f("name", v.name);
  f("scope", v.scope);
  f("config", v.config);
  f("run", v.run);
  f("annotation", v.annotation);
  f("value", v.value);
  f("text", v.text);
};

inline constexpr auto source_fields = [](auto& s, auto&& f) {
  f("config", s.config);
  f("annotation", s.annotation);
  f("kernel", s.kernel);
  f("cubin", s.cubin);
  f("pc_offset", s.pc_offset);
  f("sass", s.sass);
  f("file", s.file);
  f("line", s.line);
  f("reason", s.reason);
  f("samples", s.samples);
};

inline constexpr auto info_stat_fields = [](auto& v, auto&& f) {
  f("name", v.name);
  f("numeric", v.numeric);
  f("value", v.value);
  f("text", v.text);
  f("mean", v.mean);
  f("stddev", v.stddev);
  f("min", v.min);
  f("max", v.max);
};

inline constexpr auto analysis_fields = [](auto& a, auto&& f) {
  f("annotation", a.annotation);
  f("config", a.config);
  f("kernel", a.kernel);
  f("kernel_index", a.kernel_index);
  f("region", a.region);
  f("bound", a.bound);
  f("verdict", a.verdict);
  f("sm_throughput_pct", a.sm_throughput_pct);
  f("memory_throughput_pct", a.memory_throughput_pct);
  f("dram_throughput_pct", a.dram_throughput_pct);
  f("limiting_unit", a.limiting_unit);
  f("limiting_unit_pct", a.limiting_unit_pct);
  f("achieved_occupancy_pct", a.achieved_occupancy_pct);
  f("theoretical_occupancy_pct", a.theoretical_occupancy_pct);
  f("occupancy_limiter", a.occupancy_limiter);
  f("waves_per_sm", a.waves_per_sm);
  f("sm_count", a.sm_count);
  f("tensor_tflops", a.tensor_tflops);
  f("tensor_peak_tflops", a.tensor_peak_tflops);
  f("fp32_tflops", a.fp32_tflops);
  f("fp32_peak_tflops", a.fp32_peak_tflops);
  f("fp64_tflops", a.fp64_tflops);
  f("fp64_peak_tflops", a.fp64_peak_tflops);
  f("fp16_tflops", a.fp16_tflops);
  f("fp16_peak_tflops", a.fp16_peak_tflops);
  f("precision", a.precision);
  f("achieved_tflops", a.achieved_tflops);
  f("peak_tflops", a.peak_tflops);
  f("dram_tbs", a.dram_tbs);
  f("dram_peak_tbs", a.dram_peak_tbs);
  f("arithmetic_intensity", a.arithmetic_intensity);
  f("roofline_tflops", a.roofline_tflops);
  f("advice", a.advice);
};

inline constexpr auto stall_fields = [](auto& s, auto&& f) {
  f("annotation", s.annotation);
  f("config", s.config);
  f("kernel", s.kernel);
  f("kernel_index", s.kernel_index);
  f("region", s.region);
  f("reason", s.reason);
  f("samples", s.samples);
  f("share_pct", s.share_pct);
};

inline constexpr auto instruction_fields = [](auto& s, auto&& f) {
  f("annotation", s.annotation);
  f("config", s.config);
  f("kernel", s.kernel);
  f("region", s.region);
  f("cubin", s.cubin);
  f("pc_offset", s.pc_offset);
  f("sass", s.sass);
  f("file", s.file);
  f("line", s.line);
  f("samples", s.samples);
  f("share_pct", s.share_pct);
  f("top_reason", s.top_reason);
};

inline constexpr auto imbalance_fields = [](auto& m, auto&& f) {
  f("annotation", m.annotation);
  f("metric", m.metric);
  f("kernel", m.kernel);
  f("kernel_index", m.kernel_index);
  f("config", m.config);
  f("ranks", m.ranks);
  f("slowest_rank", m.slowest_rank);
  f("slowest_host", m.slowest_host);
  f("slowest_device", m.slowest_device);
  f("slowest", m.slowest);
  f("fastest_rank", m.fastest_rank);
  f("fastest_host", m.fastest_host);
  f("fastest_device", m.fastest_device);
  f("fastest", m.fastest);
  f("ratio", m.ratio);
  f("unit", m.unit);
};

// ComparedRow (kprof/compare.hpp), whose fields the comparison table's columns name.
inline constexpr auto compared_fields = [](auto& m, auto&& f) {
  f("annotation", m.annotation);
  f("metric", m.metric);
  f("config", m.config);
  f("kernel_index", m.kernel_index);
  f("base_mean", m.base_mean);
  f("new_mean", m.new_mean);
  f("change_pct", m.change_pct);
  f("ci_overlap", m.ci_overlap);
  f("p_value", m.p_value);
  f("verdict", m.verdict);
  f("base_runs", m.base_runs);
  f("new_runs", m.new_runs);
  f("unit", m.unit);
  f("u", m.u);
  f("method", m.method);
};

}  // namespace kprof::fields
