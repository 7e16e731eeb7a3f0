// The opcode at each PC of a cubin, from nvdisasm, and Nsight Compute's FP32/FP64/FP16
// instruction classes: what turns CUPTI's per-PC SASS instruction counts into the FLOP counts
// of the roofline (docs/validation.md, "FP32/FP64/FP16 FLOP outside the tensor cores").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::detail {

// function (mangled, as nvdisasm's `.text.<name>` section names it) -> PC offset -> opcode.
using Disassembly = std::map<std::string, std::map<std::uint32_t, std::string>>;

// The opcodes of `nvdisasm -c` output: each instruction's base mnemonic (`@!P0 FFMA.FTZ R5, ...`
// -> "FFMA", `HFMA2.MMA` -> "HFMA2"), at the offset of its `/*0070*/` comment, under the code
// section it is in. A subroutine (a `__noinline__` function) sits in its caller's section, at
// offsets that go on from the caller's: it is listed under the caller. Lines that hold no
// instruction (labels, directives, data) are skipped.
Disassembly parse_disassembly(std::string_view nvdisasm_text);

// Nsight Compute's instruction classes of the FP32, FP64 and FP16 pipes
// (smsp__sass_thread_inst_executed_op_<class>_pred_on).
enum class FlopClass { none, ffma, fadd, fmul, dfma, dadd, dmul, hfma, hadd, hmul };
inline constexpr std::size_t kFlopClasses = 10;  // including none
static_assert(static_cast<std::size_t>(FlopClass::hmul) + 1 == kFlopClasses);

// The class of a base mnemonic (parse_disassembly's): FFMA/FFMA32I -> ffma, HFMA2 -> hfma...;
// none for every other, such as FSWZADD, FCHK, FSETP or the tensor cores' HMMA.
FlopClass flop_class(std::string_view opcode);

// "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"...; empty for FlopClass::none.
std::string_view flop_metric(FlopClass c);
// The class whose count flop_metric() names `metric`; none for every other name.
FlopClass flop_class_counted_by(std::string_view metric);
// The class's sustained peak in thread instructions per second, as the roofline's peak reads it:
// "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained_elapsed.per_second"...;
// empty for FlopClass::none.
std::string flop_peak_metric(FlopClass c);
// Whether `metric` counts thread instructions by opcode class
// ({sm,smsp}__sass_thread_inst_executed_op[s]_..., flop_metric's among them) under any rollup
// but its peaks: counts that Nsight Compute takes by instrumenting the kernel's code and that
// CUPTI's range profiler lists and reads as 0 (the FP32/FP64/FP16 classes on the H200); their
// peak_sustained submetrics are the hardware's and do read.
bool is_instrumented_sass_counter(std::string_view metric);

// nvdisasm's path: $KPROF_NVDISASM when set (taken as given), else the first `nvdisasm` on
// PATH, else $CUDA_HOME/bin/nvdisasm, else /usr/local/cuda/bin/nvdisasm; empty when none is.
std::string find_nvdisasm();
// What to say when find_nvdisasm() finds none: where it looked and how to get one.
std::string nvdisasm_not_found();

// `nvdisasm -c` of a cubin (written to a temporary file for it): its standard output.
// Throws UnsupportedError when no nvdisasm is found, or it fails on the cubin (one too old for
// the cubin's architecture, say), naming how to get one.
std::string disassemble(const void* cubin, std::size_t size);

// CUPTI's count of one SASS instruction: the thread instructions executed with their predicate
// on (smsp__sass_thread_inst_executed_pred_on) at one PC of a function of a cubin.
struct PcCount {
  std::uint32_t cubin_crc = 0;
  std::string function;
  std::uint32_t pc_offset = 0;
  std::uint64_t count = 0;
};

// Per FlopClass (indexed by its value), thread instructions executed: what Nsight Compute's
// smsp__sass_thread_inst_executed_op_<class>_pred_on.sum reads.
using FlopCounts = std::array<double, kFlopClasses>;
// Adds `counts` to `sum`, class by class.
inline void add_counts(FlopCounts& sum, const FlopCounts& counts) {
  for (std::size_t c = 0; c < kFlopClasses; ++c) sum[c] += counts[c];
}

// The counts of `pcs` summed per function and FlopClass, the opcode of each PC looked up in
// `disassembly_of(cubin_crc)` (null: a cubin not known). Throws MeasurementError when a PC is
// in no disassembly (its cubin unknown, or CUPTI and nvdisasm disagree on the function or the
// offset): a count left out would read as no FLOP.
std::map<std::string, FlopCounts> flop_counts(
    const std::vector<PcCount>& pcs,
    const std::function<const Disassembly*(std::uint32_t cubin_crc)>& disassembly_of);

}  // namespace kprof::detail
