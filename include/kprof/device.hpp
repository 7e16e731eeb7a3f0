// What this machine offers: GPUs, driver, CUDA and CUPTI versions, counter permission.
// Works on a machine without a GPU or driver: it then says so instead of throwing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  std::string pci_bus_id;  // "0000:3b:00.0"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t compute_clock_khz = 0;  // rated peak SM clock
  std::int64_t memory_clock_khz = 0;   // rated peak memory clock
};

struct SystemInfo {
  bool built_with_cuda = false;
  bool driver_loaded = false;  // libcuda.so.1 found and initialised
  std::string driver_error;    // why not, when driver_loaded is false
  int driver_version = 0;      // CUDA driver API version, 13000 for 13.0; 0 when none
  int runtime_version = 0;     // CUDA runtime kprof was built with
  int cupti_version = 0;       // CUPTI API version; 0 when CUPTI is not loadable
  // The file CUPTI was loaded from (the process's own, as PyTorch's; the nvidia-cuda-cupti
  // wheel's beside kprof; the toolkit's); "" when unknown.
  std::string cupti_path;
  std::string host;
  // Whether this process may read hardware counters: "yes (root)", "yes (profiling open to
  // all users)", "no: restricted to admin users (...)", or "unknown (...)".
  std::string counter_permission;
  // set:flop's instruction counts in this process: "" where they can be made (CUPTI 13.5 or
  // later and nvdisasm), else why not and what to do.
  std::string flop_counting;
  std::vector<DeviceInfo> devices;
};

// Queries the machine. Never throws for a missing driver or GPU.
SystemInfo query_system();

// Makes `ordinal` the current CUDA device of the calling thread, the one profile() measures
// (as cudaSetDevice or torch.cuda.set_device). Throws NoGpuError without a driver or a GPU of
// that ordinal, CudaError for other failures.
void use_device(int ordinal);

// How kprof's reports and command line spell a device's quantities (src/core/device_text.cpp).
std::string cuda_version_string(int version);  // "13.0" for 13000; "" for 0 or less
std::string format_bytes(std::int64_t bytes);  // "139.8 GiB", "60 MiB", "512 B"
std::string format_clock(std::int64_t khz);    // "1980 MHz", "1410.5 MHz"; "-" for 0 or less
// CUPTI's version number: "13.0.1" for 130001 (CUDA 13 on), "v28" before; "none" for 0 or less.
std::string format_cupti_version(int version);

}  // namespace kprof
