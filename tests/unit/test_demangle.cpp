// Kernel names as kprof's tables show them (kprof/demangle.hpp).
#include <gtest/gtest.h>

#include "kprof/demangle.hpp"

TEST(Demangle, MangledFunctionNamesReadAsCuptiGivesThem) {
  EXPECT_EQ(kprof::demangle("_Z5scalePKfPfm"), "scale(float const*, float*, unsigned long)");
  EXPECT_EQ(kprof::demangle("_Z6kernelILi4EEvPf"), "void kernel<4>(float*)");
}

TEST(Demangle, OtherNamesComeBackUnchanged) {
  // extern "C" kernels and Triton's: short ones would read as types ("f" as "float").
  for (const char* name : {"f", "i", "x", "Si", "triton_poi_fused_0", "", "_Zbroken"})
    EXPECT_EQ(kprof::demangle(name), name) << name;
}
