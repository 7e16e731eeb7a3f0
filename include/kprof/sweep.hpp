// The configurations a profile sweeps over: named axes of int, double or string values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kprof {

// One value of a config parameter.
using Value = std::variant<std::int64_t, double, std::string>;

std::string to_string(const Value& v);
// "int", "double" or "string".
const char* type_name(const Value& v);

struct Axis {
  std::string name;
  std::vector<Value> values;
};

class Sweep;

// One point of a sweep, handed to the benchmark function.
class Config {
 public:
  Config(const Sweep& sweep, std::size_t index) : sweep_(&sweep), index_(index) {}
  std::size_t index() const noexcept { return index_; }
  // Throws ConfigError naming the axis when it does not exist or holds another type.
  const Value& at(const std::string& name) const;
  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;  // accepts int values too
  const std::string& get_string(const std::string& name) const;
  // "n=1024, dtype=fp16"
  std::string to_string() const;

 private:
  const Sweep* sweep_;
  std::size_t index_;
};

// Named axes and the list of points. Points are stored explicitly, in sweep order.
class Sweep {
 public:
  // No axes and one point: for benchmark functions that take no config.
  Sweep() = default;

  // Every combination of the axes' values; the last axis varies fastest.
  static Sweep product(std::vector<Axis> axes);
  // Explicit points; every point must have one value per name (ConfigError otherwise).
  static Sweep list(std::vector<std::string> names, std::vector<std::vector<Value>> points);
  // Adds an axis to a product sweep: Sweep().axis("n", {512, 1024}).axis("dtype", {"fp16"}).
  Sweep& axis(std::string name, std::vector<Value> values);

  std::size_t size() const noexcept { return points_.size(); }
  const std::vector<std::string>& names() const noexcept { return names_; }
  const std::vector<Value>& point(std::size_t i) const { return points_.at(i); }
  Config config(std::size_t i) const { return Config(*this, i); }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<Value>> points_{std::vector<Value>{}};
  bool from_list_ = false;
};

// Where a run is, for the messages of every front end: "config 2/4 (n=1024), run 3/10", counted
// from 1 (`config` and `run` from 0); without `params`, "config 2/4, run 3/10"; "run 3" when
// the runs are not fixed (`runs` 0, a stopping rule); the config alone without a run (`run` -1).
std::string describe_run(std::size_t config, std::size_t configs, std::string_view params, int run,
                         int runs);

}  // namespace kprof
