// cli_main(argv): the `kprof` command, run inside this Python process (kprof.cli calls it).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"

#if __has_include("cli/cli.hpp")
#include "cli/cli.hpp"
#define KPROF_PY_HAS_CLI 1
#endif

namespace kprof::py {
namespace {

// An argument as the operating system gave it: bytes as they are, str encoded as os.fsencode
// does (a file name that is not UTF-8 reaches Python's sys.argv as surrogate escapes, which
// no UTF-8 conversion takes).
std::string os_argument(nb::handle arg) {
  if (nb::isinstance<nb::bytes>(arg)) {
    const auto bytes = nb::borrow<nb::bytes>(arg);
    return std::string(bytes.c_str(), bytes.size());
  }
  if (nb::isinstance<nb::str>(arg)) {
    const auto encoded = nb::cast<nb::bytes>(nb::module_::import_("os").attr("fsencode")(arg));
    return std::string(encoded.c_str(), encoded.size());
  }
  throw nb::type_error(("cli_main(): argv holds a " +
                        std::string(nb::type_name(arg.type()).c_str()) + "; expected str or bytes")
                           .c_str());
}

#ifdef KPROF_PY_HAS_CLI
// A Parquet results file, read by kprof._saving (pyarrow) with the GIL the command released; a
// Python error becomes the FormatError the command reports in one line.
kprof::Results read_parquet(const std::string& path) {
  nb::gil_scoped_acquire gil;
  try {
    nb::object read = nb::module_::import_("kprof._saving").attr("read");
    return nb::cast<kprof::Results>(read(nb::str(path.c_str(), path.size())));
  } catch (nb::python_error& e) {
    const std::string why = nb::cast<std::string>(nb::str(e.value()));
    throw kprof::FormatError(why.empty() ? path + ": cannot be read" : why);
  }
}
#endif

int cli_main(const nb::sequence& argv) {
#ifdef KPROF_PY_HAS_CLI
  kprof::cli::set_parquet_reader(read_parquet);
  // Python's buffered output first, so that lines keep their order.
  nb::module_::import_("sys").attr("stdout").attr("flush")();
  nb::module_::import_("sys").attr("stderr").attr("flush")();
  std::vector<std::string> args;
  for (nb::handle arg : argv) args.push_back(os_argument(arg));
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
#ifdef KPROF_PY_HAS_CLI
  nb::list endings;
  for (const std::string& ending : kprof::cli::kParquetEndings)
    endings.append(nb::str(ending.c_str(), ending.size()));
  m.attr("PARQUET_ENDINGS") = nb::module_::import_("builtins").attr("tuple")(endings);
  m.def(
      "command_options",
      [](const std::string& command) {
        nb::list out;
        for (const kprof::cli::OptionSpec& o : kprof::cli::command_options(command))
          out.append(nb::make_tuple(o.name, o.value_name, o.help, o.python_only));
        return out;
      },
      nb::arg("command"),
      "The options of a `kprof` command as its help lists them: (name, value name or '', "
      "help, handled by the Python package); [] for an unknown command.");
  m.def("command_synopsis", &kprof::cli::command_synopsis, nb::arg("command"),
        "The command's usage line: 'kprof report FILE [--explain] ...'.");
#endif
  m.def("cli_main", &cli_main, nb::arg("argv"),
        "Runs the kprof command with argv (argv[0] is the program name; each argument str or "
        "bytes, as os.fsencode gives them) and returns its exit status.");
}

}  // namespace kprof::py
