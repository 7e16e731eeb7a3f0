// The rules an annotation and a derive function are held to, checked as early as they can be:
// names and nesting outside a profile as inside, an annotation left open before a profile when
// it begins, a derive function on the first values measured.
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measure/engine.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/profile.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using kprof::testing::quiet;
using kprof::testing::ScriptedBackend;

namespace {

std::string refusal(const std::string& name) {
  try {
    const AnnotationHandle h = open_annotation(name);
    close_annotation(h, false);
  } catch (const AnnotationError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(AnnotationRules, NamesAreShortPrintableTextInsideAndOutsideAProfile) {
  EXPECT_EQ(refusal(std::string(257, 'x')),
            "annotation name '" + std::string(60, 'x') +
                "...' is 257 bytes long; valid: 1 to 256 bytes of printable text, not only "
                "blanks, without '/'");
  EXPECT_EQ(refusal(std::string("a\0b", 3)),
            "annotation name 'a\\x00b' contains a control character (a NUL, newline or tab); "
            "valid: 1 to 256 bytes of printable text, not only blanks, without '/'");
  EXPECT_NE(refusal("a\nb").find("'a\\nb' contains a control character"), std::string::npos);
  EXPECT_NE(refusal("   ").find("'   ' is only blanks"), std::string::npos);
  EXPECT_NE(refusal("a/b").find("contains '/'"), std::string::npos);
  EXPECT_EQ(refusal(""), "an annotation name cannot be empty");
  // What is valid stays valid: 256 bytes, inner blanks, UTF-8 text.
  EXPECT_EQ(refusal(std::string(256, 'x')), "");
  EXPECT_EQ(refusal(" matmul 1 "), "");
  EXPECT_EQ(refusal("Matrix \xc3\x97 vector"), "");

  // Inside a profile the same names are refused, and the refusal fails the sweep.
  ScriptedBackend gpu;
  EXPECT_THROW(detail::run_sweep(gpu, quiet(1), Sweep(),
                                 [&](std::size_t, int) {
                                   Annotation a(std::string("tab\there"));
                                   gpu.launch("kern", 1);
                                 }),
               AnnotationError);
}

TEST(AnnotationRules, ClosingOutOfOrderIsRefusedOutsideAProfileToo) {
  const AnnotationHandle outer = open_annotation("outer");
  const AnnotationHandle inner = open_annotation("inner");
  EXPECT_NE(outer, inner);
  try {
    close_annotation(outer, false);
    FAIL() << "closed out of order";
  } catch (const AnnotationError& e) {
    EXPECT_STREQ(e.what(), "annotations must close in the reverse order they opened");
  }
  close_annotation(inner, false);
  close_annotation(outer, false);
}

TEST(AnnotationRules, AnAnnotationLeftOpenIsSaidWhenAProfileBegins) {
  ScriptedBackend gpu;
  const AnnotationHandle outer = open_annotation("experiment");
  int calls = 0;
  try {
    profile(quiet(1), Sweep(), [&](const Config&) { ++calls; });
    FAIL() << "a profile began inside an open annotation";
  } catch (const AnnotationError& e) {
    EXPECT_NE(std::string(e.what()).find("annotation 'experiment' is still open on this thread "
                                         "as the profile begins; close it first"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(calls, 0);  // refused before the benchmark or the GPU was touched
  close_annotation(outer, false);
  // Closed, the same profile is no longer refused for it (here: no GPU, or a profile).
  try {
    profile(quiet(1), Sweep(), [&](const Config&) {});
  } catch (const AnnotationError& e) {
    FAIL() << e.what();
  } catch (const Error&) {
  }
}

TEST(AnnotationRules, ADeriveFunctionThatCannotWorkStopsTheSweepAtItsFirstValues) {
  ScriptedBackend gpu;
  Options o = quiet(3);
  int derived = 0;
  o.derive = [&](const std::vector<double>& values, std::size_t) -> std::vector<DerivedValue> {
    ++derived;
    if (values.at(0) > 0) throw std::runtime_error("returned str; expected a number");
    return {};
  };
  int calls = 0;
  try {
    detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2, 3}), [&](std::size_t c, int) {
      ++calls;
      Annotation a("k");
      gpu.launch("kern", 10.0 * (c + 1));
    });
    FAIL() << "no error";
  } catch (const UserFunctionError& e) {
    EXPECT_NE(std::string(e.what()).find("derive_metric failed on the values of config 1/3 "
                                         "(n=1), run 1/3: returned str; expected a number"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.config(), 0u);
    EXPECT_EQ(e.run(), 0);
    ASSERT_TRUE(e.partial_results());  // the first config's runs are kept
    ASSERT_EQ(e.partial_results()->records().size(), 3u);
  }
  EXPECT_EQ(calls, 3);  // one config's runs, not the sweep's nine
  EXPECT_GE(derived, 1);
}

TEST(AnnotationRules, ADeriveFunctionThatWorksIsCalledAsBefore) {
  ScriptedBackend gpu;
  Options o = quiet(2);
  o.derive = [](const std::vector<double>& values, std::size_t) -> std::vector<DerivedValue> {
    return {{"twice", 2 * values.at(0), "ns"}};
  };
  const Results r = detail::run_sweep(gpu, o, Sweep().axis("n", {1, 2}), [&](std::size_t c, int) {
    Annotation a("k");
    gpu.launch("kern", 5.0 * (c + 1));
  });
  int twice = 0;
  for (const Row& row : r.rows())
    if (row.metric == "twice") {
      ++twice;
      EXPECT_DOUBLE_EQ(row.mean, 10.0 * (row.config + 1));
    }
  EXPECT_EQ(twice, 2);
}
