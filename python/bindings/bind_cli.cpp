// cli_main(argv): the `kprof` command, run inside this Python process (kprof.cli calls it).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

#if __has_include("cli/cli.hpp")
#include "cli/cli.hpp"
#define KPROF_PY_HAS_CLI 1
#endif

namespace kprof::py {
namespace {

int cli_main(const std::vector<std::string>& argv) {
#ifdef KPROF_PY_HAS_CLI
  // Python's buffered output first, so that lines keep their order.
  nb::module_::import_("sys").attr("stdout").attr("flush")();
  nb::module_::import_("sys").attr("stderr").attr("flush")();
  std::vector<std::string> args = argv;
  if (args.empty()) args.push_back("kprof");
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  int rc;
  {
    nb::gil_scoped_release release;
    rc = kprof::cli::main(static_cast<int>(args.size()), cargs.data());
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  return rc;
#else
  (void)argv;
  throw std::runtime_error("this build of kprof has no command line (cli/cli.hpp missing)");
#endif
}

}  // namespace

void bind_cli(nb::module_& m) {
  m.def("cli_main", &cli_main, nb::arg("argv"),
        "Runs the kprof command with argv (argv[0] is the program name) and returns its exit "
        "status.");
}

}  // namespace kprof::py
