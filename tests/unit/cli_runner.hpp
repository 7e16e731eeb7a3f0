// Runs the `kprof` command line in-process and keeps what it printed, for the CLI tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace kprof::testing {

struct Outcome {
  int code = -1;
  std::string out, err;
};

inline Outcome kprof_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Outcome o;
  o.code = kprof::cli::run(args, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

}  // namespace kprof::testing
