// Which rank of a job this process is, as its launcher says: torchrun, mpirun (Open MPI,
// MPICH and Intel MPI's Hydra) or SLURM's srun set it in the environment of each process.
#pragma once

#include <functional>
#include <string>

namespace kprof {

struct RankInfo {
  int rank = 0;        // of the job, 0 to world_size - 1
  int world_size = 1;  // processes in the job
  int local_rank = 0;  // on this host
  int local_world_size = 1;
  // "torchrun", "mpirun (Open MPI)", "mpirun (MPICH)", "srun", or "none": a process of its own.
  std::string launcher = "none";
};

// The name part of the files a process writes: `base`, and "-rank<N>" in a job of several
// processes, so that two ranks never write one file.
std::string rank_file_tag(const std::string& base, int rank, int world_size);

// The rank of this process, from its environment. Throws Error naming the variable when a
// launcher's variable holds no number.
RankInfo rank_info();

namespace detail {
// rank_info() over `env` (a variable's value, or null when it is not set): for tests.
RankInfo rank_info_from(const std::function<const char*(const char*)>& env);
}  // namespace detail

}  // namespace kprof
