// kprof::compare_source: two results' sampled instructions compared place by place, regions
// matched by annotation and by the config's parameter values, not its position.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/stalls.hpp"

namespace {

using kprof::Results;
using kprof::SourceSample;
using kprof::Sweep;

// Results of one sweep `n` whose sampled instructions are `source`.
Results sampled(std::vector<std::int64_t> ns, std::vector<SourceSample> source) {
  std::vector<std::vector<kprof::Value>> points;
  for (std::int64_t n : ns) points.push_back({n});
  return Results(kprof::SessionInfo{}, Sweep::list({"n"}, points), {}, {}, {}, {}, {}, {}, {},
                 std::move(source));
}

SourceSample at(std::size_t config, int line, const std::string& reason, double samples,
                std::int64_t offset = 0) {
  return {config, "softmax", "k",    7, offset, "LDG", line > 0 ? "/src/softmax.cu" : "",
          line,   reason,    samples};
}

const kprof::SourceChange& find(const std::vector<kprof::SourceChange>& changes, int line) {
  for (const auto& c : changes)
    if (c.line == line) return c;
  throw std::runtime_error("no change at line " + std::to_string(line));
}

TEST(SourceCompare, EachLineSharesOfEitherSideAndTheReasonsThatChanged) {
  // Base: line 10 waits on its loads (75%), line 20 on a barrier. New: the load moved to line 12.
  const Results base = sampled(
      {4096}, {at(0, 10, "long_scoreboard", 60), at(0, 10, "wait", 15), at(0, 20, "barrier", 25)});
  const Results next = sampled(
      {4096}, {at(0, 12, "long_scoreboard", 10), at(0, 20, "barrier", 30), at(0, 20, "wait", 10)});
  const auto changes = kprof::compare_source(base, next);
  ASSERT_EQ(changes.size(), 3u);
  const auto& ten = find(changes, 10);
  EXPECT_DOUBLE_EQ(ten.base_pct, 75);
  EXPECT_DOUBLE_EQ(ten.new_pct, 0);
  EXPECT_EQ(ten.reasons.front().first, "long_scoreboard");
  EXPECT_DOUBLE_EQ(ten.reasons.front().second, -60);
  const auto& twenty = find(changes, 20);
  EXPECT_DOUBLE_EQ(twenty.base_pct, 25);
  EXPECT_DOUBLE_EQ(twenty.new_pct, 80);
  EXPECT_DOUBLE_EQ(twenty.reasons.front().second, 35);  // barrier: 25% -> 60%
  EXPECT_EQ(find(changes, 12).new_pct, 20);
  // The largest change first.
  EXPECT_EQ(changes.front().line, 10);
  const std::string text = kprof::source_comparison_text(changes);
  EXPECT_NE(text.find("softmax.cu:10"), std::string::npos) << text;
  EXPECT_NE(text.find("-75"), std::string::npos) << text;
  EXPECT_NE(text.find("long_scoreboard -60"), std::string::npos) << text;
}

TEST(SourceCompare, ConfigsMatchByTheirParametersAndCodeWithoutLinesByItsKernel) {
  // The same config at another position of the sweep; instructions without line information.
  const Results base =
      sampled({1024, 4096}, {at(1, 0, "wait", 10, 0x10), at(1, 0, "wait", 30, 0x20)});
  const Results next = sampled({4096}, {at(0, 0, "wait", 5, 0x30)});
  const auto changes = kprof::compare_source(base, next);
  ASSERT_EQ(changes.size(), 1u);  // one place: the kernel as a whole
  EXPECT_TRUE(changes[0].file.empty());
  EXPECT_DOUBLE_EQ(changes[0].base_pct, 100);
  EXPECT_DOUBLE_EQ(changes[0].new_pct, 100);
  EXPECT_NE(changes[0].region.find("4096"), std::string::npos) << changes[0].region;
}

TEST(SourceCompare, ARegionThatDidNotChangeSaysSo) {
  const Results base = sampled({1024}, {at(0, 10, "wait", 10), at(0, 11, "barrier", 30)});
  const std::string text = kprof::source_comparison_text(kprof::compare_source(base, base));
  EXPECT_NE(text.find("softmax (n=1024)\n  no place changed by 1 point or more\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("base      new"), std::string::npos) << text;
}

TEST(SourceCompare, NoRegionInBothOrNoSamplesAreSaid) {
  const Results base = sampled({1024}, {at(0, 10, "wait", 10)});
  const Results other = sampled({2048}, {at(0, 10, "wait", 10)});
  EXPECT_THROW(
      {
        try {
          (void)kprof::compare_source(base, other);
        } catch (const kprof::FormatError& e) {
          EXPECT_NE(std::string(e.what()).find("nothing to compare"), std::string::npos);
          EXPECT_NE(std::string(e.what()).find("'softmax'"), std::string::npos);
          throw;
        }
      },
      kprof::FormatError);
  EXPECT_THROW((void)kprof::compare_source(base, sampled({1024}, {})), kprof::OptionError);
}

}  // namespace
