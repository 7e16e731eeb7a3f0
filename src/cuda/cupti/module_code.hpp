// The code of the CUDA modules loaded since watch_module_loads() (core/measure/gpu_layer.hpp):
// each cubin kept under its CRC, the name CUPTI's SASS and PC-sampling records give it, for
// the instruction at a PC (its nvdisasm disassembly) and the source line it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/metrics/sass_opcodes.hpp"

namespace kprof::detail {

// A PC's place in the source, from the cubin's line table: CUDA C++ built with -lineinfo (or
// -G) and Triton's kernels have one; libraries built without (cuBLAS, PyTorch's kernels) do
// not, and line is 0 there.
struct SourceLine {
  std::string file;  // as the compiler recorded it: a path, or a name relative to `dir`
  std::string dir;
  std::uint32_t line = 0;
};

class ModuleCode {
 public:
  // The 32 bits of CRC that CUPTI's records carry: the low half of cuptiGetCubinCrc's.
  using Crc = std::uint32_t;

  // Keeps a copy of a module's cubin (CUPTI_CBID_RESOURCE_MODULE_LOADED's) for the process's
  // life; a module loaded again is the same cubin. Thread-safe: modules load on any thread.
  // The copies (and what is made of them) are never freed: a caller keeps only the cubins
  // whose kernels it will look into. Throws CudaError when CUPTI cannot name the cubin.
  static void keep(const void* cubin, std::size_t size);

  // The cubin's disassembly (nvdisasm, run once per cubin); null for a cubin not kept. Throws
  // as disassemble() does.
  static const Disassembly* disassembly(Crc crc);

  // The source line of `function`'s instruction at `pc_offset` (cuptiGetSassToSourceCorrelation);
  // empty for a cubin not kept or without line information.
  static SourceLine source_line(Crc crc, const std::string& function, std::uint64_t pc_offset);
};

}  // namespace kprof::detail
