// Lines the core says at a verbosity: "[kprof] " + line through kprof's log, when the options'
// verbosity reaches the line's level.
#pragma once

#include <cstdio>
#include <string>

#include "kprof/log.hpp"
#include "kprof/options.hpp"

namespace kprof::detail {

// `v` with `decimals` digits after the point, for messages: fixed(0.314159, 2) == "0.31".
inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

inline bool says(const Options& o, Verbosity level) {
  return static_cast<int>(o.verbosity) >= static_cast<int>(level);
}

inline void say(const Options& o, Verbosity level, const std::string& line) {
  if (says(o, level)) log_line("[kprof] " + line);
}

}  // namespace kprof::detail
