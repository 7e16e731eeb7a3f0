// Measurement conditions in files: the rows that summarise them, and their JSON / CSV round
// trip, from files of this version and of the versions before it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "conditions_support.hpp"
#include "core/measure/engine.hpp"
#include "core/measure/paced_reading.hpp"
#include "core/results/aggregate.hpp"
#include "kprof/annotate.hpp"
#include "kprof/errors.hpp"
#include "kprof/log.hpp"
#include "scripted_backend.hpp"

using namespace kprof;
using namespace kprof::testing::conditions;

// ---- files
// ---------------------------------------------------------------------------------------

namespace {

Results conditions_results() {
  SessionInfo s;
  s.gpu = "synthetic";
  s.backend = "scripted";
  s.compute_clock_khz = 1980000;
  s.metrics = {"gpu__time_duration.sum"};
  s.thermal_mode = "manual";
  s.throttle_threshold = 0.75;
  s.stop_rel_half_width = 0.01;
  s.stop_min_runs = 5;
  s.stop_max_runs = 100;
  s.stop_time_budget_s = 15;
  Sweep sweep = Sweep::list({"n"}, {{std::int64_t{1}}, {std::int64_t{2}}});
  std::vector<Record> records;
  detail::Conditions c;
  for (std::size_t config = 0; config < 2; ++config) {
    c.configs.push_back({config, 3, config == 0 ? "precision" : "max_runs", 1.0 / 3});
    for (int run = 0; run < 3; ++run) {
      records.push_back({config, run, "a", "k", 0, "gpu__time_duration.sum", 100.0 + run, "ns"});
      RunInfo ri;
      ri.config = config;
      ri.run = run;
      ri.seconds = 0.1 * (run + 1);
      ri.pause_s = run == 1 ? 1.5 : 0;
      ri.sm_clock_khz = run == 2 ? kNan : 1980000.0 - 1000 * run;
      ri.temperature_c = 60 + run;
      ri.clock_event_reasons = run == 2 ? -1 : 0x41;
      if (run != 2) ri.throttled = run == 1;
      c.runs.push_back(ri);
      InfoValue clock{"clock", "run", config, run, "", 1.0 / 3 + run, ""};
      InfoValue label{
          "label", "annotation", config, run, "a", kNan, "x, \"y\"\n" + std::to_string(run)};
      c.info.push_back(clock);
      c.info.push_back(label);
    }
  }
  c.info.push_back({"driver", "once", 0, -1, "", 590.5, ""});
  Options o;
  return detail::aggregate(s, sweep, records, o, c);
}

class ConditionFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kprof-conditions-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

TEST(ConditionResults, RowsSummariseTheConditions) {
  const Results r = conditions_results();
  const Row& a0 = row(r, "a", 0);
  EXPECT_EQ(a0.runs_done, 3);
  EXPECT_EQ(a0.stopped_by, "precision");
  EXPECT_DOUBLE_EQ(a0.measured_clock_khz, 1979500);  // NaN runs left out
  EXPECT_DOUBLE_EQ(a0.temperature_c, 61);
  EXPECT_DOUBLE_EQ(a0.throttled_runs, 1);
  ASSERT_EQ(a0.info.size(), 3u);
  EXPECT_EQ(a0.info[0].name, "clock");
  EXPECT_DOUBLE_EQ(a0.info[0].mean, 1.0 / 3 + 1);
  EXPECT_FALSE(a0.info[1].numeric);
  EXPECT_EQ(a0.info[1].text, "x, \"y\"\n0");
  EXPECT_FALSE(a0.info[2].numeric);
  EXPECT_DOUBLE_EQ(a0.info[2].value, 590.5);
}

TEST_F(ConditionFiles, JsonRoundTripIsExact) {
  const Results r = conditions_results();
  const Results back = Results::from_json(r.to_json());
  EXPECT_TRUE(back == r);
  EXPECT_EQ(back.run_info().size(), 6u);
  EXPECT_EQ(back.info().size(), 13u);
  EXPECT_EQ(back.session().stop_max_runs, 100);
  EXPECT_FALSE(back.run_info()[2].throttled.has_value());
}

TEST_F(ConditionFiles, CsvRoundTripIsExact) {
  const Results r = conditions_results();
  r.write_csv(path("c_"), "t");
  const Results back = Results::read_csv(path("c_"), "t");
  EXPECT_TRUE(back == r);
  EXPECT_EQ(first_line(path("c_configs-t.csv")),
            "Config,Runs,StoppedBy,Seconds,n,UnprofiledSeconds");
  EXPECT_EQ(first_line(path("c_runs-t.csv")),
            "Config,Run,Seconds,ThermalPause,MeasuredClock,Temperature,ClockEventReasons,"
            "Throttled,n,Rank,Device");
  EXPECT_EQ(first_line(path("c_info-t.csv")), "Name,Scope,Config,Run,Annotation,Value,Text,n");
  const std::string processed = first_line(path("c_processed_data-t.csv"));
  EXPECT_NE(
      processed.find(",RunsDone,StoppedBy,MeasuredClock,Temperature,ThrottledRuns,"
                     "ProfilingOverhead,Rank,Device,clock_Avg,clock_Std,clock_Min,clock_Max,label,"
                     "driver"),
      std::string::npos)
      << processed;
}

TEST_F(ConditionFiles, FilesFromBeforeTheConditionsStillRead) {
  // A JSON document without the new fields and tables, as kprof 0.1.0 wrote it.
  const std::string data = std::string(KPROF_TEST_DATA) + "/h200-python-demo-2026-11-30.json";
  const Results old = Results::read_json(data);
  EXPECT_TRUE(old.run_info().empty());
  EXPECT_TRUE(old.config_info().empty());
  EXPECT_TRUE(old.info().empty());
  EXPECT_TRUE(std::isnan(old.session().stop_rel_half_width));
  ASSERT_FALSE(old.rows().empty());
  EXPECT_EQ(old.rows()[0].runs_done, 0);
  // CSV sets without the conditions files read with empty tables.
  old.write_csv(path("o_"), "t");
  for (const char* kind : {"configs", "runs", "info"})
    std::filesystem::remove(path(std::string("o_") + kind + "-t.csv"));
  EXPECT_TRUE(Results::read_csv(path("o_"), "t") == old);
  // processed_data without the conditions columns, as kprof 0.1.0 wrote it.
  const std::string processed = path("o_processed_data-t.csv");
  std::ifstream in(processed);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string legacy;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    // Every line ends with the five conditions cells, ProfilingOverhead, Rank and Device (no
    // info columns here): drop them.
    for (int k = 0; k < 8; ++k) line.erase(line.rfind(','));
    legacy += line + "\n";
    begin = end + 1;
  }
  std::ofstream(processed) << legacy;
  EXPECT_EQ(first_line(processed).substr(first_line(processed).rfind(',')), ",Passes");
  EXPECT_TRUE(Results::read_csv(path("o_"), "t") == old);
}

// processed_data of kprof before ProfilingOverhead (with the conditions columns) still reads:
// each generation of added columns is tried.
TEST_F(ConditionFiles, FilesOfTheGenerationBeforeTheOverheadColumnStillRead) {
  const std::string json = std::string(KPROF_TEST_DATA) + "/h200-python-demo-2026-11-30.json";
  const Results old = Results::read_json(json);
  old.write_csv(path("g_"), "t");
  const std::string processed = path("g_processed_data-t.csv");
  std::ifstream in(processed);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::string earlier;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    // The last cells: ProfilingOverhead, Rank and Device.
    for (int k = 0; k < 3; ++k) line.erase(line.rfind(','));
    earlier += line + "\n";
    begin = end + 1;
  }
  std::ofstream(processed) << earlier;
  EXPECT_EQ(first_line(processed).substr(first_line(processed).rfind(',')), ",ThrottledRuns");
  EXPECT_TRUE(Results::read_csv(path("g_"), "t") == old);
}

// The shape of `kprof demo --json --csv`: string and int parameters, a derived metric for some
// configs only, NVML readings of 0 MHz, every file written and read back.
TEST(ConditionResults, ADemoShapedProfileWritesAndReadsEveryFile) {
  RatedBackend gpu;
  ScriptedProbe nvml;
  nvml.readings = {reading(0, 33, 0), reading(0, 34, 0)};
  detail::SweepServices services = read_every_run(nvml);
  services.thermal = &nvml;
  Options o = quiet(3);
  Sweep sweep = Sweep::list({"op", "n"}, {{"scale", 1 << 20}, {"add", 1 << 20}, {"fma", 1 << 22}});
  o.derive = [](const std::vector<double>& v, std::size_t config) -> std::vector<DerivedValue> {
    if (config == 2) return {};
    return {DerivedValue{"bandwidth", 8.0 * (1 << 20) / v[0], "GB/s"}};
  };
  Results r = detail::run_sweep(
      gpu, o, sweep,
      [&](std::size_t c, int) {
        Annotation a(c == 0 ? "scale" : c == 1 ? "add" : "fma");
        gpu.launch("k", 100.0 + c);
      },
      {}, services);
  const auto dir = std::filesystem::temp_directory_path() / "kprof_demo_shape";
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "d-").string();
  const auto paths = r.write_csv(prefix, "demo");
  r.write_json((dir / "demo.json").string());
  EXPECT_TRUE(Results::read_csv(prefix, "demo") == r);
  EXPECT_TRUE(Results::read_json((dir / "demo.json").string()) == r);
  EXPECT_GE(paths.size(), 4u);
  std::filesystem::remove_all(dir);
}
