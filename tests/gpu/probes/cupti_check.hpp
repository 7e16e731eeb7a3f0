// CHECK(call): a CUPTI call of a probe that fails prints itself and its error, and main
// returns 1.
#pragma once

#include <cupti.h>

#include <cstdio>

#define CHECK(x)                                                                 \
  do {                                                                           \
    CUptiResult r_ = (x);                                                        \
    if (r_ != CUPTI_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                  \
      cuptiGetResultString(r_, &s_);                                             \
      std::printf("%s failed: %d %s\n", #x, static_cast<int>(r_), s_ ? s_ : ""); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)
