// Results in files: equality, the JSON and CSV round trips, and the errors a file that is not
// one of kprof's gets (the text table: test_results_table.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/number_text.hpp"
#include "core/results/csv.hpp"
#include "kprof/errors.hpp"
#include "kprof/results.hpp"
#include "results_io_support.hpp"

namespace kprof {
namespace {

using namespace kprof::testing;
namespace fs = std::filesystem;

Parts sample_parts() {
  Parts p;
  p.session = full_session();
  p.sweep = Sweep::list({"n", "scale", "dtype"},
                        {{std::int64_t{1024}, 2.0, std::string("fp16")},
                         {std::int64_t{-3}, 0.1, std::string("a, \"b\"\nc")},
                         {std::int64_t{0}, kNan, std::string("")},
                         {std::int64_t{9007199254740993}, -kInf, std::string("x")}});
  p.records = {record(0, 0, kTemplateKernel, 0, 0.1),
               record(0, 0, kNastyKernel, 1, 1.0 / 3),
               record(1, 0, kTemplateKernel, 0, kNan),
               record(1, 1, kTemplateKernel, 0, 5e-324),
               record(2, 0, "k", 0, DBL_MAX),
               record(2, 1, "k", 0, -0.0),
               record(3, 0, "k", 0, 1e21),
               record(3, 1, "k", 0, kInf)};
  p.samples = {{0, 0, "outer/inner", "gpu__time_duration.sum", 0.1, "ns", kTemplateKernel, 0},
               {0, 0, "outer/inner", "gpu__time_duration.sum", 1.0 / 3, "ns", kNastyKernel, 1},
               {0, 0, "outer", "gpu__time_duration.sum", 0.1 + 1.0 / 3, "ns",
                kTemplateKernel + "|" + kNastyKernel, -1},
               {1, 0, "outer", "speedup", kNan, "ratio", "k", -1},  // derived metric, failed run
               {2, 1, "outer", "gpu__time_duration.sum", 123456789012345678.0, "", "k", -1},
               {3, 0, "outer", "gpu__time_duration.sum", 2.5, "ns", "k", -1}};
  Row per_kernel = row("outer/inner", 0, "gpu__time_duration.sum", 2680000);
  per_kernel.kernel_index = 1;
  per_kernel.kernel = kNastyKernel;
  Row one_run = row("outer", 1, "speedup", 1.25);
  one_run.unit = "ratio";
  one_run.num_runs = 1;
  one_run.stddev = one_run.ci95_lower = one_run.ci95_upper = one_run.rel_stddev_pct = kNan;
  one_run.stable.reset();
  Row normalized = row("outer", 2, "gpu__time_duration.sum", 0.8);
  normalized.normalized_against = "baseline";
  normalized.normalization_value = 2.5e6;
  normalized.stable = false;
  Row last = row("outer", 3, "gpu__time_duration.sum", 7);
  last.geomean = std::nextafter(7.0, 8.0);
  p.rows = {per_kernel, one_run, normalized, last};
  return p;
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// Runs `f`, which must throw FormatError whose message holds every one of `parts`.
void expect_format_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no FormatError thrown";
  } catch (const FormatError& e) {
    for (const auto& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << part << "' not in: " << e.what();
  }
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string first_line(const std::string& path) {
  const std::string text = slurp(path);
  return text.substr(0, text.find('\n'));
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh directory per test.
class ResultsIoFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("kprof-io-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// ---- equality ------------------------------------------------------------------------------

TEST(ResultsIo, EqualityHoldsForEqualPartsAndNanEqualsNan) {
  const Parts p = sample_parts();
  ASSERT_TRUE(std::isnan(p.records[2].value));
  EXPECT_TRUE(p.make() == p.make());
  EXPECT_TRUE(Results() == Results());
}

TEST(ResultsIo, EqualityComparesDoublesBitwise) {
  const Parts p = sample_parts();
  Parts q = p;
  q.rows[3].geomean = 7.0;  // one ulp away
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.records[5].value = 0.0;  // was -0.0
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.records[2].value = 0;  // was NaN
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.samples[0].value = kNan;
  EXPECT_FALSE(p.make() == q.make());
}

TEST(ResultsIo, EqualityComparesEveryPart) {
  const Parts p = sample_parts();
  Parts q = p;
  q.session.started_at = "later";
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.session.metrics.pop_back();
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.rows[0].stable.reset();
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.rows[2].normalized_against = "";
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.samples[1].kernel_index = 2;
  EXPECT_FALSE(p.make() == q.make());
  q = p;
  q.records.pop_back();
  EXPECT_FALSE(p.make() == q.make());
}

TEST(ResultsIo, EqualityComparesSweepValueTypes) {
  Parts p = sample_parts();
  Parts q = p;
  p.sweep = Sweep::list({"n"}, {{std::int64_t{2}}, {std::int64_t{2}}, {std::int64_t{2}}, {1.0}});
  q.sweep = Sweep::list({"n"}, {{2.0}, {std::int64_t{2}}, {std::int64_t{2}}, {1.0}});
  EXPECT_FALSE(p.make() == q.make());
  q.sweep = Sweep::list({"m"}, {{std::int64_t{2}}, {std::int64_t{2}}, {std::int64_t{2}}, {1.0}});
  EXPECT_FALSE(p.make() == q.make());
  q.sweep = p.sweep;
  EXPECT_TRUE(p.make() == q.make());
}

// ---- JSON ----------------------------------------------------------------------------------

TEST(ResultsIoJson, RoundTripIsExact) {
  const Results r = sample_parts().make();
  const Results back = Results::from_json(r.to_json());
  EXPECT_TRUE(back == r);
  // Spelled out for the values that need every digit, whatever operator== does.
  ASSERT_EQ(back.records().size(), r.records().size());
  for (std::size_t i = 0; i < r.records().size(); ++i)
    if (!std::isnan(r.records()[i].value))
      EXPECT_EQ(bits(back.records()[i].value), bits(r.records()[i].value)) << i;
  EXPECT_EQ(back.rows()[3].geomean, std::nextafter(7.0, 8.0));
  EXPECT_FALSE(back.rows()[1].stable.has_value());
  EXPECT_EQ(back.session().cupti_version, "26");
}

TEST(ResultsIoJson, SweepValuesKeepTheirType) {
  const Results back = Results::from_json(sample_parts().make().to_json());
  const auto& p0 = back.sweep().point(0);
  ASSERT_EQ(p0.size(), 3u);
  EXPECT_EQ(std::get<std::int64_t>(p0[0]), 1024);
  EXPECT_EQ(std::get<double>(p0[1]), 2.0);  // an integral double stays a double
  EXPECT_EQ(std::get<std::string>(p0[2]), "fp16");
  EXPECT_TRUE(std::isnan(std::get<double>(back.sweep().point(2)[1])));
  EXPECT_EQ(std::get<double>(back.sweep().point(3)[1]), -kInf);
  EXPECT_EQ(std::get<std::int64_t>(back.sweep().point(3)[0]), 9007199254740993);
  EXPECT_EQ(back.sweep().names(), (std::vector<std::string>{"n", "scale", "dtype"}));
}

TEST(ResultsIoJson, DocumentLayout) {
  const std::string json = sample_parts().make().to_json();
  EXPECT_EQ(json.rfind("{\"format\":\"kprof-results\",\"version\":1,\"session\":{\"gpu\":", 0), 0u)
      << json.substr(0, 80);
  EXPECT_NE(json.find("\"sweep\":{\"names\":[\"n\",\"scale\",\"dtype\"],\"points\":[[1024,2.0,"
                      "\"fp16\"],[-3,0.1,"),
            std::string::npos);
  EXPECT_NE(json.find("[0,{\"double\":\"nan\"},\"\"]"), std::string::npos);
  EXPECT_NE(json.find("\"records\":{\"config\":[0,0,1,1,2,2,3,3],\"run\":[0,0,0,1,0,1,0,1],"),
            std::string::npos);
  EXPECT_NE(json.find("\"value\":[0.1,0.3333333333333333,null,5e-324,1.7976931348623157e+308,"
                      "-0.0,1e+21,\"inf\"]"),
            std::string::npos);
  EXPECT_NE(json.find("\"stable\":[true,null,false,true]"), std::string::npos);
}

TEST(ResultsIoJson, EmptyResultsRoundTrip) {
  EXPECT_TRUE(Results::from_json(Results().to_json()) == Results());
}

// A document with one record, to edit by hand.
std::string small_json() {
  Parts p;
  p.records = {record(0, 0, "k", 0, 1.5)};
  return p.make().to_json();
}

TEST(ResultsIoJson, SmallDocumentReadsBack) {
  const Results r = Results::from_json(small_json());
  ASSERT_EQ(r.records().size(), 1u);
  EXPECT_EQ(r.records()[0].value, 1.5);
}

TEST(ResultsIoJson, MalformedInputIsAFormatErrorNamingWhatIsWrong) {
  const std::string doc = small_json();
  expect_format_error([] { Results::from_json("{not json"); }, {"string: ", "not valid JSON"});
  expect_format_error([] { Results::from_json("[1, 2]"); },
                      {"string: ", "not a kprof results document"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "kprof-results", "something-else")); },
      {"not a kprof results document"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"version\":1", "\"version\":2")); },
      {"string: ", "unsupported version 2", "reads version 1"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"value\":[1.5]", "\"value\":[\"x\"]")); },
      {"records.value[0]", "expected a number"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"run\":[0]", "\"run\":[0,1]")); },
      {"records.run has 2 values", "records.config has 1"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"geomean\":", "\"geomeans\":")); },
      {"rows has no \"geomean\""});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"device\":-1", "\"device\":1.5")); },
      {"session.device", "expected an integer"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"config\":[0]", "\"config\":[-1]")); },
      {"records.config[0]"});
  expect_format_error(
      [&] { Results::from_json(replace_once(doc, "\"points\":[[]]", "\"points\":[[1]]")); },
      {"sweep.points[0] is not a list of 0 values"});
}

TEST_F(ResultsIoFiles, JsonFileRoundTripOverwritesAndLeavesNoTemporary) {
  const std::string file = path("r.json");
  Results().write_json(file);
  const Results r = sample_parts().make();
  r.write_json(file);
  EXPECT_TRUE(Results::read_json(file) == r);
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"r.json"});
}

TEST_F(ResultsIoFiles, JsonFileErrorsNameTheFile) {
  const std::string missing = path("missing.json");
  expect_format_error([&] { Results::read_json(missing); }, {missing, "cannot open"});
  const std::string bad = path("bad.json");
  spit(bad, "{\"format\":\"kprof-results\",\"version\":99}");
  expect_format_error([&] { Results::read_json(bad); }, {bad, "unsupported version 99"});
}

TEST_F(ResultsIoFiles, JsonWriteToAMissingDirectoryIsAnError) {
  EXPECT_THROW(Results().write_json(path("no/such/dir/r.json")), Error);
}

// ---- CSV -----------------------------------------------------------------------------------

TEST(ResultsIoCsvText, QuotesFieldsWithCommasQuotesAndNewlines) {
  std::string out;
  detail::csv::append_row(out, {"a", "b,c", "d\"e", "f\ng", "", "h\ri"});
  EXPECT_EQ(out, "a,\"b,c\",\"d\"\"e\",\"f\ng\",,\"h\ri\"\n");
  const auto rows = detail::csv::parse(out, "test");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (detail::csv::Row{"a", "b,c", "d\"e", "f\ng", "", "h\ri"}));
}

TEST(ResultsIoCsvText, ParsesCrLfAndSkipsBlankLines) {
  const auto rows = detail::csv::parse("a,b\r\n\r\n1,\"x\r\ny\"\r\n\n", "test");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (detail::csv::Row{"a", "b"}));
  EXPECT_EQ(rows[1], (detail::csv::Row{"1", "x\r\ny"}));
  EXPECT_EQ(detail::csv::parse("a,\n", "test")[0], (detail::csv::Row{"a", ""}));
  EXPECT_EQ(detail::csv::parse("\"\"\n", "test")[0], (detail::csv::Row{""}));
}

TEST(ResultsIoCsvText, MalformedTextNamesTheSourceAndLine) {
  expect_format_error([] { detail::csv::parse("a,b\n\"open,c\n", "f.csv"); },
                      {"f.csv: line 2", "not closed"});
  expect_format_error([] { detail::csv::parse("a\n\"x\"y\n", "f.csv"); },
                      {"f.csv: line 2", "after the closing quote"});
  expect_format_error([] { detail::csv::parse("a\"b\n", "f.csv"); },
                      {"f.csv: line 1", "quote inside"});
}

TEST(ResultsIoCsvText, DoublesAreShortestAndExact) {
  EXPECT_EQ(detail::format_double(0.1), "0.1");
  EXPECT_EQ(detail::format_double(2.0), "2");
  EXPECT_EQ(detail::format_double(kNan), "nan");
  EXPECT_EQ(detail::format_double(-kNan), "nan");
  EXPECT_EQ(detail::format_double(-kInf), "-inf");
  for (double v : {1.0 / 3, 5e-324, DBL_MAX, -0.0, 123456789012345678.0})
    EXPECT_EQ(bits(*detail::parse_double(detail::format_double(v))), bits(v)) << v;
  EXPECT_FALSE(detail::parse_double("1.5x").has_value());
  EXPECT_FALSE(detail::parse_double("").has_value());
  EXPECT_FALSE(detail::parse_int("1.0").has_value());
  EXPECT_EQ(detail::parse_int("-42"), -42);
}

// A parse error says where and why in words, never with the parser's internals or the raw
// bytes of the input (which may not be text, and could not become a Python str).
TEST(ResultsIoJson, ParseErrorsSayWhereInWordsAndQuoteNoBytes) {
  const auto message = [](const std::string& text) {
    try {
      Results::from_json(text);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string not_utf8 = message("{\"format\": \"kprof-results\", \"x\": \"\xff\xfe\"}");
  EXPECT_NE(not_utf8.find("the text is not UTF-8 (line 1, column"), std::string::npos) << not_utf8;
  EXPECT_EQ(not_utf8.find('\xff'), std::string::npos);
  EXPECT_EQ(not_utf8.find("json.exception"), std::string::npos);
  const std::string binary = message(std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  EXPECT_NE(binary.find("binary data, not text"), std::string::npos) << binary;
  EXPECT_EQ(binary.find("PNG"), std::string::npos);
  EXPECT_EQ(message("{\"format\":\n \"kprof"),
            "string: not valid JSON: it ends early, at line 2, column 8");
  EXPECT_EQ(message("{\"a\": 1,\n  ]"),
            "string: not valid JSON: unexpected text at line 2, column 3");
}

TEST(ResultsIoJson, ANumberOutOfRangeSaysWhereAndWhy) {
  const std::string text = replace_once(small_json(), "\"value\":[1.5]", "\"value\":[1e400]");
  const std::size_t column = text.find("1e400") + 1;  // one line: the column is the byte
  expect_format_error(
      [&] { Results::from_json(text); },
      {"string: not valid JSON: the number 1e400 at line 1, column " + std::to_string(column) +
       " (records.value[0]) is out of range; valid: numbers within a "
       "double's range (about 1.8e308), null for a missing value, \"inf\" "
       "and \"-inf\""});
  expect_format_error(
      [] { Results::from_json("{\"format\": \"kprof-results\",\n \"x\": [0, -1e999]}"); },
      {"the number -1e999 at line 2, column 11 (x[1]) is out of range"});
}

TEST(ResultsIoJson, ItemsOfAConfigTheSweepLacksAreRefusedAtLoad) {
  expect_format_error(
      [] { Results::from_json(replace_once(small_json(), "\"config\":[0]", "\"config\":[3]")); },
      {"string: records.config[0]: config 3 does not exist; valid: 0 to 0 (the sweep has 1 "
       "config)"});
  auto doc = nlohmann::ordered_json::parse(sample_parts().make().to_json());
  doc["samples"]["config"][4] = 9;
  expect_format_error([&] { Results::from_json(doc.dump()); },
                      {"string: samples.config[4]: config 9 does not exist; valid: 0 to 3 (the "
                       "sweep has 4 configs)"});
}

TEST(ResultsIoJson, NegativeDurationsAreRefusedAtLoad) {
  expect_format_error(
      [] { Results::from_json(replace_once(small_json(), "\"value\":[1.5]", "\"value\":[-1.5]")); },
      {"string: records.value[0]: a duration of -1.5 ns; valid: durations of 0 or more"});
  auto doc = nlohmann::ordered_json::parse(sample_parts().make().to_json());
  doc["rows"]["min"][3] = -1;
  expect_format_error([&] { Results::from_json(doc.dump()); },
                      {"string: rows.min[3]: a duration of -1 ns"});
  // Other metrics may be negative (a derived difference); -0 and NaN are no negative duration.
  doc = nlohmann::ordered_json::parse(sample_parts().make().to_json());
  doc["rows"]["mean"][1] = -1.25;  // "speedup"
  EXPECT_EQ(Results::from_json(doc.dump()).rows()[1].mean, -1.25);
}

TEST_F(ResultsIoFiles, CsvNegativeDurationsAreRefusedNamingTheFileAndLine) {
  Parts p = sample_parts();
  p.samples[5].value = -2.5;
  const auto paths = p.make().write_csv(path(""), "t");
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {paths[0] + " data line 6 (value): a duration of -2.5 ns; valid: durations "
                                  "of 0 or more"});
}

TEST_F(ResultsIoFiles, CsvRoundTripIsExact) {
  const Parts p = sample_parts();
  const auto paths = p.make().write_csv(path("out_"), "bench-7");
  EXPECT_EQ(paths, (std::vector<std::string>{
                       path("out_profiled_data-bench-7.csv"),
                       path("out_processed_data-bench-7.csv"), path("out_records-bench-7.csv"),
                       path("out_session-bench-7.csv"), path("out_configs-bench-7.csv"),
                       path("out_runs-bench-7.csv"), path("out_info-bench-7.csv")}));
  const Results back = Results::read_csv(path("out_"), "bench-7");
  EXPECT_TRUE(back == p.make());
  EXPECT_EQ(back.records()[0].kernel, kTemplateKernel);
  EXPECT_EQ(back.records()[1].kernel, kNastyKernel);
  EXPECT_EQ(bits(back.records()[3].value), bits(5e-324));
  EXPECT_EQ(std::get<double>(back.sweep().point(0)[1]), 2.0);
  EXPECT_EQ(std::get<std::string>(back.sweep().point(1)[2]), "a, \"b\"\nc");
  EXPECT_EQ(back.session().passes, 2);
  EXPECT_EQ(back.session().metrics, p.session.metrics);
  EXPECT_EQ(back.session().started_at, p.session.started_at);
}

// A tag is a function's name: whatever it holds, the files stay in the prefix's folder.
TEST_F(ResultsIoFiles, CsvFilesStayInThePrefixFolderWhateverTheTag) {
  const Parts p = sample_parts();
  const std::string tag = std::string("../../evil/\\x") + '\0' + "y";
  for (const std::string& written : p.make().write_csv(path("out_"), tag)) {
    EXPECT_EQ(fs::path(written).parent_path(), dir_) << written;
    EXPECT_TRUE(fs::exists(written)) << written;
  }
  EXPECT_TRUE(fs::exists(path("out_processed_data-.._.._evil__x_y.csv")));
  EXPECT_TRUE(p.make() == Results::read_csv(path("out_"), tag));
}

TEST_F(ResultsIoFiles, AFolderIsAFormatErrorSayingSo) {
  expect_format_error([&] { Results::read_json(path("")); }, {"is a folder, not a file"});
}

TEST_F(ResultsIoFiles, CsvWithoutItsSessionFileIsAFormatError) {
  const auto paths = sample_parts().make().write_csv(path("s_"), "t");
  std::remove(paths[3].c_str());  // session-t.csv
  EXPECT_THROW(Results::read_csv(path("s_"), "t"), FormatError);
}

TEST_F(ResultsIoFiles, CsvColumnsFollowNsightPython) {
  const auto paths = sample_parts().make().write_csv(path(""), "t");
  EXPECT_EQ(first_line(paths[0]),
            "Annotation,Value,Metric,Kernel,GPU,Host,ComputeClock,MemoryClock,Unit,KernelIndex,"
            "Run,Config,n,scale,dtype,Rank,Device");
  EXPECT_EQ(first_line(paths[1]),
            "Annotation,Metric,n,scale,dtype,AvgValue,StdDev,MinValue,MaxValue,NumRuns,Kernel,"
            "GPU,Host,ComputeClock,MemoryClock,Unit,CI95_Lower,CI95_Upper,RelativeStdDevPct,"
            "StableMeasurement,Normalized,NormalizationValue,Geomean,Median,KernelIndex,Config,"
            "Backend,ReplayMode,CacheControl,Passes,RunsDone,StoppedBy,MeasuredClock,Temperature,"
            "ThrottledRuns,ProfilingOverhead,Rank,Device");
  EXPECT_EQ(first_line(paths[2]),
            "Config,Run,Annotation,Kernel,KernelIndex,Metric,Value,Unit,n,"
            "scale,dtype,GpuStart,GpuEnd,Stream,Kind,Bytes,Rank,Device");
}

TEST_F(ResultsIoFiles, CsvCellsAreQuotedAndSpelledAsPandasReadsThem) {
  const auto paths = sample_parts().make().write_csv(path(""), "t");
  const std::string samples = slurp(paths[0]);
  EXPECT_NE(samples.find("outer/inner,0.1,gpu__time_duration.sum,\"void gemm<float, 128>(float "
                         "const*, int)\",NVIDIA H200,node-7,1980000,3201000,ns,0,0,0,1024,2.0,"
                         "fp16,0,0\n"),
            std::string::npos)
      << samples;
  EXPECT_NE(samples.find("\"k\"\"quoted\"\", with\nnewline\""), std::string::npos);
  EXPECT_NE(samples.find(",-3,0.1,\"a, \"\"b\"\"\nc\",0,0\n"), std::string::npos);
  EXPECT_NE(samples.find("\nouter,nan,speedup,k,"), std::string::npos);
  const std::string rows = slurp(paths[1]);
  // one run: no spread, stability unset; normalized row: the baseline's name.
  EXPECT_NE(rows.find(",nan,nan,,False,nan,1.25,1.25,-1,1,cupti-activity,kernel,all,2,0,,nan,nan,"
                      "nan,nan,0,0\n"),
            std::string::npos)
      << rows;
  EXPECT_NE(rows.find(",False,baseline,2500000,"), std::string::npos) << rows;
  EXPECT_NE(rows.find("\nouter,gpu__time_duration.sum,0,nan,,0.8,"), std::string::npos)
      << rows;  // NaN and empty parameters
  EXPECT_NE(rows.find(",9007199254740993,-inf,x,"), std::string::npos) << rows;
}

TEST_F(ResultsIoFiles, CsvStringParameterThatLooksLikeANumberReadsBackAsANumber) {
  Parts p;
  p.sweep = Sweep::list({"s"}, {{std::string("42")}, {std::string("2.5")}, {std::string("x")}});
  for (std::size_t c = 0; c < 3; ++c) p.records.push_back(record(c, 0, "k", 0, 1));
  p.make().write_csv(path(""), "t");
  const Sweep back = Results::read_csv(path(""), "t").sweep();
  EXPECT_EQ(std::get<std::int64_t>(back.point(0)[0]), 42);
  EXPECT_EQ(std::get<double>(back.point(1)[0]), 2.5);
  EXPECT_EQ(std::get<std::string>(back.point(2)[0]), "x");
}

TEST_F(ResultsIoFiles, CsvOfNoParametersAndEmptyResults) {
  Parts p;
  p.records = {record(0, 0, "k", 0, 1)};
  p.make().write_csv(path("a_"), "t");
  EXPECT_TRUE(Results::read_csv(path("a_"), "t") == p.make());
  Results().write_csv(path("b_"), "t");
  EXPECT_TRUE(Results::read_csv(path("b_"), "t") == Results());
}

TEST_F(ResultsIoFiles, CsvWritesOverwriteAndLeaveNoTemporaries) {
  Results().write_csv(path(""), "t");
  sample_parts().make().write_csv(path(""), "t");
  EXPECT_EQ(files_in(dir_),
            (std::vector<std::string>{"configs-t.csv", "info-t.csv", "processed_data-t.csv",
                                      "profiled_data-t.csv", "records-t.csv", "runs-t.csv",
                                      "session-t.csv"}));
  EXPECT_EQ(Results::read_csv(path(""), "t").rows().size(), 4u);
}

TEST_F(ResultsIoFiles, CsvMissingFileOrBadHeaderIsAFormatError) {
  const auto paths = sample_parts().make().write_csv(path(""), "t");
  const std::string records = slurp(paths[2]);
  fs::remove(paths[2]);
  expect_format_error([&] { Results::read_csv(path(""), "t"); }, {paths[2], "cannot open"});
  spit(paths[2], replace_once(records, "Config,Run,Annotation", "Config,Runs,Annotation"));
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {paths[2], "not a kprof records file", "Config,Run,Annotation"});
  spit(paths[2], "");
  expect_format_error([&] { Results::read_csv(path(""), "t"); }, {paths[2], "expected the header"});
}

TEST_F(ResultsIoFiles, CsvBadCellsAreFormatErrorsNamingLineAndColumn) {
  const auto paths = sample_parts().make().write_csv(path(""), "t");
  const std::string samples = slurp(paths[0]);
  spit(paths[0], replace_once(samples, "outer/inner,0.1,", "outer/inner,zero,"));
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {paths[0], "data line 1", "column Value", "'zero'"});
  spit(paths[0], replace_once(samples, ",fp16,0,0\n", ",fp16,0,0,extra\n"));
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {paths[0], "data line 1", "18 fields"});
  spit(paths[0], replace_once(samples, ",1024,2.0,fp16,", ",1024,2.0,fp32,"));
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {paths[0], "config 0 has other parameter values"});
}

TEST_F(ResultsIoFiles, CsvSweepWithAConfigMissingEverywhereCannotBeRebuilt) {
  Parts p = sample_parts();
  std::erase_if(p.records, [](const Record& r) { return r.config == 1; });
  std::erase_if(p.samples, [](const Sample& s) { return s.config == 1; });
  std::erase_if(p.rows, [](const Row& r) { return r.config == 1; });
  p.make().write_csv(path(""), "t");
  expect_format_error([&] { Results::read_csv(path(""), "t"); },
                      {"config 1 has no line in any file"});
}

}  // namespace
}  // namespace kprof
