#include "kprof/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

namespace kprof {
namespace {

// A unit name and how many base units of its family one of it is.
struct Named {
  std::string_view name;
  double factor;
};

// `ladder`: the display units, ascending. `aliases`: other spellings of the same family.
struct Family {
  std::span<const Named> ladder;
  std::span<const Named> aliases;
};

constexpr Named kTime[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
constexpr Named kTimeAliases[] = {
    {"nanosecond", 1}, {"nsecond", 1}, {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9}};
constexpr Named kBytes[] = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
constexpr Named kBytesAliases[] = {{"byte", 1},    {"bytes", 1},   {"Kbyte", 1e3},
                                   {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"Tbyte", 1e12}};
constexpr Named kRate[] = {{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
constexpr Named kRateAliases[] = {{"byte/second", 1},    {"byte/s", 1},
                                  {"Kbyte/second", 1e3}, {"Mbyte/second", 1e6},
                                  {"Gbyte/second", 1e9}, {"Tbyte/second", 1e12}};
constexpr Named kPercent[] = {{"%", 1}};
constexpr Named kPercentAliases[] = {{"percent", 1}};

constexpr Family kFamilies[] = {{kTime, kTimeAliases},
                                {kBytes, kBytesAliases},
                                {kRate, kRateAliases},
                                {kPercent, kPercentAliases}};

struct Known {
  const Family* family;
  double factor;  // base units in one of the unit looked up
};

std::optional<double> find_in(std::span<const Named> names, std::string_view unit) {
  for (const Named& n : names)
    if (n.name == unit) return n.factor;
  return std::nullopt;
}

std::optional<Known> lookup(std::string_view unit) {
  for (const Family& f : kFamilies) {
    auto factor = find_in(f.ladder, unit);
    if (!factor) factor = find_in(f.aliases, unit);
    if (factor) return Known{&f, *factor};
  }
  return std::nullopt;
}

// "%.*e" of v: the digits printf rounds to, which is what the reader will see.
std::string exponent_form(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(significant, 1) - 1, v);
  return buf;
}

double round_significant(double v, int significant) {
  if (v == 0 || !std::isfinite(v)) return v;
  return std::strtod(exponent_form(v, significant).c_str(), nullptr);
}

// "2.680" -> "2.68", "3.000" -> "3"; the exponent of "1.500e-07" is kept.
std::string trim_zeros(std::string s) {
  const auto e = s.find('e');
  std::string exponent = e == std::string::npos ? "" : s.substr(e);
  s = s.substr(0, e);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s + exponent;
}

}  // namespace

std::string short_unit(const std::string& unit) {
  for (const Family& f : kFamilies)
    if (const auto factor = find_in(f.aliases, unit))
      for (const Named& n : f.ladder)
        if (n.factor == *factor) return std::string(n.name);
  return unit;
}

DisplayUnit display_unit(double value, const std::string& unit, int significant) {
  const auto known = lookup(unit);
  if (!known) return {1, unit};
  double magnitude = round_significant(std::fabs(value * known->factor), significant);
  // Zero and non-finite values have no natural unit: keep the one given.
  if (!(magnitude > 0) || !std::isfinite(magnitude)) magnitude = known->factor;
  const Named* pick = &known->family->ladder.front();
  for (const Named& step : known->family->ladder)
    if (step.factor <= magnitude) pick = &step;
  return {known->factor / pick->factor, std::string(pick->name)};
}

Scaled scale_for_display(double value, const std::string& unit, int significant) {
  DisplayUnit d = display_unit(value, unit, significant);
  return {value * d.factor, std::move(d.unit)};
}

std::optional<double> unit_factor(const std::string& from, const std::string& to) {
  const auto a = lookup(from);
  const auto b = lookup(to);
  if (!a || !b || a->family != b->family) return std::nullopt;
  return a->factor / b->factor;
}

std::string format_number(double v, int significant) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const std::string rounded = exponent_form(v, significant);
  const int exponent = std::atoi(rounded.c_str() + rounded.find('e') + 1);
  if (exponent < -4 || exponent >= 15) return trim_zeros(rounded);
  const int decimals = std::max(0, std::max(significant, 1) - 1 - exponent);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return trim_zeros(buf);
}

}  // namespace kprof
