// The JSON reader streams a document's tables into the results rather than building a DOM of
// them: tables and columns of every shape, members it does not know, and values that are
// lists or objects within a column, read and refused as a DOM reader would.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "kprof/errors.hpp"
#include "kprof/results.hpp"
#include "results_io_support.hpp"

namespace kprof {
namespace {

using namespace kprof::testing;

// Two records, a row with info columns (objects within a column) and a config with a NaN
// parameter (an object within the sweep).
Results two_records() {
  Parts p;
  p.sweep = Sweep::list({"n", "scale"}, {{std::int64_t{1}, kNan}});
  p.records = {record(0, 0, "k", 0, 1.5), record(0, 1, "k", 0, 2.5)};
  Row r = row("outer/inner", 0, "gpu__time_duration.sum", 2.0);
  InfoStat numeric;
  numeric.name = "temperature";
  numeric.numeric = true;
  numeric.mean = 40;
  numeric.min = 39;
  numeric.max = 41;
  numeric.stddev = 1;
  InfoStat text;
  text.name = "driver";
  text.text = "580.1";
  r.info = {numeric, text};
  p.rows = {r};
  return p.make();
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the document";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The FormatError that reading `text` throws; empty when none is thrown.
std::string error_of(const std::string& text) {
  try {
    Results::from_json(text);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& text, std::initializer_list<std::string> parts) {
  const std::string message = error_of(text);
  ASSERT_FALSE(message.empty()) << "no FormatError thrown";
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(ResultsJsonStream, ListsAndObjectsWithinColumnsReadBackExactly) {
  const Results results = two_records();
  const Results back = Results::from_json(results.to_json());
  EXPECT_EQ(back, results);
  ASSERT_EQ(back.rows().size(), 1u);
  ASSERT_EQ(back.rows()[0].info.size(), 2u);
  EXPECT_EQ(back.rows()[0].info[0].max, 41);
  EXPECT_EQ(back.rows()[0].info[1].text, "580.1");
}

TEST(ResultsJsonStream, MembersATableLacksAreSkippedWhateverTheirShape) {
  const std::string doc = two_records().to_json();
  const std::string extra = R"("extra":{"a":[1,{"b":[2,"x"]}],"c":null},"more":[[1],{"d":[]}],)"
                            R"("n":3,"s":"text",)";
  const std::string inside = replace_once(doc, "\"records\":{", "\"records\":{" + extra);
  EXPECT_EQ(Results::from_json(inside), two_records());
  // A member named like a table below the top is no table.
  const std::string below = replace_once(
      doc, "\"session\":{", R"("notes":{"records":{"value":["x"]},"rows":[1]},"session":{)");
  EXPECT_EQ(Results::from_json(below), two_records());
}

TEST(ResultsJsonStream, TablesAndColumnsOfTheWrongKindSayWhich) {
  const std::string doc = two_records().to_json();
  const std::string records_start = "\"records\":{";
  const std::size_t from = doc.find(records_start);
  const std::size_t to = doc.find(",\"samples\":");
  std::string as_list = doc;
  as_list.replace(from, to - from, "\"records\":[1,2]");
  expect_error(as_list, {"string: ", "records is not a JSON object"});
  expect_error(replace_once(doc, "\"value\":[1.5,2.5]", "\"value\":{\"a\":[1.5,2.5]}"),
               {"records.value is not a list"});
  expect_error(replace_once(doc, "\"value\":[1.5,2.5]", "\"value\":1.5"),
               {"records.value is not a list"});
  std::string without = doc;
  without.replace(from, to + 1 - from, "");
  expect_error(without, {"the document has no \"records\""});
}

TEST(ResultsJsonStream, TheFirstBadValueIsNamedByItemThenColumn) {
  const std::string doc = two_records().to_json();
  // Item 0's unit comes before item 1's value, as the items are read.
  const std::string both =
      replace_once(replace_once(doc, "\"value\":[1.5,2.5]", "\"value\":[1.5,\"x\"]"),
                   "\"unit\":[\"ns\",\"ns\"]", "\"unit\":[5,\"ns\"]");
  expect_error(both, {"records.unit[0]: expected a string, found 5"});
  EXPECT_EQ(error_of(both).find("records.value"), std::string::npos) << error_of(both);
  // A bad value inside a list within a column.
  expect_error(replace_once(doc, "\"text\":\"580.1\"", "\"text\":580"),
               {"rows.info[0]: expected a string, found 580"});
}

TEST(ResultsJsonStream, ATablesShapeIsCheckedBeforeItsValuesAndTheFormatFirst) {
  const std::string doc = two_records().to_json();
  const std::string both =
      replace_once(replace_once(doc, "\"value\":[1.5,2.5]", "\"value\":[\"x\",2.5]"),
                   "\"run\":[0,1]", "\"run\":[0]");
  expect_error(both, {"records.run has 1 values, records.config has 2"});
  expect_error(replace_once(both, "kprof-results", "other"), {"not a kprof results document"});
}

}  // namespace
}  // namespace kprof
