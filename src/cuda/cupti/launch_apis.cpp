#include "cuda/cupti/launch_apis.hpp"

namespace kprof::detail {
namespace {

constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
#if CUPTI_API_VERSION >= 130000
    // nvcc 13 lowers kernel<<<...>>> to __cudaLaunchKernel, not to cudaLaunchKernel.
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
#endif
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
};

constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

}  // namespace

bool is_graph_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) noexcept {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
  return domain == CUPTI_CB_DOMAIN_DRIVER_API &&
         (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
}

namespace {

template <typename Params>
CUstream stream_of(const void* params) {
  return static_cast<const Params*>(params)->hStream;
}

template <typename Params>
CUstream config_stream_of(const void* params) {
  const CUlaunchConfig* config = static_cast<const Params*>(params)->config;
  return config != nullptr ? config->hStream : nullptr;
}

CUstream per_thread_if_null(CUstream stream) {
  return stream != nullptr ? stream : CU_STREAM_PER_THREAD;
}

}  // namespace

std::span<const CUpti_CallbackId> runtime_launch_cbids() noexcept { return kRuntimeLaunches; }

std::span<const CUpti_CallbackId> driver_launch_cbids() noexcept { return kDriverLaunches; }

bool driver_launch_stream(CUpti_CallbackId cbid, const void* params, CUstream* stream) noexcept {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
      *stream = nullptr;  // these legacy APIs launch on the legacy default stream
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
      *stream = stream_of<cuLaunchGridAsync_params>(params);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      *stream = stream_of<cuLaunchKernel_params>(params);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      *stream = per_thread_if_null(stream_of<cuLaunchKernel_ptsz_params>(params));
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      *stream = config_stream_of<cuLaunchKernelEx_params>(params);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      *stream = per_thread_if_null(config_stream_of<cuLaunchKernelEx_ptsz_params>(params));
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      *stream = stream_of<cuLaunchCooperativeKernel_params>(params);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      *stream = per_thread_if_null(stream_of<cuLaunchCooperativeKernel_ptsz_params>(params));
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
      *stream = stream_of<cuGraphLaunch_params>(params);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      *stream = per_thread_if_null(stream_of<cuGraphLaunch_ptsz_params>(params));
      return true;
    default:
      return false;
  }
}

}  // namespace kprof::detail
