// What a results file must hold beyond its syntax, checked once for every reader (JSON, and
// through it Parquet; CSV): values a profile can give, and configs that exist. A file edited by
// hand or written by another tool is refused where it is read, naming the place, instead of
// being reported, plotted and exported.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "kprof/results.hpp"

namespace kprof::detail {

// Names an item of a table for messages: the JSON reader's ("samples", "value", 12) is
// "samples.value[12]", the CSV reader's a file and line.
using ItemPlace =
    std::function<std::string(std::string_view table, std::string_view field, std::size_t index)>;

// Throws FormatError "<source>: <place>: <what is wrong>; <what is valid>" for the first item
// that names a config the sweep lacks (records, samples, rows, configs, runs, info), or a
// duration (kDurationMetric) below zero (records, samples, rows).
void check_read_results(const Results& results, const std::string& source, const ItemPlace& place);

}  // namespace kprof::detail
