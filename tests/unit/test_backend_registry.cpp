// Every replay mode has the backend its source file registered, in a build with the GPU
// backend; a build without it has none and says so. Making a backend touches no GPU.
#include <gtest/gtest.h>

#include <memory>

#include "core/backend_registry.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"

using namespace kprof;

TEST(BackendRegistry, EveryReplayModeHasItsBackendInABuildWithCuda) {
  for (ReplayMode mode : {ReplayMode::kernel, ReplayMode::range, ReplayMode::application}) {
    Options o;
    o.replay_mode = mode;
    o.metrics = {"dram__bytes_read.sum"};
    if (query_system().built_with_cuda) {
      EXPECT_NE(detail::make_registered_backend(o), nullptr) << to_string(mode);
    } else {
      EXPECT_THROW(detail::make_registered_backend(o), UnsupportedError) << to_string(mode);
    }
  }
}

TEST(BackendRegistry, AModeRegisteredTwiceKeepsItsFirstBackend) {
  static int made = 0;  // the registry outlives the test
  EXPECT_TRUE(detail::register_backend(ReplayMode::range, [](const Options&) {
    ++made;
    return std::unique_ptr<detail::Backend>();
  }));
  Options o;
  o.replay_mode = ReplayMode::range;
  if (query_system().built_with_cuda) {
    EXPECT_NE(detail::make_registered_backend(o), nullptr);  // range_replay.cpp's
    EXPECT_EQ(made, 0);
  } else {
    EXPECT_EQ(detail::make_registered_backend(o), nullptr);  // the test's, which makes none
    EXPECT_EQ(made, 1);
  }
}
