#include "core/metrics/sass_opcodes.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "core/results/csv.hpp"
#include "kprof/errors.hpp"

extern char** environ;

namespace kprof::detail {
namespace {

std::string_view trim(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

// The function a line starts the code of: `.section .text.<name>,"ax",...` or the section's
// label `.text.<name>:`; "" for a section of data, which holds no instruction; nullopt when
// the line starts no section.
std::optional<std::string> section_start(std::string_view line) {
  if (line.starts_with(".section")) {
    std::string_view name = trim(line.substr(8));
    name = name.substr(0, name.find(','));
    if (!name.starts_with(".text.")) return std::string();
    return std::string(name.substr(6));
  }
  if (line.starts_with(".text.") && line.back() == ':')
    return std::string(line.substr(6, line.size() - 7));
  return std::nullopt;
}

struct Instruction {
  std::uint32_t offset = 0;
  std::string opcode;
};

// `/*0070*/  @!P0 FFMA.FTZ R5, R2, R3, R4 ;` -> {0x70, "FFMA"}. A Maxwell-style dual-issue
// pair opens with `{` before its first instruction; directives (`.byte`) are no instruction.
std::optional<Instruction> instruction(std::string_view line) {
  if (!line.starts_with("/*")) return std::nullopt;
  const auto close = line.find("*/");
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  Instruction ins;
  const auto [end, error] = std::from_chars(line.data() + 2, line.data() + close, ins.offset, 16);
  if (error != std::errc() || end != line.data() + close) return std::nullopt;  // `/* 0x.. */`
  std::string_view rest = trim(line.substr(close + 2));
  if (rest.starts_with("{")) rest = trim(rest.substr(1));
  if (rest.starts_with("@")) rest = trim(rest.substr(std::min(rest.find(' '), rest.size())));
  const std::string_view mnemonic = rest.substr(0, rest.find_first_of(" \t;}"));
  if (mnemonic.empty() || mnemonic[0] < 'A' || mnemonic[0] > 'Z') return std::nullopt;
  ins.opcode = std::string(mnemonic.substr(0, mnemonic.find('.')));
  return ins;
}

struct ClassName {
  FlopClass c;
  std::string_view opcode;
};

// Hopper's FP32/FP64/FP16 arithmetic as Nsight Compute classes it (the CUDA Binary Utilities'
// instruction set reference); the compare, min/max, select and conversion forms count no FLOP.
constexpr ClassName kOpcodes[] = {
    {FlopClass::ffma, "FFMA"},    {FlopClass::ffma, "FFMA32I"}, {FlopClass::fadd, "FADD"},
    {FlopClass::fadd, "FADD32I"}, {FlopClass::fmul, "FMUL"},    {FlopClass::fmul, "FMUL32I"},
    {FlopClass::dfma, "DFMA"},    {FlopClass::dadd, "DADD"},    {FlopClass::dmul, "DMUL"},
    {FlopClass::hfma, "HFMA2"},   {FlopClass::hadd, "HADD2"},   {FlopClass::hmul, "HMUL2"},
};

constexpr std::string_view kMetrics[kFlopClasses] = {
    "",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
};

bool is_executable(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string on_path(const char* path_variable, const std::string& name) {
  if (path_variable == nullptr) return {};
  std::string_view dirs(path_variable);
  while (!dirs.empty()) {
    const std::string_view dir = dirs.substr(0, dirs.find(':'));
    dirs.remove_prefix(std::min(dir.size() + 1, dirs.size()));
    const std::string candidate = std::string(dir.empty() ? "." : dir) + "/" + name;
    if (is_executable(candidate)) return candidate;
  }
  return {};
}

const char* const kHowToGet =
    "Install it with `pip install nvidia-cuda-nvdisasm` (as site-packages/nvidia/cu13/bin/"
    "nvdisasm) or with a CUDA toolkit, and set KPROF_NVDISASM to its path.";

// A private folder under $TMPDIR (or /tmp) for the cubin and nvdisasm's output; removed with
// what was written in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/kprof-sass-XXXXXX";
    if (mkdtemp(path_.data()) == nullptr)
      throw Error("cannot create a temporary folder for nvdisasm in " + path_ + ": " +
                  std::strerror(errno));
  }
  ~TempDir() {
    for (const auto& file : files_) std::remove(file.c_str());
    rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The path of `name` in the folder, removed with it.
  std::string file(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

void write_binary(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) throw Error("cannot write the cubin for nvdisasm to " + path);
}

// Runs `argv` without a shell, its output and errors into files; returns its wait status.
int run_to_files(const std::vector<std::string>& argv, const std::string& out,
                 const std::string& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw UnsupportedError("cannot run nvdisasm (" + argv[0] + "): " + std::strerror(spawned) +
                           ". " + kHowToGet);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("waitpid for nvdisasm: ") + std::strerror(errno));
  }
  return status;
}

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

// The opcode CUPTI's PC holds; MeasurementError when the disassembly has none there.
const std::string& opcode_at(const Disassembly* disassembly, const PcCount& pc) {
  if (disassembly == nullptr)
    throw MeasurementError(
        "set:flop cannot count " + pc.function + ": the code of its module (cubin CRC " +
        hex(pc.cubin_crc) +
        ") was not kept, since the module loaded before kprof began keeping modules' code. "
        "kprof keeps it from the moment a decorator asking for set:flop is made (in C++, "
        "kprof::prepare_profile or the profile's start): make it before the program's first "
        "CUDA work");
  const auto function = disassembly->find(pc.function);
  if (function == disassembly->end())
    throw MeasurementError("the disassembly of cubin " + hex(pc.cubin_crc) + " has no function " +
                           pc.function + ", which CUPTI counted");
  const auto opcode = function->second.find(pc.pc_offset);
  if (opcode == function->second.end())
    throw MeasurementError("the disassembly of " + pc.function + " has no instruction at " +
                           hex(pc.pc_offset) + ", which CUPTI counted");
  return opcode->second;
}

}  // namespace

Disassembly parse_disassembly(std::string_view nvdisasm_text) {
  Disassembly result;
  std::string function;  // "" outside a code section
  while (!nvdisasm_text.empty()) {
    const auto eol = nvdisasm_text.find('\n');
    const std::string_view line = trim(nvdisasm_text.substr(0, eol));
    nvdisasm_text.remove_prefix(eol == std::string_view::npos ? nvdisasm_text.size() : eol + 1);
    if (line.empty()) continue;
    if (auto section = section_start(line)) {
      function = std::move(*section);
    } else if (auto ins = instruction(line); ins && !function.empty()) {
      result[function][ins->offset] = std::move(ins->opcode);
    }
  }
  return result;
}

FlopClass flop_class(std::string_view opcode) {
  for (const auto& [c, name] : kOpcodes)
    if (name == opcode) return c;
  return FlopClass::none;
}

std::string_view flop_metric(FlopClass c) { return kMetrics[static_cast<std::size_t>(c)]; }

FlopClass flop_class_counted_by(std::string_view metric) {
  for (std::size_t c = 1; c < kFlopClasses; ++c)  // every class but none
    if (kMetrics[c] == metric) return static_cast<FlopClass>(c);
  return FlopClass::none;
}

std::string flop_peak_metric(FlopClass c) {
  const std::string_view count = flop_metric(c);
  if (count.empty()) return "";
  // smsp__..._pred_on.sum -> sm__..._pred_on.sum.peak_sustained_elapsed.per_second
  return "sm__" + std::string(count.substr(std::string_view("smsp__").size())) +
         ".peak_sustained_elapsed.per_second";
}

bool is_instrumented_sass_counter(std::string_view metric) {
  if (metric.find("peak_sustained") != std::string_view::npos) return false;
  const std::string_view base = metric.substr(0, metric.find('.'));
  return base.starts_with("sm__sass_thread_inst_executed_op") ||
         base.starts_with("smsp__sass_thread_inst_executed_op");
}

std::string find_nvdisasm() {
  if (const char* chosen = std::getenv("KPROF_NVDISASM"); chosen != nullptr && *chosen != '\0')
    return chosen;
  if (std::string found = on_path(std::getenv("PATH"), "nvdisasm"); !found.empty()) return found;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    const std::string candidate = std::string(home) + "/bin/nvdisasm";
    if (is_executable(candidate)) return candidate;
  }
  const std::string fallback = "/usr/local/cuda/bin/nvdisasm";
  return is_executable(fallback) ? fallback : std::string();
}

std::string nvdisasm_not_found() {
  return "nvdisasm was not found (KPROF_NVDISASM, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): "
         "counting FP32/FP64/FP16 FLOP needs it for the opcode at each PC. " +
         std::string(kHowToGet);
}

std::string disassemble(const void* cubin, std::size_t size) {
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) throw UnsupportedError(nvdisasm_not_found());
  TempDir dir;
  const std::string input = dir.file("module.cubin");
  const std::string out = dir.file("out.txt");
  const std::string err = dir.file("err.txt");
  write_binary(input, cubin, size);
  const int status = run_to_files({nvdisasm, "-c", input}, out, err);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string exit = WIFEXITED(status)
                                 ? "exit status " + std::to_string(WEXITSTATUS(status))
                                 : "killed by signal " + std::to_string(WTERMSIG(status));
    throw UnsupportedError(nvdisasm + " -c failed on a cubin (" + exit +
                           "): " + std::string(trim(read_text_file(err))) +
                           ". An nvdisasm older than the GPU cannot read its cubins. " + kHowToGet);
  }
  return read_text_file(out);
}

std::map<std::string, FlopCounts> flop_counts(
    const std::vector<PcCount>& pcs,
    const std::function<const Disassembly*(std::uint32_t cubin_crc)>& disassembly_of) {
  std::map<std::string, FlopCounts> result;
  for (const PcCount& pc : pcs) {
    const std::string& opcode = opcode_at(disassembly_of(pc.cubin_crc), pc);
    FlopCounts& counts = result.try_emplace(pc.function, FlopCounts{}).first->second;
    counts[static_cast<std::size_t>(flop_class(opcode))] += static_cast<double>(pc.count);
  }
  return result;
}

}  // namespace kprof::detail
