// _core.profile: runs kprof::profile with the GIL released; the benchmark function is a Python
// callable that gets the config index. Python exceptions raised by the callables are kept and
// re-raised once the core has unwound, so they are never lost or flattened into strings.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "kprof/profile.hpp"

namespace kprof::py {
namespace {

nb::object run_profile(const kprof::Options& options, const std::vector<std::string>& names,
                       const nb::list& points, nb::callable fn, nb::object on_checked) {
  kprof::Sweep sweep = sweep_from_python(names, points);
  PyErrorStash stash;
  StashScope scope(&stash);
  nb::handle callable = fn;  // kept alive by the caller for the whole call
  ProgressScope progress;    // the front end's progress bar, if it set one (bind_progress.cpp)
  kprof::ProfileHooks hooks;
  hooks.run_done = progress.run_done();
  hooks.interrupt_poll = poll_python_interrupt;  // Ctrl-C between calls, in thermal pauses
  hooks.front_end_saves_partial_results = true;  // kprof._partial, with the call's name
  if (!on_checked.is_none()) {
    hooks.checked = [checked = nb::handle(on_checked), &progress] {  // kept alive by the caller
      nb::gil_scoped_acquire gil;
      try {
        checked();
      } catch (nb::python_error& e) {
        stash_and_throw(e, "on_checked");
      }
      progress.take();  // the progress bar the callback may have set
    };
  }

  kprof::BenchmarkFn body = [callable](const kprof::Config& config) {
    nb::gil_scoped_acquire gil;
    try {
      callable(config.index());
    } catch (nb::python_error& e) {
      stash_and_throw(e, "benchmark");
    }
  };

  std::optional<kprof::Results> results;
  try {
    nb::gil_scoped_release release;
    results.emplace(kprof::profile(options, sweep, body, hooks));
  } catch (const kprof::Error& e) {
    raise_from_core(e, stash);
  } catch (const std::exception&) {
    raise_other_from_core(stash);
  }
  if (!stash.empty()) {
    // The core caught a callback's failure and went on; the user still has to know.
    nb::object original = stash.exc;
    stash.exc = nb::object();
    raise_py(original);
  }
  return nb::cast(std::move(*results));
}

}  // namespace

void bind_profile(nb::module_& m) {
  m.def("profile", &run_profile, nb::arg("options"), nb::arg("names"), nb::arg("points"),
        nb::arg("fn"), nb::arg("on_checked").none() = nb::none(),
        "Runs kprof::profile(options, Sweep::list(names, points), fn): fn(config_index) is "
        "called options.runs times per config with the GIL held; the core runs with the GIL "
        "released. on_checked() (if given) is called once the core has checked the options, "
        "before any GPU work; a progress observer it hands to _set_progress observes this call. "
        "Returns _core.Results; raises the kprof.errors class of any core "
        "error, with partial_results.");
  m.def("prepare_profile", &kprof::prepare_profile, nb::arg("options"),
        "kprof::prepare_profile: for set:flop, keeps the code of the CUDA modules loaded from "
        "now on; does nothing otherwise, never raises.");
  m.def("saves_partial_results", &kprof::saves_partial_results, nb::arg("output_csv"),
        nb::arg("output_prefix"),
        "kprof::saves_partial_results: whether a failed profile's partial results are saved "
        "(output_csv, or an output_prefix given).");
  m.def("save_partial_results", &kprof::save_partial_results, nb::arg("partial"), nb::arg("prefix"),
        nb::arg("tag"), nb::arg("csv"),
        "kprof::save_partial_results: writes {prefix}partial-{tag}.json (and with csv the CSV "
        "files tagged partial-{tag}); returns the paths written.");
  m.def("partial_results_note", &kprof::partial_results_note, nb::arg("partial"), nb::arg("saved"),
        "The line that says what a failed profile kept and where.");
}

}  // namespace kprof::py
