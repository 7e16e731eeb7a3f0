// A sweep shared among the processes of a job, one per GPU, from C++: each rank takes every
// world_size-th size, profiles it on the GPU of its local rank and saves its results under a
// name of its own; `kprof merge OUT/scale*.json --out all.json` then joins them, each row with
// its Rank, Host and Device.
//
//   mpirun -np 4 ./ranks OUT        (or srun, or torchrun --no-python; alone: rank 0 of 1)
#include <filesystem>
#include <iostream>
#include <kprof/demo.hpp>
#include <kprof/kprof.hpp>
#include <string>
#include <vector>

int main(int argc, char** argv) try {
  const std::string out = argc > 1 ? argv[1] : ".";
  const kprof::RankInfo me = kprof::rank_info();
  const int gpus = static_cast<int>(kprof::query_system().devices.size());
  kprof::use_device(gpus > 0 ? me.local_rank % gpus : 0);  // before any other CUDA work

  std::vector<kprof::Value> mine;  // this rank's share: every world_size-th size
  const std::vector<std::int64_t> sizes{1 << 20, 1 << 22, 1 << 24, 1 << 26};
  for (std::size_t i = static_cast<std::size_t>(me.rank); i < sizes.size();
       i += static_cast<std::size_t>(me.world_size))
    mine.emplace_back(sizes[i]);
  if (mine.empty()) return 0;  // more ranks than sizes

  kprof::demo::Kernels kernels(std::size_t{1} << 26);
  kprof::Options options;
  options.runs = 10;
  kprof::Sweep sweep = kprof::Sweep().axis("n", mine);
  kprof::Results results = kprof::profile(options, sweep, [&](const kprof::Config& config) {
    kprof::Annotation region("scale");
    kernels.scale(config.get_int("n"));
  });
  std::filesystem::create_directories(out);
  const std::string path = out + "/" + results.file_tag("scale") + ".json";  // scale-rank2.json
  results.write_json(path);
  std::cout << results.table() << "wrote " << path << "\n";
} catch (const kprof::Error& e) {
  std::cerr << "ranks: " << e.what() << "\n";
  return 1;
}
