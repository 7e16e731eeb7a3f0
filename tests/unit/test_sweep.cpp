#include <gtest/gtest.h>

#include "kprof/errors.hpp"
#include "kprof/sweep.hpp"

using namespace kprof;

TEST(Sweep, DefaultIsOnePointWithoutParameters) {
  Sweep s;
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(s.names().empty());
  EXPECT_EQ(s.config(0).to_string(), "");
}

TEST(Sweep, ProductVariesLastAxisFastest) {
  Sweep s = Sweep().axis("n", {512, 1024}).axis("dtype", {"fp16", "fp32"});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.config(0).to_string(), "n=512, dtype=fp16");
  EXPECT_EQ(s.config(1).to_string(), "n=512, dtype=fp32");
  EXPECT_EQ(s.config(2).to_string(), "n=1024, dtype=fp16");
  EXPECT_EQ(s.config(3).get_int("n"), 1024);
  EXPECT_EQ(s.config(3).get_string("dtype"), "fp32");
}

TEST(Sweep, ProductFromAxes) {
  Sweep s = Sweep::product({{"a", {1, 2, 3}}, {"b", {0.5}}});
  EXPECT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s.config(2).get_double("b"), 0.5);
  EXPECT_DOUBLE_EQ(s.config(2).get_double("a"), 3.0);  // ints read as doubles too
}

TEST(Sweep, ExplicitListKeepsOrderAndChecksArity) {
  Sweep s = Sweep::list({"m", "k"}, {{1, 2}, {3, 4}});
  EXPECT_EQ(s.config(1).to_string(), "m=3, k=4");
  EXPECT_THROW(Sweep::list({"m", "k"}, {{1, 2}, {3}}), ConfigError);
  EXPECT_THROW(Sweep::list({"m"}, {}), ConfigError);
  EXPECT_THROW(Sweep::list({"m", "m"}, {{1, 2}}), ConfigError);
  EXPECT_THROW(s.axis("x", {1}), ConfigError);
}

TEST(Sweep, WrongTypeAndUnknownNameAreConfigErrors) {
  Sweep s = Sweep().axis("n", {512}).axis("dtype", {"fp16"});
  try {
    s.config(0).get_int("dtype");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'dtype' holds string fp16"), std::string::npos);
  }
  try {
    s.config(0).at("size");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'n' or 'dtype'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Sweep().axis("n", {}), ConfigError);
}

TEST(Sweep, ValuesPrintWithTheirType) {
  EXPECT_EQ(to_string(Value{2.0}), "2.0");
  EXPECT_EQ(to_string(Value{0.1}), "0.1");
  EXPECT_EQ(to_string(Value{std::int64_t{7}}), "7");
  EXPECT_STREQ(type_name(Value{"x"}), "string");
}

TEST(Sweep, ARunIsDescribedFromOneInEveryMessage) {
  EXPECT_EQ(describe_run(1, 4, "n=1024", 2, 10), "config 2/4 (n=1024), run 3/10");
  EXPECT_EQ(describe_run(0, 1, "", 0, 5), "config 1/1, run 1/5");
  EXPECT_EQ(describe_run(0, 2, "n=1", 6, 0), "config 1/2 (n=1), run 7");  // a stopping rule
  EXPECT_EQ(describe_run(3, 4, "n=8", -1, 10), "config 4/4 (n=8)");
}
