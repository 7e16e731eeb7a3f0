#include "kprof/rank.hpp"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kprof/errors.hpp"

namespace kprof {
namespace detail {
namespace {

// A launcher's variables: rank, world size, local rank, local world size. The first launcher
// whose rank variable is set wins; torchrun first, as it can run under srun or mpirun.
struct Launcher {
  const char* name;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};

constexpr Launcher kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
    {"mpirun (Open MPI)", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"mpirun (MPICH)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
};

// The variable's number, `fallback` when it is not set.
int number(const std::function<const char*(const char*)>& env, const char* name, int fallback) {
  const char* value = env(name);
  if (value == nullptr) return fallback;
  const std::string_view text(value);
  int n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  // SLURM_NTASKS_PER_NODE may read "4(x2)": its leading number is the one meant.
  if (error != std::errc() || n < 0 || (end != text.data() + text.size() && *end != '('))
    throw Error(std::string("the launcher's environment variable ") + name + "='" + value +
                "' is not a number of processes or a rank");
  return n;
}

}  // namespace

RankInfo rank_info_from(const std::function<const char*(const char*)>& env) {
  for (const Launcher& l : kLaunchers) {
    if (env(l.rank) == nullptr) continue;
    RankInfo r;
    r.launcher = l.name;
    r.rank = number(env, l.rank, 0);
    r.world_size = number(env, l.size, r.rank + 1);
    r.local_rank = number(env, l.local_rank, 0);
    r.local_world_size = number(env, l.local_size, r.local_rank + 1);
    return r;
  }
  return {};
}

}  // namespace detail

RankInfo rank_info() {
  return detail::rank_info_from([](const char* name) { return std::getenv(name); });
}

std::string rank_file_tag(const std::string& base, int rank, int world_size) {
  return world_size <= 1 ? base : base + "-rank" + std::to_string(rank);
}

}  // namespace kprof
