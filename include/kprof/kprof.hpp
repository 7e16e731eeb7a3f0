// kprof: a GPU kernel profiler that lives inside the program it measures.
#pragma once

#include "kprof/analysis.hpp"
#include "kprof/annotate.hpp"
#include "kprof/compare.hpp"
#include "kprof/demangle.hpp"
#include "kprof/device.hpp"
#include "kprof/errors.hpp"
#include "kprof/layout.hpp"
#include "kprof/log.hpp"
#include "kprof/merge.hpp"
#include "kprof/metrics.hpp"
#include "kprof/options.hpp"
#include "kprof/profile.hpp"
#include "kprof/rank.hpp"
#include "kprof/results.hpp"
#include "kprof/sweep.hpp"
#include "kprof/version.hpp"
