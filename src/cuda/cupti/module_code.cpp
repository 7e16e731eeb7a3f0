#include "cuda/cupti/module_code.hpp"

#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda/cupti/cupti_check.hpp"

namespace kprof::detail {
namespace {

// Never destroyed, so that a module-load callback during the process's exit finds it.
struct Store {
  std::mutex mutex;
  std::map<ModuleCode::Crc, std::vector<std::uint8_t>> cubins;
  std::map<ModuleCode::Crc, Disassembly> disassemblies;
};
Store& store() {
  static Store& s = *new Store;
  return s;
}

// The cubin's bytes, null when not kept. A kept cubin is never changed or freed and the map's
// nodes stay where they are, so the bytes can be read outside the lock (a PC at a time).
const std::vector<std::uint8_t>* kept(ModuleCode::Crc crc) {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  const auto found = s.cubins.find(crc);
  return found == s.cubins.end() ? nullptr : &found->second;
}

}  // namespace

void ModuleCode::keep(const void* cubin, std::size_t size) {
  if (cubin == nullptr || size == 0) return;
  CUpti_GetCubinCrcParams p{};
  p.size = CUpti_GetCubinCrcParamsSize;
  p.cubin = cubin;
  p.cubinSize = size;
  check_cupti(cuptiGetCubinCrc(&p), "cuptiGetCubinCrc");
  const auto* bytes = static_cast<const std::uint8_t*>(cubin);
  Store& s = store();
  std::lock_guard lock(s.mutex);
  s.cubins.try_emplace(static_cast<Crc>(p.cubinCrc), bytes, bytes + size);
}

const Disassembly* ModuleCode::disassembly(Crc crc) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    if (auto done = s.disassemblies.find(crc); done != s.disassemblies.end()) return &done->second;
  }
  const std::vector<std::uint8_t>* cubin = kept(crc);
  if (cubin == nullptr) return nullptr;
  // nvdisasm takes milliseconds to seconds: module loads (keep) do not wait for it.
  Disassembly parsed = parse_disassembly(disassemble(cubin->data(), cubin->size()));
  std::lock_guard lock(s.mutex);
  return &s.disassemblies.try_emplace(crc, std::move(parsed)).first->second;
}

SourceLine ModuleCode::source_line(Crc crc, const std::string& function, std::uint64_t pc_offset) {
  const std::vector<std::uint8_t>* cubin = kept(crc);
  if (cubin == nullptr) return {};
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = CUpti_GetSassToSourceCorrelationParamsSize;
  p.cubin = cubin->data();
  p.cubinSize = cubin->size();
  p.functionName = function.c_str();
  p.pcOffset = pc_offset;
  // Fails where the cubin has no line table: the PC then has no line, which is not an error.
  const CUptiResult result = cuptiGetSassToSourceCorrelation(&p);
  SourceLine out;
  if (result == CUPTI_SUCCESS) {
    out.line = p.lineNumber;
    if (p.fileName != nullptr) out.file = p.fileName;
    if (p.dirName != nullptr) out.dir = p.dirName;
  }
  std::free(p.fileName);  // CUPTI's allocations, the caller's to free
  std::free(p.dirName);
  return out;
}

}  // namespace kprof::detail
