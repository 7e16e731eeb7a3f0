#include "kprof/log.hpp"

#include <iostream>
#include <mutex>

namespace kprof {
namespace {
std::mutex g_mutex;
LogSink g_sink;
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

}  // namespace kprof
