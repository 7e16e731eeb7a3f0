// The metric catalog (kprof::metrics) for kprof.metrics: works without a GPU for a named chip.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "kprof/metrics.hpp"

namespace kprof::py {
namespace {

using kprof::metrics::MetricCatalog;

nb::dict info_dict(const kprof::metrics::MetricInfo& i) {
  nb::dict d;
  d["name"] = i.name;
  d["base"] = i.base;
  d["suffix"] = i.suffix;
  d["type"] = kprof::metrics::to_string(i.type);
  d["unit"] = i.unit;
  d["hw_unit"] = i.hw_unit;
  d["description"] = i.description;
  d["passes"] = i.passes ? nb::cast(*i.passes) : nb::none();
  d["suffixes"] = i.suffixes;
  return d;
}

nb::list sets_list() {
  nb::list out;
  for (const auto& s : kprof::metrics::sets()) {
    nb::dict d;
    d["name"] = s.name;
    d["question"] = s.question;
    d["metrics"] = s.metrics;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_metrics(nb::module_& m) {
  using release = nb::call_guard<nb::gil_scoped_release>;
  nb::class_<MetricCatalog>(m, "MetricCatalog",
                            "The metrics of one chip (kprof::metrics::MetricCatalog).")
      .def_prop_ro("chip", &MetricCatalog::chip)
      .def("base_names", &MetricCatalog::base_names, "Base metrics, sorted.")
      .def("names", &MetricCatalog::names, release(), "Every collectable name, sorted.")
      .def("size", &MetricCatalog::size, "Number of collectable names.")
      .def("contains", &MetricCatalog::contains, nb::arg("name"))
      .def("is_base", &MetricCatalog::is_base, nb::arg("name"))
      .def(
          "type_of",
          [](const MetricCatalog& c, const std::string& name) {
            return kprof::metrics::to_string(c.type_of(name));
          },
          nb::arg("name"))
      .def("search", &MetricCatalog::search, nb::arg("pattern"), release())
      .def("search_base", &MetricCatalog::search_base, nb::arg("pattern"), release())
      .def(
          "describe",
          [](const MetricCatalog& c, const std::string& name, bool passes) {
            kprof::metrics::MetricInfo info;
            {
              nb::gil_scoped_release unlocked;
              info = passes ? c.describe(name) : c.describe_brief(name);
            }
            return info_dict(info);
          },
          nb::arg("name"), nb::arg("passes") = true)
      .def("passes", &MetricCatalog::passes, nb::arg("names"), release())
      .def("closest", &MetricCatalog::closest, nb::arg("name"), nb::arg("n") = 5, release());

  m.def("metric_catalog", &kprof::metrics::catalog, nb::arg("chip"), release(),
        "The catalog of a chip; OptionError for a chip CUPTI does not know.");
  m.def("metric_supported_chips", &kprof::metrics::supported_chips, release());
  m.def("metric_current_chip", &kprof::metrics::current_chip, release(),
        "The current GPU's chip, or None without a usable GPU.");
  m.def("metric_sets", &sets_list, "kprof's metric sets as dicts (name, question, metrics).");
  m.def("metric_expand", &kprof::metrics::expand, nb::arg("metrics"),
        "The list with every 'set:NAME' replaced by its members, duplicates dropped.");
  m.def(
      "ncu_selections",
      [](const std::vector<std::string>& metrics) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& s : kprof::metrics::ncu_selections(metrics))
          out.emplace_back(s.kind, s.name);
        return out;
      },
      nb::arg("metrics"),
      "Nsight Compute's sets and sections in the list, as (kind, name): ('set', 'full'), "
      "('section', 'SpeedOfLight').");
}

}  // namespace kprof::py
