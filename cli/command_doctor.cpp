// `kprof doctor`: what works on this machine, and why not.
#include <cmath>
#include <ostream>
#include <string>

#include "cli/commands.hpp"
#include "kprof/annotate.hpp"
#include "kprof/demo.hpp"
#include "kprof/errors.hpp"
#include "kprof/profile.hpp"
#include "kprof/version.hpp"

namespace kprof::cli {

namespace {

constexpr const char* kProbeAnnotation = "doctor-spin";

// A probe result off by more than this factor either way means the timing path is broken
// (a duration of 0, or one taken from the wrong kernel).
constexpr double kProbeTolerance = 20.0;

Check timing_check(const TimingOutcome& t) {
  Check c{CheckStatus::fail, kTimingCheck, ""};
  switch (t.kind) {
    case TimingOutcome::Kind::measured: {
      const bool plausible = std::isfinite(t.measured_us) &&
                             t.measured_us >= t.requested_us / kProbeTolerance &&
                             t.measured_us <= t.requested_us * kProbeTolerance;
      c.detail = "a " + format_duration_ns(t.requested_us * 1e3) + " spin kernel measured " +
                 format_duration_ns(t.measured_us * 1e3) + " (1 run, L2 flushed" +
                 (t.backend.empty() ? std::string() : ", " + t.backend) + ")";
      if (plausible) {
        c.status = CheckStatus::ok;
      } else {
        c.detail += ": not plausible, kprof's durations cannot be trusted here";
      }
      break;
    }
    case TimingOutcome::Kind::cupti_busy:
      c.detail = cupti_busy_message(t.message, t.holder);
      break;
    case TimingOutcome::Kind::no_gpu:
      c.detail = "no GPU available: " + strip_no_gpu_prefix(t.message);
      break;
    case TimingOutcome::Kind::error:
      c.detail = one_line(t.message);
      break;
  }
  return c;
}

// A measured read off by more than this factor either way means the counters are wrong.
constexpr double kCounterTolerance = 1.25;

// The permission as far as the driver's settings tell, then (with a probe) a measurement.
Check counters_check(const SystemInfo& sys, bool gpu,
                     const std::function<CounterOutcome()>& probe) {
  const std::string perm = sys.counter_permission.empty() ? "unknown" : sys.counter_permission;
  if (!gpu) return {CheckStatus::skip, "counters", "permission " + perm + ", but no GPU"};
  if (perm.rfind("no", 0) == 0)
    return {CheckStatus::fail, "counters",
            "permission " + perm +
                " (run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0)"};
  if (!probe) return {CheckStatus::ok, "counters", "permission " + perm};
  const CounterOutcome o = probe();
  switch (o.kind) {
    case CounterOutcome::Kind::measured: {
      const double ratio = o.read_bytes / o.expected_bytes;
      const bool plausible = ratio >= 1 / kCounterTolerance && ratio <= kCounterTolerance;
      return {plausible ? CheckStatus::ok : CheckStatus::fail, "counters",
              "a kernel reading " + format_bytes(static_cast<std::int64_t>(o.expected_bytes)) +
                  " measured " + format_bytes(static_cast<std::int64_t>(o.read_bytes)) +
                  " of DRAM reads (range profiler, 1 pass)" +
                  (plausible ? "" : ": not plausible, counter values cannot be trusted here")};
    }
    case CounterOutcome::Kind::denied:
      return {CheckStatus::fail, "counters", one_line(o.message)};
    case CounterOutcome::Kind::error:
      break;
  }
  return {CheckStatus::fail, "counters", one_line(o.message)};
}

Check versions_check(const SystemInfo& sys) {
  Check c{CheckStatus::ok, "CUDA versions", ""};
  const int driver_major = sys.driver_version / 1000, runtime_major = sys.runtime_version / 1000;
  const std::string driver = cuda_version_string(sys.driver_version);
  const std::string runtime = cuda_version_string(sys.runtime_version);
  if (driver_major < runtime_major) {
    c.status = CheckStatus::fail;
    c.detail = "the driver supports CUDA " + driver + ", kprof was built with CUDA " + runtime +
               ": install a driver for CUDA " + std::to_string(runtime_major) + " or newer";
  } else if (sys.driver_version < sys.runtime_version) {
    c.detail = "driver CUDA " + driver + ", runtime " + runtime +
               ": works through minor version compatibility";
  } else {
    c.detail = "driver supports CUDA " + driver + ", kprof's runtime is " + runtime;
  }
  return c;
}

Check cupti_check(const SystemInfo& sys) {
  if (sys.cupti_version > 0)
    return {CheckStatus::ok, "CUPTI",
            format_cupti_version(sys.cupti_version) + " loads" +
                (sys.cupti_path.empty() ? std::string() : " from " + sys.cupti_path)};
  if (!sys.built_with_cuda) return {CheckStatus::skip, "CUPTI", "needs a build with CUDA"};
  if (!sys.cupti_path.empty())
    return {CheckStatus::fail, "CUPTI",
            "loads from " + sys.cupti_path +
                " but answers no version (cuptiGetVersion fails; CUPTI 13.5 does so without "
                "the NVIDIA driver)"};
  return {CheckStatus::fail, "CUPTI",
          "libcupti could not be loaded: put the CUDA toolkit's lib64 (or the directory of "
          "libcupti.so." +
              std::to_string(sys.runtime_version / 1000) + ") on the library path"};
}

}  // namespace

std::string cupti_busy_message(const std::string& message, const std::string& holder) {
  const std::string line = one_line(message);
  const std::string who = holder.empty() ? "another tool" : holder;
  return line.find(who) != std::string::npos ? line : "CUPTI is held by " + who + ": " + line;
}

const char* to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::ok:
      return "ok";
    case CheckStatus::fail:
      return "FAIL";
    case CheckStatus::skip:
      return "skip";
  }
  return "?";
}

TimingOutcome run_timing_probe() {
  TimingOutcome t;
  t.requested_us = kProbeSpinUs;
  try {
    demo::Kernels kernels(1024);
    Options options;
    options.runs = 1;
    options.verbosity = Verbosity::silent;
    const Results results = profile(options, [&] {
      Annotation a(kProbeAnnotation);
      kernels.spin(kProbeSpinUs);
    });
    for (const Row& row : results.rows()) {
      if (row.annotation == kProbeAnnotation && row.metric == kDurationMetric) {
        t.kind = TimingOutcome::Kind::measured;
        t.measured_us = row.mean / 1e3;  // ns
        t.backend = results.session().backend;
        return t;
      }
    }
    t.kind = TimingOutcome::Kind::error;
    t.message = "the profile returned no duration for the spin kernel";
  } catch (const CuptiBusyError& e) {
    t.kind = TimingOutcome::Kind::cupti_busy;
    t.message = e.what();
    t.holder = e.holder();
  } catch (const NoGpuError& e) {
    t.kind = TimingOutcome::Kind::no_gpu;
    t.message = e.what();
  } catch (const Error& e) {
    t.kind = TimingOutcome::Kind::error;
    t.message = std::string(e.kind()) + ": " + e.what();
  } catch (const std::exception& e) {
    t.kind = TimingOutcome::Kind::error;
    t.message = std::string("internal error: ") + e.what();
  }
  return t;
}

CounterOutcome run_counter_probe() {
  constexpr std::size_t kElements = std::size_t{1} << 20;
  CounterOutcome o;
  o.expected_bytes = 4.0 * kElements;
  try {
    demo::Kernels kernels(kElements);
    Options options;
    options.runs = 1;
    options.verbosity = Verbosity::silent;
    options.metrics = {"dram__bytes_read.sum"};
    const Results results = profile(options, [&] {
      Annotation a("doctor-counters");
      kernels.scale(kElements);
    });
    for (const Row& row : results.rows()) {
      if (row.metric == "dram__bytes_read.sum") {
        o.kind = CounterOutcome::Kind::measured;
        o.read_bytes = row.mean;
        return o;
      }
    }
    o.message = "the profile returned no dram__bytes_read.sum";
  } catch (const CounterPermissionError& e) {
    o.kind = CounterOutcome::Kind::denied;
    o.message = e.what();
  } catch (const Error& e) {
    o.message = std::string(e.kind()) + ": " + e.what();
  } catch (const std::exception& e) {
    o.message = std::string("internal error: ") + e.what();
  }
  return o;
}

std::vector<Check> doctor_checks(const SystemInfo& sys, const std::function<TimingOutcome()>& probe,
                                 const EnvFn& env,
                                 const std::function<CounterOutcome()>& counter_probe) {
  std::vector<Check> checks;
  const auto add = [&](CheckStatus s, std::string name, std::string detail) {
    checks.push_back({s, std::move(name), std::move(detail)});
  };

  if (sys.built_with_cuda) {
    add(CheckStatus::ok, "built with CUDA",
        "CUDA runtime " + cuda_version_string(sys.runtime_version));
  } else {
    add(CheckStatus::fail, "built with CUDA",
        std::string(kBuiltWithoutCuda) + " (KPROF_CUDA=OFF or no CUDA toolkit with CUPTI found): " +
            std::string(kRebuildWithCuda));
  }

  if (sys.driver_loaded) {
    add(CheckStatus::ok, "NVIDIA driver",
        "loaded, supports CUDA " + cuda_version_string(sys.driver_version));
  } else {
    add(CheckStatus::fail, "NVIDIA driver", driver_problem(sys));
  }

  const bool gpu = sys.built_with_cuda && sys.driver_loaded && !sys.devices.empty();
  if (gpu) {
    const DeviceInfo& d = sys.devices.front();
    add(CheckStatus::ok, "GPU visible",
        std::to_string(sys.devices.size()) + (sys.devices.size() == 1 ? " GPU" : " GPUs") +
            ", device " + std::to_string(d.ordinal) + ": " + d.name + " (cc " +
            std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ")");
  } else if (sys.driver_loaded) {
    add(CheckStatus::fail, "GPU visible", no_gpu_reason(sys, env));
  } else {
    add(CheckStatus::skip, "GPU visible", "needs the NVIDIA driver");
  }

  if (sys.built_with_cuda && sys.driver_loaded) {
    checks.push_back(versions_check(sys));
  } else {
    add(CheckStatus::skip, "CUDA versions",
        sys.built_with_cuda ? "needs the NVIDIA driver" : "needs a build with CUDA");
  }

  checks.push_back(cupti_check(sys));
  if (gpu && sys.cupti_version > 0) {
    checks.push_back(timing_check(probe()));
  } else {
    add(CheckStatus::skip, kTimingCheck, gpu ? "needs CUPTI" : "needs a GPU");
  }

  checks.push_back(counters_check(sys, gpu, counter_probe));
  // Optional: without it every other metric still measures.
  if (sys.flop_counting.empty())
    add(CheckStatus::ok, "set:flop", "FP32/FP64/FP16 instructions counted in the process");
  else
    add(CheckStatus::skip, "set:flop", one_line(sys.flop_counting));

  if (!sys.built_with_cuda) {
    add(CheckStatus::skip, "NVTX", "needs a build with CUDA");
  } else {
    const auto injection = env("NVTX_INJECTION64_PATH");
    add(CheckStatus::ok, "NVTX",
        "annotations open ranges in NVTX domain 'kprof'; " +
            (injection ? "a tool listens (NVTX_INJECTION64_PATH=" + *injection + ")"
                       : std::string("no tool listens now (Nsight Systems and Nsight Compute "
                                     "attach one)")));
  }
  return checks;
}

int print_checks(const std::vector<Check>& checks, std::ostream& out) {
  std::vector<std::vector<std::string>> rows;
  const Check* timing = nullptr;
  for (const Check& c : checks) {
    std::string status = to_string(c.status);
    status.resize(4, ' ');  // the same columns whether or not a FAIL is among them
    rows.push_back({status, c.name, c.detail});
    if (c.name == kTimingCheck) timing = &c;
  }
  print_columns(out, rows);
  out << "\n";
  if (timing != nullptr && timing->status == CheckStatus::ok) {
    out << "kprof can time kernels on this machine.\n";
    return kExitOk;
  }
  // The first failure is the one to fix.
  for (const Check& c : checks) {
    if (c.status == CheckStatus::fail) {
      out << "kprof cannot time kernels on this machine: " << c.name << ": " << c.detail << "\n";
      return kExitFailure;
    }
  }
  out << "kprof cannot time kernels on this machine.\n";
  return kExitFailure;
}

int command_doctor(const ParsedArgs&, std::ostream& out, std::ostream&) {
  const SystemInfo sys = query_system();
  out << "kprof " << version() << " doctor on " << (sys.host.empty() ? "this host" : sys.host)
      << "\n\n";
  return print_checks(doctor_checks(sys, run_timing_probe, process_env, run_counter_probe), out);
}

}  // namespace kprof::cli
