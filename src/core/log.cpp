#include "kprof/log.hpp"

#include <iostream>
#include <mutex>
#include <set>
#include <string>

namespace kprof {
namespace {
std::mutex g_mutex;
LogSink g_sink;
std::mutex g_once_mutex;
std::set<std::string, std::less<>> g_said;
}  // namespace

void set_log_sink(LogSink sink) {
  std::lock_guard lock(g_mutex);
  g_sink = std::move(sink);
}

void log_line(std::string_view line) {
  LogSink sink;
  {
    std::lock_guard lock(g_mutex);
    sink = g_sink;
  }
  if (sink) {
    sink(line);
  } else {
    std::cerr << line << '\n';
  }
}

bool log_sink_set() {
  std::lock_guard lock(g_mutex);
  return static_cast<bool>(g_sink);
}

void log_once(std::string_view key, std::string_view line) {
  {
    std::lock_guard lock(g_once_mutex);
    if (!g_said.emplace(key).second) return;
  }
  log_line(line);
}

}  // namespace kprof
