// The opcode of each PC from nvdisasm's text, Nsight Compute's FP32/FP64/FP16 instruction
// classes and their metric names, and nvdisasm found and run (a stand-in script here): the
// GPU-free half of counting FLOP from CUPTI's per-PC SASS counts
// (src/core/metrics/sass_opcodes.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics/sass_opcodes.hpp"
#include "core/results/csv.hpp"
#include "kprof/errors.hpp"

using namespace kprof;
using namespace kprof::detail;

namespace {

// nvdisasm -c of tests/data/nvdisasm-sm90-flop-kernels.txt's kernels, for sm_90 (its header
// says how it was made).
Disassembly real_sm90() {
  return parse_disassembly(
      read_text_file(std::string(KPROF_TEST_DATA) + "/nvdisasm-sm90-flop-kernels.txt"));
}

const char* const kFfma = "_Z11ffma_kernelPfffi";
const char* const kDfma = "_Z11dfma_kernelPdddi";
const char* const kHalf = "_Z11half_kernelP7__half2S_S_i";
const char* const kCall = "_Z11call_kernelPff";

// Sets an environment variable for a scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A folder of its own with a name a shell would split and unquote: nvdisasm runs without one.
class ScriptDir {
 public:
  ScriptDir() {
    path_ = ::testing::TempDir() + "kprof sass 'dir' $x-XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  }
  ~ScriptDir() {
    for (const auto& f : files_) std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  // An executable shell script `name` in the folder.
  std::string script(const std::string& name, const std::string& body) {
    files_.push_back(path_ + "/" + name);
    std::ofstream(files_.back()) << "#!/bin/sh\n" << body << "\n";
    chmod(files_.back().c_str(), 0755);
    return files_.back();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

}  // namespace

TEST(SassOpcodes, ParsesInstructionsOfCodeSectionsOnly) {
  const Disassembly d = parse_disassembly(R"(	.target	sm_90
//--------------------- .text._Z1kPf --------------------------
	.section	.text._Z1kPf,"ax",@progbits
_Z1kPf:
.text._Z1kPf:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_1:
        /*0070*/              @!P0 FFMA.FTZ R5, R2, R3, R4 ;
        /*0080*/                   HFMA2.MMA R0, -RZ, RZ, 0, 0 ;   /* 0x000fe200000001ff */
                                                                  /* 0x000fe20000000f00 */
        /*0090*/                   {         FADD R0, R0, R2 ;
        /*00a0*/                             S2R R3, SR_CTAID.X        }
        /*00b0*/               @PT DMUL R2, R2, R4 ;
	.section	.nv.info._Z1kPf,"",@"SHT_CUDA_INFO"
        /*0044*/ 	.byte	0x04, 0x28, 0x00, 0x00
)");
  ASSERT_EQ(d.size(), 1u);
  const auto& k = d.at("_Z1kPf");
  const std::map<std::uint32_t, std::string> expected = {{0x00, "LDC"},   {0x70, "FFMA"},
                                                         {0x80, "HFMA2"}, {0x90, "FADD"},
                                                         {0xa0, "S2R"},   {0xb0, "DMUL"}};
  EXPECT_EQ(k, expected);
}

TEST(SassOpcodes, EmptyOrForeignTextHasNoFunction) {
  EXPECT_TRUE(parse_disassembly("").empty());
  EXPECT_TRUE(parse_disassembly("nvdisasm fatal   : Cannot open object file x\n").empty());
  // An instruction outside any code section belongs to no function.
  EXPECT_TRUE(parse_disassembly("        /*0000*/  FFMA R0, R0, R1, R2 ;").empty());
}

TEST(SassOpcodes, ParsesRealSm90Disassembly) {
  const Disassembly d = real_sm90();
  ASSERT_EQ(d.size(), 4u);
  const auto& ffma = d.at(kFfma);
  EXPECT_EQ(ffma.size(), 24u);  // /*0000*/ .. /*0170*/, labels not counted
  EXPECT_EQ(ffma.at(0xd0), "FFMA");
  EXPECT_EQ(ffma.at(0x100), "FMUL");  // @P0 FMUL
  EXPECT_EQ(ffma.at(0x120), "FADD");  // @!P0 FADD
  EXPECT_EQ(ffma.at(0x60), "I2FP");   // I2FP.F32.U32
  EXPECT_EQ(ffma.at(0x90), "BRA");    // @!P1 BRA
  const auto& dfma = d.at(kDfma);
  EXPECT_EQ(dfma.at(0xc0), "DFMA");
  EXPECT_EQ(dfma.at(0x110), "DADD");
  EXPECT_EQ(dfma.at(0x130), "DMUL");
  const auto& half = d.at(kHalf);
  EXPECT_EQ(half.at(0xd0), "HFMA2");  // HFMA2.MMA
  EXPECT_EQ(half.at(0x100), "HADD2");
  EXPECT_EQ(half.at(0x110), "HMUL2");
  // The __noinline__ helper follows its caller in the caller's section, at offsets that go on.
  const auto& call = d.at(kCall);
  EXPECT_EQ(call.at(0x70), "CALL");
  EXPECT_EQ(call.at(0xc0), "FFMA");
  EXPECT_EQ(call.at(0xd0), "RET");
}

TEST(SassOpcodes, FlopClassesAreNsightComputes) {
  const std::vector<std::pair<const char*, FlopClass>> cases = {
      {"FFMA", FlopClass::ffma},    {"FFMA32I", FlopClass::ffma}, {"FADD", FlopClass::fadd},
      {"FADD32I", FlopClass::fadd}, {"FMUL", FlopClass::fmul},    {"FMUL32I", FlopClass::fmul},
      {"DFMA", FlopClass::dfma},    {"DADD", FlopClass::dadd},    {"DMUL", FlopClass::dmul},
      {"HFMA2", FlopClass::hfma},   {"HADD2", FlopClass::hadd},   {"HMUL2", FlopClass::hmul},
  };
  for (const auto& [opcode, c] : cases) EXPECT_EQ(flop_class(opcode), c) << opcode;
  // Compares, min/max, selects, conversions, the tensor cores and the rest count no FLOP.
  for (const char* opcode : {"FSWZADD", "FCHK",   "FSETP", "FSET", "FMNMX", "FSEL",     "DSETP",
                             "HSETP2",  "HMNMX2", "MUFU",  "F2F",  "I2FP",  "HMMA",     "HGMMA",
                             "DMMA",    "IMAD",   "IADD3", "FRND", "ffma",  "FFMA.FTZ", ""})
    EXPECT_EQ(flop_class(opcode), FlopClass::none) << opcode;
}

TEST(SassOpcodes, MetricNamesAreNsightComputes) {
  EXPECT_EQ(flop_metric(FlopClass::ffma), "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
  EXPECT_EQ(flop_metric(FlopClass::hmul), "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum");
  EXPECT_EQ(flop_metric(FlopClass::none), "");
  const char* classes[] = {"ffma", "fadd", "fmul", "dfma", "dadd", "dmul", "hfma", "hadd", "hmul"};
  for (std::size_t i = 0; i < std::size(classes); ++i) {
    const std::string name =
        std::string("smsp__sass_thread_inst_executed_op_") + classes[i] + "_pred_on.sum";
    EXPECT_EQ(flop_metric(static_cast<FlopClass>(i + 1)), name);
    EXPECT_TRUE(is_instrumented_sass_counter(name)) << name;
  }
}

TEST(SassOpcodes, InstrumentedCountersAreTheOpcodeClassesOfEitherUnitButNotTheirPeaks) {
  for (const char* m : {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                        "sm__sass_thread_inst_executed_op_fp32_pred_on.sum.per_second",
                        "smsp__sass_thread_inst_executed_ops_fadd_fmul_ffma_pred_on.sum",
                        "sm__sass_thread_inst_executed_op_integer_pred_on.avg"})
    EXPECT_TRUE(is_instrumented_sass_counter(m)) << m;
  for (const char* m : {"", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
                        "smsp__sass_thread_inst_executed_pred_on.sum", "smsp__inst_executed.sum",
                        "sm__ops_path_tensor_src_fp16.sum", "gpu__time_duration.sum"})
    EXPECT_FALSE(is_instrumented_sass_counter(m)) << m;
}

TEST(SassOpcodes, FlopCountsSumEachFunctionsClasses) {
  const Disassembly d = real_sm90();
  const auto of = [&d](std::uint32_t crc) { return crc == 7 ? &d : nullptr; };
  const std::vector<PcCount> pcs = {
      {7, kFfma, 0xd0, 67'584'000}, {7, kFfma, 0x100, 100}, {7, kFfma, 0x120, 28},
      {7, kFfma, 0x0, 128},         {7, kDfma, 0xc0, 1000}, {7, kDfma, 0x110, 10},
      {7, kDfma, 0x130, 10},        {7, kHalf, 0xd0, 500},  {7, kCall, 0xc0, 32},
  };
  const auto counts = flop_counts(pcs, of);
  ASSERT_EQ(counts.size(), 4u);
  const auto at = [&counts](const char* f, FlopClass c) {
    return counts.at(f)[static_cast<std::size_t>(c)];
  };
  EXPECT_EQ(at(kFfma, FlopClass::ffma), 67'584'000.0);
  EXPECT_EQ(at(kFfma, FlopClass::fmul), 100.0);
  EXPECT_EQ(at(kFfma, FlopClass::fadd), 28.0);
  EXPECT_EQ(at(kFfma, FlopClass::none), 128.0);
  EXPECT_EQ(at(kFfma, FlopClass::dfma), 0.0);
  EXPECT_EQ(at(kDfma, FlopClass::dfma), 1000.0);
  EXPECT_EQ(at(kDfma, FlopClass::dadd), 10.0);
  EXPECT_EQ(at(kDfma, FlopClass::dmul), 10.0);
  EXPECT_EQ(at(kHalf, FlopClass::hfma), 500.0);
  EXPECT_EQ(at(kCall, FlopClass::ffma), 32.0);  // the helper's FFMA, under its caller
}

TEST(SassOpcodes, FlopCountsRefuseAPcNoDisassemblyHolds) {
  const Disassembly d = real_sm90();
  const auto of = [&d](std::uint32_t crc) { return crc == 7 ? &d : nullptr; };
  EXPECT_THROW(flop_counts({{8, kFfma, 0xd0, 1}}, of), MeasurementError);    // unknown cubin
  EXPECT_THROW(flop_counts({{7, "_Z1xv", 0xd0, 1}}, of), MeasurementError);  // unknown function
  EXPECT_THROW(flop_counts({{7, kFfma, 0xd8, 1}}, of), MeasurementError);    // between PCs
  EXPECT_TRUE(flop_counts({}, of).empty());
}

TEST(SassOpcodes, FindsNvdisasmFromTheVariableThenPath) {
  ScriptDir dir;
  const std::string on_path = dir.script("nvdisasm", "exit 0");
  {
    ScopedEnv chosen("KPROF_NVDISASM", "/opt/somewhere/nvdisasm");
    EXPECT_EQ(find_nvdisasm(), "/opt/somewhere/nvdisasm");  // taken as given
  }
  ScopedEnv none("KPROF_NVDISASM", std::nullopt);
  ScopedEnv path("PATH", "/nonexistent-kprof:" + dir.path());
  EXPECT_EQ(find_nvdisasm(), on_path);
}

TEST(SassOpcodes, DisassembleRunsNvdisasmOnTheCubinWithoutAShell) {
  ScriptDir dir;
  // A stand-in that prints the cubin it was given: the argument list and the file are right.
  const std::string echo = dir.script("nvdisasm", R"([ "$1" = "-c" ] || exit 3
cat "$2")");
  ScopedEnv chosen("KPROF_NVDISASM", echo);
  const std::string cubin = std::string(
      "\x7f"
      "ELF\0binary; $(touch x) 'q'",
      26);
  EXPECT_EQ(disassemble(cubin.data(), cubin.size()), cubin);
}

TEST(SassOpcodes, DisassembleFailuresAreUnsupportedAndSayHowToGetNvdisasm) {
  ScriptDir dir;
  const std::string failing =
      dir.script("nvdisasm", "echo 'nvdisasm fatal   : unsupported arch sm_999' >&2; exit 1");
  const char cubin[] = "ELF";
  {
    ScopedEnv chosen("KPROF_NVDISASM", failing);
    try {
      disassemble(cubin, sizeof cubin);
      FAIL() << "no error";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("unsupported arch sm_999"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("pip install nvidia-cuda-nvdisasm"), std::string::npos);
    }
  }
  ScopedEnv missing("KPROF_NVDISASM", dir.path() + "/no-such-nvdisasm");
  try {
    disassemble(cubin, sizeof cubin);
    FAIL() << "no error";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("KPROF_NVDISASM"), std::string::npos);
  }
}
