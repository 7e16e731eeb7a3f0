// Where and how results were measured, as the reports show it (include/kprof/layout.hpp): the
// facts people look for first, then every other session field under its own name.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kprof/detail/result_fields.hpp"
#include "kprof/device.hpp"
#include "kprof/layout.hpp"
#include "kprof/units.hpp"

namespace kprof {
namespace {

// SessionInfo stores the CUPTI version as CUPTI's number ("130001"); people read "13.0.1".
std::string cupti_text(const std::string& version) {
  int number = 0;
  const char* end = version.data() + version.size();
  const auto [ptr, ec] = std::from_chars(version.data(), end, number);
  return ec == std::errc() && ptr == end ? format_cupti_version(number) : version;
}

std::string gpu_text(const SessionInfo& s) {
  if (s.gpu.empty()) return "";
  std::string text = s.gpu;
  if (s.device >= 0) text += " (device " + std::to_string(s.device) + ")";
  if (s.compute_clock_khz > 0 || s.memory_clock_khz > 0)
    text += ", rated clocks: SM " + format_clock(s.compute_clock_khz) + ", memory " +
            format_clock(s.memory_clock_khz);
  return text;
}

std::string backend_text(const SessionInfo& s) {
  if (s.backend.empty()) return "";
  std::string text = s.backend;
  if (!s.replay_mode.empty())
    text += " (replay " + s.replay_mode + ", " + std::to_string(s.passes) +
            (s.passes == 1 ? " pass)" : " passes)");
  return text;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string versions_text(const SessionInfo& s) {
  std::vector<std::string> parts;
  const auto add = [&](const char* name, const std::string& version) {
    if (!version.empty()) parts.push_back(std::string(name) + " " + version);
  };
  add("kprof", s.kprof_version);
  add("CUDA driver", s.cuda_driver_version);
  add("CUDA runtime", s.cuda_runtime_version);
  add("CUPTI", s.cupti_version.empty() ? "" : cupti_text(s.cupti_version));
  return joined(parts);
}

std::string runs_text(const SessionInfo& s) {
  return s.runs > 0 ? std::to_string(s.runs) + " per config" : std::string();
}

std::string metrics_text(const SessionInfo& s) { return joined(s.metrics); }

// "0.21 ms per run (3.1% of 6.8 ms unprofiled)", or "" when not measured.
std::string overhead_text(const SessionInfo& s) {
  if (!std::isfinite(s.overhead_seconds_per_run) || !std::isfinite(s.unprofiled_seconds_per_run))
    return "";
  const Scaled added = scale_for_display(s.overhead_seconds_per_run, "s");
  const Scaled plain = scale_for_display(s.unprofiled_seconds_per_run, "s");
  std::string text = format_number(added.value, 3) + " " + added.unit + " per run";
  if (s.unprofiled_seconds_per_run > 0)
    text += " (" +
            format_number(100 * s.overhead_seconds_per_run / s.unprofiled_seconds_per_run, 3) +
            "% of " + format_number(plain.value, 3) + " " + plain.unit + " unprofiled)";
  return text;
}

// "rank 3 of 8 (local rank 1, torchrun)"; "" for a process of its own.
std::string rank_text(const SessionInfo& s) {
  if (s.launcher == "none" || s.launcher.empty()) return "";
  return "rank " + std::to_string(s.rank) + " of " + std::to_string(s.world_size) +
         " (local rank " + std::to_string(s.local_rank) + ", " + s.launcher + ")";
}

// A text field of the session as it is.
template <std::string SessionInfo::*field>
std::string as_is(const SessionInfo& s) {
  return s.*field;
}

// A fact of its own, and the session fields it tells.
struct Fact {
  const char* label;
  bool brief;
  std::vector<std::string_view> fields;
  std::string (*text)(const SessionInfo&);
};

const std::vector<Fact>& facts() {
  using S = SessionInfo;
  static const std::vector<Fact> list{
      {"GPU", true, {"gpu", "device", "compute_clock_khz", "memory_clock_khz"}, gpu_text},
      {"host", true, {"host"}, as_is<&S::host>},
      {"rank", true, {"rank", "world_size", "local_rank", "launcher"}, rank_text},
      {"date", true, {"started_at"}, as_is<&S::started_at>},
      {"backend", true, {"backend", "replay_mode", "passes"}, backend_text},
      {"cache control", true, {"cache_control"}, as_is<&S::cache_control>},
      {"clock control", true, {"clock_control"}, as_is<&S::clock_control>},
      {"runs", true, {"runs"}, runs_text},
      {"profiling added",
       true,
       {"overhead_seconds_per_run", "unprofiled_seconds_per_run"},
       overhead_text},
      {"metrics measured", false, {"metrics"}, metrics_text},
      {"versions",
       true,
       {"kprof_version", "cuda_driver_version", "cuda_runtime_version", "cupti_version"},
       versions_text},
  };
  return list;
}

bool told_by_a_fact(std::string_view field) {
  for (const Fact& f : facts())
    for (std::string_view name : f.fields)
      if (name == field) return true;
  return false;
}

// A session field as a report shows it; "" for NaN.
std::string field_text(const std::string& v) { return v; }
std::string field_text(const std::vector<std::string>& v) { return joined(v); }
std::string field_text(double v) { return std::isnan(v) ? "" : format_number(v); }
template <class I>
requires std::is_integral_v<I> std::string field_text(I v) { return std::to_string(v); }

// The session fields no fact tells, with their text, in order.
std::vector<std::pair<std::string, std::string>> other_fields(const SessionInfo& s) {
  std::vector<std::pair<std::string, std::string>> out;
  fields::session_fields(
      s, [&](const char* name, const auto& v) { out.emplace_back(name, field_text(v)); });
  std::erase_if(out, [](const auto& f) { return told_by_a_fact(f.first); });
  return out;
}

}  // namespace

std::string overhead_note(const SessionInfo& s) {
  const std::string text = overhead_text(s);
  return text.empty() ? "" : "profiling added " + text;
}

std::string context_line(const SessionInfo& s, bool with_runs) {
  std::vector<std::string> parts{s.gpu, s.host, s.backend};
  if (!s.cache_control.empty()) parts.push_back("cache " + s.cache_control);
  if (!s.clock_control.empty() && s.clock_control != "none")
    parts.push_back("clocks " + s.clock_control);
  parts.push_back(s.started_at.substr(0, 10));  // the date of "2026-11-30T06:14:11Z"
  if (with_runs && s.runs > 0) parts.push_back(std::to_string(s.runs) + " runs");
  std::string line;
  for (const std::string& p : parts)
    if (!p.empty()) line += (line.empty() ? "" : " \u00b7 ") + p;
  return line;
}

std::vector<ContextRow> context_rows(const SessionInfo& session) {
  std::vector<ContextRow> rows;
  for (const Fact& f : facts()) {
    std::string text = f.text(session);
    if (!text.empty()) rows.push_back({f.label, std::move(text), f.brief});
  }
  // A field at its default is one the session does not hold: files written before the field
  // existed read with it.
  const auto defaults = other_fields(SessionInfo{});
  const auto fields = other_fields(session);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto& [name, text] = fields[i];
    if (text.empty() || text == defaults[i].second) continue;
    std::string label = name;
    std::replace(label.begin(), label.end(), '_', ' ');
    rows.push_back({std::move(label), text, false});
  }
  return rows;
}

}  // namespace kprof
