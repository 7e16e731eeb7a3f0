// The tutorial's step 7 in C++: record the clock and temperature of every run, with collectors.
//
// 30 runs of a compute-bound kernel. Two run-scope collectors read NVML (loaded at run time, so
// the example needs no NVML headers) before every run: the SM clock and the GPU temperature.
// The counter gpc__cycles_elapsed.avg.per_second gives the clock the kernel itself ran at,
// which kprof keeps per run (RunInfo::sm_clock_khz) to flag runs whose clock fell below 75% of
// the rated clock. The program prints the runs and how the duration follows each reading.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

// The few NVML calls the collectors make, found in the driver's libnvidia-ml. Without nvml.h,
// int stands for nvmlReturn_t and for the enums, void* for nvmlDevice_t (same sizes on Linux).
class Nvml {
 public:
  explicit Nvml(const std::string& pci_bus_id) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (lib_ == nullptr) return;
    auto init = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(
        dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ = reinterpret_cast<Read>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    temperature_ = reinterpret_cast<Read>(dlsym(lib_, "nvmlDeviceGetTemperature"));
    shutdown_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlShutdown"));
    if (init == nullptr || by_bus == nullptr || init() != 0) return;
    initialized_ = true;
    if (by_bus(pci_bus_id.c_str(), &device_) != 0) device_ = nullptr;
  }
  ~Nvml() {
    if (initialized_ && shutdown_ != nullptr) shutdown_();
    if (lib_ != nullptr) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  bool works() const { return device_ != nullptr; }
  double sm_clock_mhz() const { return read(clock_, 1); }         // NVML_CLOCK_SM
  double temperature_c() const { return read(temperature_, 0); }  // NVML_TEMPERATURE_GPU

 private:
  using Read = int (*)(void*, int, unsigned*);
  double read(Read function, int what) const {
    unsigned value = 0;
    if (device_ == nullptr || function == nullptr || function(device_, what, &value) != 0)
      return NAN;  // the collector gives no value for this run
    return value;
  }
  void* lib_ = nullptr;
  void* device_ = nullptr;
  bool initialized_ = false;
  Read clock_ = nullptr, temperature_ = nullptr;
  int (*shutdown_)() = nullptr;
};

double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace

int main() try {
  const kprof::SystemInfo system = kprof::query_system();
  if (system.devices.empty()) throw kprof::NoGpuError("no CUDA device: " + system.driver_error);
  const Nvml nvml(system.devices.front().pci_bus_id);
  kprof::demo::Kernels kernels(std::size_t{1} << 24);

  kprof::Options options;
  options.runs = 30;
  options.metrics = {std::string(kprof::kDurationMetric), "gpc__cycles_elapsed.avg.per_second"};
  options.info_collectors = {
      {"nvml_clock_mhz", kprof::CollectionScope::run, [&](auto&) { return nvml.sm_clock_mhz(); }},
      {"temperature_c", kprof::CollectionScope::run, [&](auto&) { return nvml.temperature_c(); }},
  };
  kprof::Results results = kprof::profile(options, [&] {
    kprof::Annotation region("fma");
    kernels.fma(std::size_t{1} << 24, 2000);
  });

  std::map<std::pair<std::string, int>, double> info;  // (collector, run) -> value
  for (const kprof::InfoValue& v : results.info()) info[{v.name, v.run}] = v.value;
  std::map<int, double> us;  // run -> duration
  for (const kprof::Sample& s : results.samples())
    if (s.metric == kprof::kDurationMetric) us[s.run] = s.value / 1e3;

  std::printf("clock source: %s\n%4s %10s %12s %15s %14s %10s\n",
              results.session().clock_source.c_str(), "run", "us", "counted MHz", "nvml_clock_mhz",
              "temperature_c", "throttled");
  std::vector<std::vector<double>> columns(4);
  for (const kprof::RunInfo& run : results.run_info()) {
    const double row[] = {us[run.run], run.sm_clock_khz / 1e3, info[{"nvml_clock_mhz", run.run}],
                          info[{"temperature_c", run.run}]};
    std::printf("%4d %10.1f %12.0f %15.0f %14.0f %10s\n", run.run, row[0], row[1], row[2], row[3],
                !run.throttled   ? "?"
                : *run.throttled ? "yes"
                                 : "no");
    for (std::size_t i = 0; i < 4; ++i) columns[i].push_back(row[i]);
  }
  std::printf(
      "correlation of the duration with: counted clock %.2f, NVML clock %.2f, "
      "temperature %.2f (nan: the reading did not change, or there was none)\n",
      correlation(columns[0], columns[1]), correlation(columns[0], columns[2]),
      correlation(columns[0], columns[3]));
  if (!nvml.works()) std::printf("NVML could not be read: its columns are nan\n");
} catch (const kprof::Error& e) {
  std::fprintf(stderr, "collectors: %s\n", e.what());
  return 1;
}
