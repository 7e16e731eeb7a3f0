// `kprof metrics`: lists, searches and describes the metrics of a chip, its metric sets and
// the passes a list of metrics needs. Everything works offline for a chip named with --chip;
// without --chip the chip is the current GPU's.
#include "cli/command_metrics.hpp"

#include <ostream>
#include <sstream>

#include "kprof/errors.hpp"
#include "kprof/metrics.hpp"

namespace kprof::cli {

namespace {

constexpr std::size_t kWidth = 96;

// The chip the command works on: --chip, else the current GPU's. Throws UsageError when there
// is neither.
std::string chip_of(const ParsedArgs& args, const char* need) {
  if (auto chip = args.get("--chip")) return *chip;
  if (auto chip = metrics::current_chip()) return *chip;
  const std::string reason = no_gpu_reason(query_system());
  throw UsageError(std::string(need) +
                   " needs a chip: give --chip NAME (GH100 for H100 and H200; `kprof metrics "
                   "--chips` lists them), or run it on a GPU (" +
                   (reason.empty() ? "the current GPU's chip could not be read"
                                   : "no GPU available: " + reason) +
                   ")");
}

std::string unit_or_dash(const std::string& unit) { return unit.empty() ? "-" : unit; }

void print_chips(std::ostream& out) {
  const std::vector<std::string> chips = metrics::supported_chips();
  std::string list;
  for (const std::string& c : chips) list += (list.empty() ? "" : " ") + c;
  out << chips.size() << " chips supported by this CUPTI's Profiler Host API:\n"
      << wrap_text(list, kWidth, "  ") << "H100 and H200 are GH100.\n";
}

void print_summary(const metrics::MetricCatalog& catalog, std::ostream& out) {
  std::size_t counts[3] = {0, 0, 0};
  for (const std::string& b : catalog.base_names()) {
    ++counts[static_cast<int>(catalog.type_of(b))];
  }
  out << wrap_text(catalog.chip() + ": " + std::to_string(catalog.base_names().size()) +
                       " base metrics (" + std::to_string(counts[0]) + " counters, " +
                       std::to_string(counts[1]) + " ratios, " + std::to_string(counts[2]) +
                       " throughputs), " +
                       std::to_string(catalog.size() - metrics::launch_metrics().size() -
                                      metrics::sampled_metrics().size()) +
                       " metric names with their suffixes, " +
                       std::to_string(metrics::launch_metrics().size()) +
                       " launch statistics at no pass (--search launch__, set:launch) and " +
                       std::to_string(metrics::sampled_metrics().size()) +
                       " warp-sampling metrics (--search pcsamp, set:source).",
                   kWidth, "")
      << "\n"
      << wrap_text(
             "A name is a base metric, a rollup and an optional submetric: "
             "dram__bytes_read.sum, dram__bytes_read.sum.per_second, "
             "sm__throughput.avg.pct_of_peak_sustained_elapsed, lts__t_sector_hit_rate.pct. "
             "--search TEXT finds base metrics (or full names, for TEXT with a suffix), "
             "--describe NAME shows one with its suffixes, --passes A,B counts the passes a list "
             "needs, --sets shows kprof's metric sets.",
             kWidth, "");
}

void print_search(const metrics::MetricCatalog& catalog, const std::string& pattern,
                  std::ostream& out) {
  const std::vector<std::string> bases = catalog.search_base(pattern);
  if (!bases.empty()) {
    std::size_t names = 0;
    std::vector<std::vector<std::string>> rows = {{"base metric", "type", "unit", "description"}};
    for (const std::string& b : bases) {
      const metrics::MetricInfo info = catalog.describe_brief(b);
      names += info.suffixes.size();
      rows.push_back({b, metrics::to_string(info.type), unit_or_dash(info.unit), info.description});
    }
    out << catalog.chip() << ": " << bases.size() << " base metric"
        << (bases.size() == 1 ? "" : "s") << " match '" << pattern << "' (" << names
        << " names with their suffixes)\n\n";
    print_columns(out, rows);
    out << "\n"
        << wrap_text(
               "A name needs a suffix: counters take a rollup (.sum .avg .min .max) and "
               "optionally a submetric (.per_second, .pct_of_peak_sustained_elapsed, ...); "
               "ratios take .pct or .ratio; throughputs take "
               ".avg.pct_of_peak_sustained_elapsed and the like. The suffixes of one:",
               kWidth, "")
        << "  kprof metrics --chip " << catalog.chip() << " --describe " << bases.front() << "\n";
    return;
  }
  const std::vector<std::string> names = catalog.search(pattern);
  if (names.empty()) {
    out << catalog.chip() << ": no metric matches '" << pattern << "'";
    const std::vector<std::string> near = catalog.closest(pattern, 5);
    if (!near.empty()) {
      out << "; closest names:\n";
      for (const std::string& n : near) out << "  " << n << "\n";
    } else {
      out << "\n";
    }
    return;
  }
  out << catalog.chip() << ": " << names.size() << " metric name" << (names.size() == 1 ? "" : "s")
      << " match '" << pattern << "'\n\n";
  std::vector<std::vector<std::string>> rows = {{"metric", "type", "unit"}};
  for (const std::string& n : names) {
    const metrics::MetricInfo info = catalog.describe_brief(n);
    rows.push_back({n, metrics::to_string(info.type), unit_or_dash(info.unit)});
  }
  print_columns(out, rows);
}

void print_describe(const metrics::MetricCatalog& catalog, const std::string& name,
                    std::ostream& out) {
  const metrics::MetricInfo info = catalog.describe(name);
  const bool base = !info.passes.has_value();
  const bool launch = metrics::is_launch_metric(name);
  out << name << " (" << catalog.chip() << (base ? ", base metric" : "") << ")\n";
  std::vector<std::vector<std::string>> rows = {
      {"type", launch ? "launch statistic (from the kernel's launch, no counter)"
                      : metrics::to_string(info.type)},
      {"unit", info.unit.empty() ? "none (a ratio)" : info.unit},
      {"hardware unit", info.hw_unit},
      {"description", info.description}};
  if (launch) {
    rows.push_back({"passes", "0"});
    print_columns(out, rows, "  ");
    return;
  }
  if (!base) {
    rows.push_back({"passes", std::to_string(*info.passes) + " (collected alone)"});
    rows.push_back({"base metric", info.base});
  }
  print_columns(out, rows, "  ");
  std::string suffixes;
  for (const std::string& s : info.suffixes) suffixes += (suffixes.empty() ? "" : " ") + s;
  out << "  " << (base ? "names: add one of its " : "its base metric takes ")
      << info.suffixes.size() << " suffixes:\n"
      << wrap_text(suffixes, kWidth, "    ");
}

void print_passes(const metrics::MetricCatalog& catalog, const std::vector<std::string>& given,
                  std::ostream& out) {
  const int total = catalog.passes(given);
  const std::vector<std::string> expanded = metrics::expand(given);
  out << catalog.chip() << ": " << total << (total == 1 ? " pass" : " passes") << " for "
      << (expanded.size() == 1 ? "this metric"
                               : "these " + std::to_string(expanded.size()) + " metrics together")
      << "\n\n";
  std::vector<std::vector<std::string>> rows = {{"metric", "passes alone", "unit"}};
  for (const std::string& m : expanded) {
    const metrics::MetricInfo info = catalog.describe(m);
    rows.push_back({m, std::to_string(*info.passes), unit_or_dash(info.unit)});
  }
  print_columns(out, rows, "  ");
}

void print_sets(const std::string* chip, std::ostream& out) {
  std::optional<metrics::MetricCatalog> catalog;
  if (chip) catalog = metrics::catalog(*chip);
  bool first = true;
  for (const metrics::MetricSet& s : metrics::sets()) {
    out << (first ? "" : "\n") << metrics::kSetPrefix << s.name;
    first = false;
    if (catalog) {
      const int n = catalog->passes({std::string(metrics::kSetPrefix) + s.name});
      out << "  (" << s.metrics.size() << " metrics, " << n << (n == 1 ? " pass" : " passes")
          << " on " << catalog->chip() << ")";
    } else {
      out << "  (" << s.metrics.size() << " metrics)";
    }
    out << "\n" << wrap_text(s.question, kWidth, "  ");
    for (const std::string& m : s.metrics) out << "    " << m << "\n";
  }
  if (!catalog) {
    out << "\nPass counts depend on the chip: give --chip NAME (GH100 for H100 and H200).\n";
  }
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const auto last = item.find_last_not_of(" \t");
    out.push_back(item.substr(first, last - first + 1));
  }
  return out;
}

int command_metrics(const ParsedArgs& args, std::ostream& out, std::ostream&) {
  try {
    const bool chips = args.has("--chips"), sets = args.has("--sets");
    const auto search = args.get("--search"), describe = args.get("--describe"),
               passes = args.get("--passes");
    if (chips) print_chips(out);
    if (sets) {
      if (chips) out << "\n";
      std::optional<std::string> chip = args.get("--chip");
      if (!chip) chip = metrics::current_chip();
      print_sets(chip ? &*chip : nullptr, out);
    }
    const bool more = search || describe || passes;
    if ((chips || sets) && !more && !args.has("--chip")) return kExitOk;
    const metrics::MetricCatalog catalog =
        metrics::catalog(chip_of(args, search     ? "--search"
                                       : describe ? "--describe"
                                       : passes   ? "--passes"
                                                  : "kprof metrics"));
    bool printed = chips || sets;
    auto gap = [&] {
      if (printed) out << "\n";
      printed = true;
    };
    if (search) {
      gap();
      print_search(catalog, *search, out);
    }
    if (describe) {
      gap();
      print_describe(catalog, *describe, out);
    }
    if (passes) {
      const std::vector<std::string> list = split_list(*passes);
      if (list.empty()) throw UsageError("--passes needs metric names, comma-separated");
      gap();
      print_passes(catalog, list, out);
    }
    if (!printed) print_summary(catalog, out);
    return kExitOk;
  } catch (const OptionError& e) {
    // A chip or metric name the catalog does not know: a wrong command line.
    throw UsageError(e.what());
  }
}

}  // namespace kprof::cli
