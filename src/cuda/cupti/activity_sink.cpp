#include "cuda/cupti/activity_sink.hpp"

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "cuda/cupti/cupti_check.hpp"
#include "cuda/device/l2_flush.hpp"

namespace kprof::detail {
namespace {

// 8 MiB per buffer (tens of thousands of kernel records): few buffer round trips per sweep, small
// enough to hand out freely. CUPTI wants 8-byte alignment.
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlignment = 8;

// Buffers handed back by CUPTI, zeroed again, for the next request. CUPTI zeroes every buffer it
// is given in the launching thread unless told the buffers come zeroed: on the H200 that made
// the first launch of every profile ~0.57 ms slower with 8 MiB buffers (0.26 ms with 1 MiB;
// docs/validation.md, 2026-12-01). A new buffer comes from calloc (pages the kernel zeroes
// when first touched); a used one is zeroed here over the bytes CUPTI filled (it appends records
// in order and writes nothing past the valid size it reports), once its records are read, and
// kept (a few at most) for the next request.
class BufferPool {
 public:
  std::uint8_t* take() {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        std::uint8_t* buffer = free_.back();
        free_.pop_back();
        return buffer;
      }
    }
    // calloc's alignment (16 bytes) is CUPTI's 8 and more; its pages are zeroed lazily.
    static_assert(alignof(std::max_align_t) >= kBufferAlignment);
    return static_cast<std::uint8_t*>(std::calloc(1, kBufferBytes));
  }
  void give_back(std::uint8_t* buffer, std::size_t used) noexcept {
    std::memset(buffer, 0, std::min(used, kBufferBytes));
    std::lock_guard lock(mutex_);
    if (free_.size() >= kKept) {
      std::free(buffer);
      return;
    }
    try {
      free_.push_back(buffer);
    } catch (...) {
      std::free(buffer);
    }
  }

 private:
  static constexpr std::size_t kKept = 4;
  std::mutex mutex_;
  std::vector<std::uint8_t*> free_;
};

BufferPool& buffer_pool() {
  static auto* pool = new BufferPool;  // never destroyed: CUPTI may hand buffers back at exit
  return *pool;
}

// The kernel record layout of the CUPTI kprof is built with, which CUPTI of the same major
// fills: CUDA 13's Kernel10, CUDA 12's Kernel9 (older ones: cupti_activity_deprecated.h).
#if CUPTI_API_VERSION >= 130000
using KernelActivity = CUpti_ActivityKernel10;
#else
using KernelActivity = CUpti_ActivityKernel9;
#endif

LaunchShape launch_shape(const KernelActivity& k) {
  LaunchShape l;
  l.grid[0] = k.gridX;
  l.grid[1] = k.gridY;
  l.grid[2] = k.gridZ;
  l.block[0] = k.blockX;
  l.block[1] = k.blockY;
  l.block[2] = k.blockZ;
  l.registers_per_thread = k.registersPerThread;
  l.static_shared = k.staticSharedMemory;
  l.dynamic_shared = k.dynamicSharedMemory;
  l.shared_config = k.sharedMemoryExecuted;
  l.device = k.deviceId;
  return l;
}

// Record::kind of a copy, by CUPTI's copy kind.
std::string copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "memcpy PtoP";
    default:
      return "memcpy";  // to and from CUDA arrays
  }
}

// A copy or memset as a KernelRecord, its name in brackets as Nsight Systems shows them.
KernelRecord copy_record(std::uint32_t correlation, RegionId region, std::uint64_t start,
                         std::uint64_t end, std::uint32_t stream, std::string kind,
                         std::uint64_t bytes) {
  KernelRecord r;
  r.correlation = correlation;
  r.region = region;
  r.start_ns = start;
  r.end_ns = end;
  r.name = "[" + kind + "]";
  r.stream = stream;
  r.kind = std::move(kind);
  r.bytes = static_cast<std::int64_t>(bytes);
  return r;
}

std::mutex g_sink_mutex;
ActivitySink* g_sink = nullptr;  // guarded by g_sink_mutex

}  // namespace

struct ActivityCallbacks {
  static void CUPTIAPI requested(std::uint8_t** buffer, std::size_t* size,
                                 std::size_t* max_records) {
    *buffer = buffer_pool().take();
    *size = *buffer != nullptr ? kBufferBytes : 0;  // no buffer: CUPTI drops and counts
    *max_records = 0;                               // as many as fit
  }

  static void CUPTIAPI completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                                 std::size_t /*size*/, std::size_t valid_bytes) {
    // Asked before taking g_sink_mutex: a CUPTI call made while holding it could wait on a
    // CUPTI lock that the thread flushing (and waiting for g_sink_mutex) holds.
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) != CUPTI_SUCCESS) {
      dropped = 0;
    }
    {
      std::lock_guard<std::mutex> lock(g_sink_mutex);
      if (g_sink != nullptr) {
        std::size_t lost = 0;
        try {
          g_sink->consume(buffer, valid_bytes);
        } catch (...) {
          lost = 1;  // out of memory while copying: records were lost, never silently
        }
        if (dropped + lost > 0) {
          std::lock_guard<std::mutex> records_lock(g_sink->mutex_);
          g_sink->dropped_ += dropped + lost;
        }
      }
    }
    buffer_pool().give_back(buffer, valid_bytes);
  }
};

void ActivitySink::attach() {
  static std::atomic<bool> registered_before{false};
  // The buffers come zeroed (BufferPool); a CUPTI without the attribute zeroes them itself.
  std::uint8_t zeroed = 1;
  std::size_t size = sizeof zeroed;
  (void)cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
  CUptiResult result =
      cuptiActivityRegisterCallbacks(&ActivityCallbacks::requested, &ActivityCallbacks::completed);
  // A CUPTI that refuses to register the same callbacks a second time still holds ours.
  if (!registered_before || result == CUPTI_SUCCESS) {
    check_cupti(result, "cuptiActivityRegisterCallbacks");
  }
  registered_before = true;
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = this;
}

void ActivitySink::detach() noexcept {
  // The attribute is the process's: another activity client after kprof (torch.profiler) gets
  // the buffers CUPTI zeroes for it.
  std::uint8_t zeroed = 0;
  std::size_t size = sizeof zeroed;
  (void)cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  if (g_sink == this) g_sink = nullptr;
}

void ActivitySink::consume(std::uint8_t* buffer, std::size_t valid_bytes) {
  std::vector<KernelRecord> fresh;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY || record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      consume_copy(*record, fresh);
      continue;
    }
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
      continue;
    }
    const auto* kernel = reinterpret_cast<const KernelActivity*>(record);
    RegionId region = correlations_.find(kernel->correlationId);
    if (region == kNoRegion) continue;  // launched outside every region: not measured
    // kprof's own L2 flush, launched inside the measured launch's callback: it carries that
    // launch's correlation id.
    if (kernel->name != nullptr && std::strcmp(kernel->name, kL2FlushKernelName) == 0) continue;
    fresh.push_back(KernelRecord{kernel->correlationId, region, kernel->start, kernel->end,
                                 kernel->name != nullptr ? kernel->name : "", launch_shape(*kernel),
                                 kernel->streamId});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  records_.insert(records_.end(), std::make_move_iterator(fresh.begin()),
                  std::make_move_iterator(fresh.end()));
}

// The memcpy record CUPTI fills is its newest (Memcpy6 from 12.9 on); the fields kprof reads sit
// where Memcpy5, the newest of CUPTI 12.6, has them, so a CUDA 12 build reads the older layout.
#if CUPTI_API_VERSION >= 130000
using CopyActivity = CUpti_ActivityMemcpy6;
#define KPROF_SAME_OFFSET(field)                                                         \
  static_assert(offsetof(CUpti_ActivityMemcpy5, field) == offsetof(CopyActivity, field), \
                "memcpy record layout: " #field)
KPROF_SAME_OFFSET(copyKind);
KPROF_SAME_OFFSET(bytes);
KPROF_SAME_OFFSET(start);
KPROF_SAME_OFFSET(end);
KPROF_SAME_OFFSET(streamId);
KPROF_SAME_OFFSET(correlationId);
#undef KPROF_SAME_OFFSET
#else
using CopyActivity = CUpti_ActivityMemcpy5;
#endif

// A copy's correlationId is its driver call's, the one kprof attributed. Memset4 is the memset
// record of CUPTI 12.6 to 13.
void ActivitySink::consume_copy(const CUpti_Activity& record, std::vector<KernelRecord>& out) {
  if (record.kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
    const auto& c = reinterpret_cast<const CopyActivity&>(record);
    const RegionId region = correlations_.find(c.correlationId);
    if (region == kNoRegion) return;
    out.push_back(copy_record(c.correlationId, region, c.start, c.end, c.streamId,
                              copy_kind(c.copyKind), c.bytes));
    return;
  }
  const auto& m = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
  const RegionId region = correlations_.find(m.correlationId);
  if (region == kNoRegion) return;
  out.push_back(
      copy_record(m.correlationId, region, m.start, m.end, m.streamId, "memset", m.bytes));
}

std::vector<KernelRecord> ActivitySink::take() {
  // g_sink_mutex first: a buffer that CUPTI's thread is still copying lands in this take.
  std::lock_guard<std::mutex> sink_lock(g_sink_mutex);
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(records_, {});
}

std::uint64_t ActivitySink::take_dropped() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(dropped_, 0);
}

}  // namespace kprof::detail
