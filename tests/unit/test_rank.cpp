// The rank of a process, from what each launcher sets in its environment.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kprof/errors.hpp"
#include "kprof/rank.hpp"

using kprof::RankInfo;
using kprof::detail::rank_info_from;

namespace {

RankInfo with(const std::map<std::string, std::string>& env) {
  return rank_info_from([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST(Rank, AProcessOfItsOwnIsRankZeroOfOne) {
  const RankInfo r = with({{"HOME", "/root"}});
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.world_size, 1);
  EXPECT_EQ(r.local_rank, 0);
  EXPECT_EQ(r.launcher, "none");
}

TEST(Rank, EachLauncherIsReadFromItsOwnVariables) {
  const RankInfo torchrun =
      with({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}});
  EXPECT_EQ(torchrun.launcher, "torchrun");
  EXPECT_EQ(torchrun.rank, 5);
  EXPECT_EQ(torchrun.world_size, 8);
  EXPECT_EQ(torchrun.local_rank, 1);
  EXPECT_EQ(torchrun.local_world_size, 4);
  const RankInfo ompi = with({{"OMPI_COMM_WORLD_RANK", "3"},
                              {"OMPI_COMM_WORLD_SIZE", "4"},
                              {"OMPI_COMM_WORLD_LOCAL_RANK", "3"},
                              {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}});
  EXPECT_EQ(ompi.launcher, "mpirun (Open MPI)");
  EXPECT_EQ(ompi.rank, 3);
  EXPECT_EQ(ompi.world_size, 4);
  const RankInfo mpich = with({{"PMI_RANK", "2"}, {"PMI_SIZE", "6"}, {"MPI_LOCALRANKID", "0"}});
  EXPECT_EQ(mpich.launcher, "mpirun (MPICH)");
  EXPECT_EQ(mpich.rank, 2);
  EXPECT_EQ(mpich.world_size, 6);
  EXPECT_EQ(mpich.local_world_size, 1);  // MPI_LOCALNRANKS unset: at least local_rank + 1
  const RankInfo srun = with({{"SLURM_PROCID", "9"},
                              {"SLURM_NTASKS", "16"},
                              {"SLURM_LOCALID", "1"},
                              {"SLURM_NTASKS_PER_NODE", "2(x8)"}});
  EXPECT_EQ(srun.launcher, "srun");
  EXPECT_EQ(srun.rank, 9);
  EXPECT_EQ(srun.world_size, 16);
  EXPECT_EQ(srun.local_rank, 1);
  EXPECT_EQ(srun.local_world_size, 2);
}

// torchrun inside an srun allocation: the process is torchrun's rank, not the allocation's.
TEST(Rank, TorchrunComesBeforeTheLauncherAroundIt) {
  const RankInfo r =
      with({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"RANK", "3"}, {"WORLD_SIZE", "4"}});
  EXPECT_EQ(r.launcher, "torchrun");
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.world_size, 4);
}

TEST(Rank, AVariableWithoutANumberNamesItself) {
  try {
    with({{"RANK", "two"}, {"WORLD_SIZE", "4"}});
    FAIL() << "RANK='two' was read";
  } catch (const kprof::Error& e) {
    EXPECT_STREQ(e.what(),
                 "the launcher's environment variable RANK='two' is not a number of processes or "
                 "a rank");
  }
}
