// Routes the core's "[kprof] ..." lines to Python's sys.stdout, so that they interleave with
// the front end's own lines and pytest's capsys sees them.
#include <nanobind/stl/string.h>

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "kprof/log.hpp"

namespace kprof::py {
namespace {

std::mutex g_mutex;
std::vector<std::string> g_pending;  // lines logged by threads that cannot enter Python

// Writes the pending lines; needs the GIL.
void flush_pending() {
  std::vector<std::string> lines;
  {
    std::lock_guard lock(g_mutex);
    lines.swap(g_pending);
  }
  if (lines.empty()) return;
  nb::error_scope keep_pending_error;  // a callback may log while a Python error is pending
  try {
    nb::object out = nb::module_::import_("sys").attr("stdout");
    if (out.is_none()) return;
    for (const auto& line : lines)
      if (!deliver_log_line(line)) out.attr("write")(line + "\n");  // progress.cpp
    out.attr("flush")();
  } catch (nb::python_error& e) {
    e.discard_as_unraisable("kprof log line");
  }
}

void sink(std::string_view line) {
  {
    std::lock_guard lock(g_mutex);
    g_pending.emplace_back(line);
  }
  // Only threads Python knows (the one running the profile, with the GIL released) write
  // right away. Others, such as CUPTI's worker thread, must never wait for the GIL: their lines
  // wait for the next flush.
  if (PyGILState_GetThisThreadState() == nullptr) return;
  if (!nb::is_alive()) return;
  nb::gil_scoped_acquire gil;
  if (!gil.is_valid()) return;
  flush_pending();
}

}  // namespace

void bind_log(nb::module_& m) {
  kprof::set_log_sink(sink);
  m.def("_flush_log", &flush_pending, "Writes core log lines that are still waiting.");
  m.def(
      "_reset_log_sink", [] { kprof::set_log_sink({}); },
      "Sends the core's lines back to standard error (called at interpreter exit).");
  m.def(
      "_log_line", [](const std::string& line) { kprof::log_line(line); },
      "Writes one line through the core's log sink (for tests).");
}

}  // namespace kprof::py
