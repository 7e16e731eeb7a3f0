// Results as a Chrome trace (the Trace Event Format that chrome://tracing and Perfetto open):
// the kernels on a track per stream at their GPU times, the regions around them on a track of
// their own (nested regions nest), and the configs and runs on a third.
#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/results/csv.hpp"
#include "kprof/errors.hpp"
#include "kprof/export.hpp"
#include "kprof/options.hpp"

namespace kprof {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kPid = 1;
constexpr int kSweepTrack = 1;    // configs and runs
constexpr int kRegionTrack = 2;   // annotations
constexpr int kStreamTrack = 10;  // + the stream id: kernels

// A span of GPU time, in CUPTI's nanoseconds.
struct Span {
  std::int64_t start = std::numeric_limits<std::int64_t>::max();
  std::int64_t end = std::numeric_limits<std::int64_t>::min();
  void add(const Record& r) {
    start = std::min(start, r.start_ns);
    end = std::max(end, r.end_ns);
  }
};

// Whether `r` places a kernel in time: one metric's record (each launch once per region), with
// timestamps.
bool timed(const Record& r, const std::string& metric) {
  return r.metric == metric && r.start_ns >= 0 && r.end_ns >= r.start_ns;
}

// The records that place kernels in time. An outer region's
// records repeat the kernels of the regions nested in it: each launch is kept once, with its
// innermost annotation.
std::vector<const Record*> timed_kernels(const Results& results) {
  if (results.records().empty()) return {};
  const std::string& metric = results.records().front().metric;
  using Launch = std::tuple<std::size_t, int, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Launch, const Record*> launches;
  const auto depth = [](const Record& r) {
    return std::count(r.annotation.begin(), r.annotation.end(), '/');
  };
  for (const Record& r : results.records()) {
    if (!timed(r, metric)) continue;
    const Record*& kept = launches[{r.config, r.run, r.stream, r.start_ns, r.end_ns}];
    if (kept == nullptr || depth(r) > depth(*kept)) kept = &r;
  }
  std::vector<const Record*> out;
  for (const auto& [launch, r] : launches) out.push_back(r);
  return out;
}

std::string config_text(const Results& results, std::size_t config) {
  const Sweep& sweep = results.sweep();
  return describe_run(config, sweep.size(), sweep.config(config).to_string(), -1, 0);
}

Json slice(std::string name, const std::string& category, int tid, const Span& span,
           std::int64_t t0, Json args) {
  return Json{{"name", std::move(name)},
              {"cat", category},
              {"ph", "X"},
              {"pid", kPid},
              {"tid", tid},
              {"ts", static_cast<double>(span.start - t0) / 1e3},
              {"dur", static_cast<double>(span.end - span.start) / 1e3},
              {"args", args.is_null() ? Json::object() : std::move(args)}};
}

Json track_name(int tid, const std::string& name, int order) {
  return Json::array({Json{{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", kPid},
                           {"tid", tid},
                           {"args", {{"name", name}}}},
                      Json{{"name", "thread_sort_index"},
                           {"ph", "M"},
                           {"pid", kPid},
                           {"tid", tid},
                           {"args", {{"sort_index", order}}}}});
}

}  // namespace

std::string to_chrome_trace_json(const Results& results) {
  const std::vector<const Record*> kernels = timed_kernels(results);
  if (kernels.empty())
    throw FormatError(
        "these results hold no GPU timestamps, so there is no timeline to draw: kernel records "
        "carry them when durations are measured alone (activity records, kernel replay); "
        "counters from the range profiler and results saved before kprof kept them have none");
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max();
  for (const Record* r : kernels) t0 = std::min(t0, r->start_ns);

  std::map<std::size_t, Span> configs;
  std::map<std::pair<std::size_t, int>, Span> runs;
  std::map<std::tuple<std::size_t, int, std::string>, Span> regions;
  std::map<std::int64_t, bool> streams;
  Json events = Json::array();
  for (const Record& r : results.records())  // every region, outer ones with their inner kernels
    if (timed(r, kernels.front()->metric)) regions[{r.config, r.run, r.annotation}].add(r);
  for (const Record* r : kernels) {
    configs[r->config].add(*r);
    runs[{r->config, r->run}].add(*r);
    streams[r->stream] = true;
    Span span;
    span.add(*r);
    Json args = {{"annotation", r->annotation},
                 {"config", config_text(results, r->config)},
                 {"run", r->run},
                 {"kernel_index", r->kernel_index}};
    if (r->bytes >= 0) args["bytes"] = r->bytes;
    // A copy's or memset's category is its kind ("memcpy HtoD", "memset").
    events.push_back(
        slice(r->kernel, r->kind, kStreamTrack + static_cast<int>(r->stream), span, t0, args));
  }
  for (const auto& [config, span] : configs)
    events.push_back(slice(config_text(results, config), "config", kSweepTrack, span, t0, {}));
  for (const auto& [key, span] : runs)
    events.push_back(slice("run " + std::to_string(key.second + 1), "run", kSweepTrack, span, t0,
                           {{"config", config_text(results, key.first)}}));
  for (const auto& [key, span] : regions)
    events.push_back(
        slice(std::get<2>(key), "annotation", kRegionTrack, span, t0,
              {{"config", config_text(results, std::get<0>(key))}, {"run", std::get<1>(key)}}));
  // Outer slices first where two start together, so that viewers nest them.
  std::stable_sort(events.begin(), events.end(), [](const Json& a, const Json& b) {
    const double ta = a["ts"], tb = b["ts"];
    return ta != tb ? ta < tb : a["dur"].get<double>() > b["dur"].get<double>();
  });

  Json meta = Json::array({Json{{"name", "process_name"},
                                {"ph", "M"},
                                {"pid", kPid},
                                {"args", {{"name", "kprof: " + results.session().gpu}}}}});
  for (const Json& e : track_name(kSweepTrack, "configs and runs", 0)) meta.push_back(e);
  for (const Json& e : track_name(kRegionTrack, "annotations", 1)) meta.push_back(e);
  for (const auto& [stream, used] : streams)
    for (const Json& e :
         track_name(kStreamTrack + static_cast<int>(stream), "stream " + std::to_string(stream),
                    2 + static_cast<int>(stream)))
      meta.push_back(e);
  for (Json& e : events) meta.push_back(std::move(e));
  const Json doc = {{"traceEvents", std::move(meta)},
                    {"displayTimeUnit", "ns"},
                    {"otherData",
                     {{"gpu", results.session().gpu},
                      {"started_at", results.session().started_at},
                      {"kprof_version", results.session().kprof_version},
                      {"ts_zero_ns", t0}}}};
  return doc.dump(1) + "\n";
}

void write_chrome_trace(const Results& results, const std::string& path) {
  detail::write_text_file_atomic(path, to_chrome_trace_json(results));
}

}  // namespace kprof
