#include "kprof/sweep.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include "kprof/errors.hpp"

namespace kprof {

std::string to_string(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  char buf[32];
  const double d = std::get<double>(v);
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string out(buf, end);
  // Keep doubles recognisable as doubles: 2.0, not 2.
  if (std::isfinite(d) && out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

const char* type_name(const Value& v) {
  switch (v.index()) {
    case 0:
      return "int";
    case 1:
      return "double";
    default:
      return "string";
  }
}

const Value& Config::at(const std::string& name) const {
  const auto& names = sweep_->names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return sweep_->point(index_)[i];
  std::vector<std::string> valid(names.begin(), names.end());
  throw ConfigError("config has no parameter '" + name + "'; parameters: " +
                    (valid.empty() ? std::string("none") : join_choices(valid)));
}

namespace {
[[noreturn]] void wrong_type(const std::string& name, const Value& v, const char* wanted) {
  throw ConfigError("config parameter '" + name + "' holds " + type_name(v) + " " + to_string(v) +
                    ", not " + wanted);
}
}  // namespace

std::int64_t Config::get_int(const std::string& name) const {
  const Value& v = at(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  wrong_type(name, v, "an int");
}

double Config::get_double(const std::string& name) const {
  const Value& v = at(name);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  wrong_type(name, v, "a double");
}

const std::string& Config::get_string(const std::string& name) const {
  const Value& v = at(name);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  wrong_type(name, v, "a string");
}

std::string Config::to_string() const {
  std::string out;
  const auto& names = sweep_->names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += names[i] + "=" + kprof::to_string(sweep_->point(index_)[i]);
  }
  return out;
}

namespace {
void check_names(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (n.empty()) throw ConfigError("a sweep parameter has an empty name");
    if (!seen.insert(n).second) throw ConfigError("sweep parameter '" + n + "' appears twice");
  }
}
}  // namespace

Sweep Sweep::product(std::vector<Axis> axes) {
  Sweep s;
  for (auto& a : axes) s.axis(std::move(a.name), std::move(a.values));
  return s;
}

Sweep Sweep::list(std::vector<std::string> names, std::vector<std::vector<Value>> points) {
  check_names(names);
  if (points.empty()) throw ConfigError("configs cannot be empty");
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].size() != names.size())
      throw ConfigError("config " + std::to_string(i) + " has " + std::to_string(points[i].size()) +
                        " values, but the sweep has " + std::to_string(names.size()) +
                        " parameters");
  Sweep s;
  s.names_ = std::move(names);
  s.points_ = std::move(points);
  s.from_list_ = true;
  return s;
}

Sweep& Sweep::axis(std::string name, std::vector<Value> values) {
  if (from_list_) throw ConfigError("axis('" + name + "') cannot extend a sweep built from a list");
  if (values.empty()) throw ConfigError("axis '" + name + "' has no values");
  names_.push_back(std::move(name));
  check_names(names_);
  std::vector<std::vector<Value>> points;
  points.reserve(points_.size() * values.size());
  for (const auto& p : points_)
    for (const auto& v : values) {
      points.push_back(p);
      points.back().push_back(v);
    }
  points_ = std::move(points);
  return *this;
}

std::string describe_run(std::size_t config, std::size_t configs, std::string_view params, int run,
                         int runs) {
  std::string text = "config " + std::to_string(config + 1) + "/" + std::to_string(configs);
  if (!params.empty()) text += " (" + std::string(params) + ")";
  if (run < 0) return text;
  text += ", run " + std::to_string(run + 1);
  return runs > 0 ? text + "/" + std::to_string(runs) : text;
}

}  // namespace kprof
