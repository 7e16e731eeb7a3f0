// kprof's per-call costs in C++, each printed beside the reference measured in the same run:
//
//   annotation   kprof::Annotation opened and closed outside a profile, against the NVTX push
//                and pop it makes (goal: at most 200 ns a pair)
//   profile      one kprof::profile call (one config, one run, one small kernel) against the
//                same body undecorated, with the defaults and without the thermal guard or
//                the L2 flush (goal: at most 1 ms more with the defaults)
//   pieces       with --pieces, what the fixed cost is made of: the steps profile() takes,
//                each timed on its own through kprof's internal interfaces
//
// Run on a GPU: build/.../kprof_hot_path [--pieces]
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/measure/backend_registry.hpp"
#include "core/measure/gpu_layer.hpp"
#include "kprof/demo.hpp"
#include "kprof/kprof.hpp"

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median of `reps` timings of fn, in seconds.
double median_s(int reps, const std::function<void()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now_s();
    fn();
    t.push_back(now_s() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void annotation_cost() {
  constexpr int kPairs = 1'000'000;
  const nvtxDomainHandle_t domain = nvtxDomainCreateA("kprof-bench");
  const std::string name = "region";
  const double nvtx = median_s(5, [&] {
    for (int i = 0; i < kPairs; ++i) {
      nvtxEventAttributes_t a = {};
      a.version = NVTX_VERSION;
      a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      a.messageType = NVTX_MESSAGE_TYPE_ASCII;
      a.message.ascii = name.c_str();
      nvtxDomainRangePushEx(domain, &a);
      nvtxDomainRangePop(domain);
    }
  });
  const double kprof = median_s(5, [&] {
    for (int i = 0; i < kPairs; ++i) kprof::Annotation a(name);
  });
  std::printf("annotation outside a profile: kprof %.0f ns, NVTX push+pop %.0f ns, ratio %.2f\n",
              kprof / kPairs * 1e9, nvtx / kPairs * 1e9, kprof / nvtx);
}

kprof::Options quiet() {
  kprof::Options o;
  o.verbosity = kprof::Verbosity::silent;
  return o;
}

void profile_cost(kprof::demo::Kernels& kernels) {
  constexpr int kCalls = 50;
  const auto body = [&] {
    kernels.scale(1 << 20);
    kernels.synchronize();
  };
  for (int i = 0; i < 5; ++i) body();
  const double plain = median_s(kCalls, body);
  struct Variant {
    const char* name;
    kprof::Options options;
  };
  std::vector<Variant> variants{{"defaults", quiet()}};
  variants.push_back({"thermal off", quiet()});
  variants.back().options.thermal_mode = kprof::ThermalMode::off;
  variants.push_back({"cache none", quiet()});
  variants.back().options.cache_control = kprof::CacheControl::none;
  variants.push_back({"both off", variants[1].options});
  variants.back().options.cache_control = kprof::CacheControl::none;
  std::printf("profile() of one run of one kernel, undecorated %.3f ms:\n", plain * 1e3);
  for (const Variant& v : variants) {
    const auto call = [&] {
      kprof::profile(v.options, [&] {
        kprof::Annotation a("scale");
        body();
      });
    };
    call();  // the first profile of a process loads CUPTI and NVML
    const double t = median_s(kCalls, call);
    std::printf("  %-12s %.3f ms, fixed cost %.3f ms (%.1fx the undecorated call)\n", v.name,
                t * 1e3, (t - plain) * 1e3, t / plain);
  }
}

// The steps of profile() on their own, so that the fixed cost can be read as a sum.
void pieces() {
  using namespace kprof::detail;
  const kprof::Options o = quiet();
  const auto ms = [](double s) { return s * 1e3; };
  const auto step = [&](const char* name, const std::function<void()>& fn) {
    fn();
    std::printf("  %-34s %.3f ms\n", name, ms(median_s(30, fn)));
  };
  std::printf("profile()'s steps, each on its own (median of 30):\n");
  step("validate", [&] { o.validate(); });
  kprof::Options resolved = o;  // as profile() gives it
  resolved.replay_mode = chosen_replay_mode(o).mode;
  step("chosen_replay_mode", [&] { (void)chosen_replay_mode(o); });
  step("make_gpu_backend", [&] { (void)make_gpu_backend(resolved); });
  auto backend = make_gpu_backend(resolved);
  step("describe", [&] { (void)backend->describe(); });
  step("make_device_services", [&] { (void)make_device_services(o); });
  DeviceServices services = make_device_services(o);
  if (services.device) {
    step("device read_after_run", [&] { (void)services.device->read_after_run(); });
    step("device margin_c (thermal guard)", [&] { (void)services.device->margin_c(); });
  }
  // start, an empty collection and stop of the backend, each timed apart
  std::vector<double> start, collect, stop;
  for (int i = 0; i < 31; ++i) {
    const double t0 = now_s();
    backend->start(o);
    const double t1 = now_s();
    (void)backend->salvage();  // the activity backend's collection: synchronize and flush
    const double t2 = now_s();
    backend->stop();
    const double t3 = now_s();
    if (i == 0) continue;  // the first start loads what later ones reuse
    start.push_back(t1 - t0);
    collect.push_back(t2 - t1);
    stop.push_back(t3 - t2);
  }
  for (auto* v : {&start, &collect, &stop}) std::sort(v->begin(), v->end());
  std::printf("  %-34s %.3f ms\n", "backend start", ms(start[15]));
  std::printf("  %-34s %.3f ms\n", "collect (nothing measured)", ms(collect[15]));
  std::printf("  %-34s %.3f ms\n", "backend stop", ms(stop[15]));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    kprof::demo::Kernels kernels(1 << 20);
    annotation_cost();
    profile_cost(kernels);
    if (argc > 1 && std::strcmp(argv[1], "--pieces") == 0) pieces();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hot_path: %s\n", e.what());
    return 1;
  }
  return 0;
}
