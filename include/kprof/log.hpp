// Where kprof's messages go. Every line starts with "[kprof]".
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace kprof {

using LogSink = std::function<void(std::string_view line)>;

// Replaces the destination of kprof's messages (default: standard error). An empty sink
// restores the default. The Python front end routes them to sys.stdout.
void set_log_sink(LogSink sink);

// Writes one line through the sink.
void log_line(std::string_view line);

// Whether a sink replaces standard error (a front end shows the lines its own way).
bool log_sink_set();

// In a log (standard error, a file, CI), at most one line per finished config every this many
// seconds, the first and the last config always: a sweep of 1,000 short configs says a
// handful, not 1,000. The C++ front end and Python's plain-lines display both ask this.
inline constexpr double kConfigLineEvery_s = 5.0;

// Whether config `config` (from 0) of `configs`, finished at `now` (seconds), gets its line
// when the last line was at `last`.
inline bool config_line_due(std::size_t config, std::size_t configs, double now, double last) {
  return config == 0 || config + 1 == configs || now - last >= kConfigLineEvery_s;
}

// Writes `line` once per process for each `key`: conditions that hold for the whole process
// (no NVML, no thermal headroom) are not repeated by every profile.
void log_once(std::string_view key, std::string_view line);

}  // namespace kprof
