// `kprof demo`: a profile of the kernels that ship with kprof, end to end.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>

#include "cli/command_metrics.hpp"
#include "cli/commands.hpp"
#include "kprof/annotate.hpp"
#include "kprof/demo.hpp"
#include "kprof/errors.hpp"
#include "kprof/profile.hpp"

namespace kprof::cli {

namespace {

constexpr int kMaxRuns = 100000;
constexpr const char* kCsvTag = "demo";
// The derived metric of the memory kernels: bytes moved per second.
constexpr const char* kBandwidth = "bandwidth";

// Writes `results` where --csv and --json ask; returns the paths written.
std::vector<std::string> write_outputs(const Results& results, const ParsedArgs& args) {
  std::vector<std::string> written;
  if (const auto prefix = args.get("--csv")) {
    for (std::string& p : results.write_csv(*prefix, kCsvTag)) written.push_back(std::move(p));
  }
  if (const auto path = args.get("--json")) {
    results.write_json(*path);
    written.push_back(*path);
  }
  return written;
}

}  // namespace

void print_demo_summary(const Results& results, std::ostream& out) {
  const Row* peak = nullptr;
  for (const Row& row : results.rows()) {
    if (row.metric == kBandwidth && std::isfinite(row.mean) && (!peak || row.mean > peak->mean)) {
      peak = &row;
    }
  }
  if (peak == nullptr) {
    out << "peak bandwidth: none measured\n";
    return;
  }
  // Bytes per nanosecond are GB/s; 1000 of them a TB/s, as the table shows them.
  char value[32];
  if (peak->mean >= 1000) {
    std::snprintf(value, sizeof value, "%.3g TB/s", peak->mean / 1000);
  } else {
    std::snprintf(value, sizeof value, "%.3g GB/s", peak->mean);
  }
  out << "peak bandwidth: " << value << " at " << results.sweep().config(peak->config).to_string()
      << " (mean of " << peak->num_runs << (peak->num_runs == 1 ? " run" : " runs")
      << ", L2 flushed before every kernel)\n";
}

std::vector<DemoCase> demo_cases() {
  std::vector<DemoCase> cases;
  for (const char* op : {"scale", "add"}) {
    for (int log2n : {20, 22, 24, 26}) cases.push_back({op, std::int64_t{1} << log2n});
  }
  cases.push_back({"fma", std::int64_t{1} << 22});
  return cases;
}

Sweep demo_sweep(const std::vector<DemoCase>& cases) {
  std::vector<std::vector<Value>> points;
  for (const DemoCase& c : cases) points.push_back({Value(c.op), Value(c.n)});
  return Sweep::list({"op", "n"}, std::move(points));
}

double demo_bytes_per_element(const std::string& op) {
  if (op == "scale") return 8;  // read x, write y
  if (op == "add") return 12;   // read x and y, write z
  return 0;
}

std::vector<DerivedValue> demo_derive(const std::vector<DemoCase>& cases,
                                      const std::vector<double>& metric_values,
                                      std::size_t config) {
  if (config >= cases.size()) return {};
  const double bytes =
      demo_bytes_per_element(cases[config].op) * static_cast<double>(cases[config].n);
  if (bytes == 0) return {};
  const double ns =
      metric_values.empty() ? std::numeric_limits<double>::quiet_NaN() : metric_values.front();
  // Bytes per nanosecond are GB/s.
  const double gbps = ns > 0 ? bytes / ns : std::numeric_limits<double>::quiet_NaN();
  return {DerivedValue{kBandwidth, gbps, "GB/s"}};
}

std::vector<std::string> demo_metrics(const std::optional<std::string>& list) {
  // The duration comes first: the bandwidth is derived from it.
  std::vector<std::string> metrics = {std::string(kDurationMetric)};
  if (!list) return metrics;
  Options given;
  set_option(given, "metrics", *list);  // the table's text form: comma-separated names
  // The text form drops empty items; a list of nothing but commas names no metric at all.
  if (given.metrics.empty())
    throw UsageError("--metrics=" + *list +
                     " is not valid; valid: comma-separated metric names or sets "
                     "(dram__bytes_read.sum,set:memory; `kprof metrics --sets` lists the sets)");
  for (const std::string& m : given.metrics)
    if (m != kDurationMetric) metrics.push_back(m);
  return metrics;
}

// The demo's options, checked before any GPU work. --replay-mode and --metrics are options of
// the table (kprof/options.hpp), read in its text form and named by their flag when invalid;
// --runs is the demo's own (at most kMaxRuns, no stopping rule).
Options demo_options(const ParsedArgs& args) {
  Options options;
  options.runs = args.has("--runs") ? parse_positive_int("--runs", *args.get("--runs"), kMaxRuns)
                                    : kDemoDefaultRuns;
  options.cache_control = CacheControl::all;
  try {
    options.metrics = demo_metrics(args.get("--metrics"));
    if (args.has("--explain")) {
      options.metrics.emplace_back("set:analysis");
      // And each kernel's FP32 FLOP (a point on the roofline) where this process can count them
      // (CUPTI 13.5 or later, nvdisasm: `kprof doctor`'s set:flop line).
      if (query_system().flop_counting.empty()) options.metrics.emplace_back("set:flop");
    }
    if (const auto mode = args.get("--replay-mode")) set_option(options, "replay_mode", *mode);
    options.validate();  // unknown sets, and with a GPU unknown names, before any GPU work
  } catch (const OptionError& e) {
    throw UsageError(flag_of(e.option()) + ": " + e.what());
  }
  // A replay mode says how counters are measured: without any it would be ignored.
  if (const auto mode = args.get("--replay-mode");
      mode && !args.has("--metrics") && !args.has("--explain"))
    throw UsageError("--replay-mode=" + *mode +
                     " is not valid without --metrics (or --explain): it says how hardware "
                     "counters are measured, and durations need no replay; valid: --metrics "
                     "LIST --replay-mode " +
                     option_choices("replay_mode"));
  return options;
}

namespace {

// With --explain alone, the table keeps the duration and the bandwidth: the analysis below it
// says what the counters of set:analysis mean.
std::string shown_table(const Results& results, const ParsedArgs& args) {
  if (!args.has("--explain") || args.has("--metrics")) return results.table();
  std::vector<Row> rows;
  for (const Row& r : results.rows())
    if (r.metric == kDurationMetric || r.metric == kBandwidth) rows.push_back(r);
  return Results(results.session(), results.sweep(), results.records(), results.samples(), rows)
      .table();
}

}  // namespace

int command_demo(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  // Everything the command line can get wrong is rejected before any GPU work.
  Options options = demo_options(args);
  if (const auto prefix = args.get("--csv")) check_csv_outputs(args, "--csv", *prefix, kCsvTag);
  if (const auto path = args.get("--json")) check_output(args, "--json", *path);

  const SystemInfo sys = query_system();
  if (const std::string reason = no_gpu_reason(sys); !reason.empty()) {
    err << "kprof demo: no GPU available: " << reason << "\n";
    return kExitUsage;
  }

  prepare_profile(options);  // set:flop: the demo kernels' code, from before their first launch
  const std::vector<DemoCase> cases = demo_cases();
  const Sweep sweep = demo_sweep(cases);
  options.derive = [cases](const std::vector<double>& values, std::size_t config) {
    return demo_derive(cases, values, config);
  };

  std::int64_t max_n = 0;
  for (const DemoCase& c : cases) max_n = std::max(max_n, c.n);
  demo::Kernels kernels(static_cast<std::size_t>(max_n));

  Results results;
  try {
    results = profile(options, sweep, [&](const Config& c) {
      const std::string& op = c.get_string("op");
      const auto n = static_cast<std::size_t>(c.get_int("n"));
      Annotation region(op);
      if (op == "scale") {
        kernels.scale(n);
      } else if (op == "add") {
        kernels.add(n);
      } else {
        kernels.fma(n, kDemoFmaIterations);
      }
    });
  } catch (const Error& e) {
    const auto& partial = e.partial_results();
    if (!partial || partial->empty() || !(args.has("--csv") || args.has("--json"))) throw;
    // Keep what was measured before the failure where the user asked for the results.
    err << "kprof demo: " << one_line(e.what()) << "\n";
    for (const std::string& path : write_outputs(*partial, args)) {
      err << "kprof demo: saved what was measured before the failure (" << partial->rows().size()
          << " rows) to " << path << "\n";
    }
    return kExitFailure;
  }

  const std::string table = shown_table(results, args);
  out << table;
  if (!table.empty() && table.back() != '\n') out << "\n";
  out << "\n";
  print_demo_summary(results, out);
  if (args.has("--explain")) out << "\n" << explanation("--explain", results);
  for (const std::string& path : write_outputs(results, args)) out << "wrote " << path << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
