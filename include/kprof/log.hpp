// Where kprof's messages go. Every line starts with "[kprof]".
#pragma once

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

// Writes `line` once per process for each `key`: conditions that hold for the whole process
// (no NVML, no thermal headroom) are not repeated by every profile.
void log_once(std::string_view key, std::string_view line);

}  // namespace kprof
