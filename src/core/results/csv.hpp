// A small RFC 4180 CSV writer and reader, and the file helpers the results writers share
// (atomic write, whole-file read). A cell's number text is core/number_text.hpp's.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::detail {

namespace csv {

using Row = std::vector<std::string>;

// Appends one line: a field is quoted when it holds a comma, a quote, CR or LF, and its
// quotes are doubled. Lines end with "\n", as pandas writes them.
void append_row(std::string& out, const Row& fields);

// Every line of a CSV text. Accepts "\n" and "\r\n" line ends and skips blank lines (as
// pandas does). Throws FormatError naming `source` and the line for an unterminated quote or
// text after a closing quote.
std::vector<Row> parse(std::string_view text, const std::string& source);
// The same, a line at a time: `row` is called with each line's fields as they are read, so
// that a large file is never held as a list of lines (what `row` is given lasts for the call).
void for_each_row(std::string_view text, const std::string& source,
                  const std::function<void(const Row&)>& row);

}  // namespace csv

// The whole file; FormatError naming the file when it cannot be read.
std::string read_text_file(const std::string& path);
// Writes "<path>.tmp-<pid>" and renames it over `path`, so a reader never sees half a file
// and a failed write leaves the old file as it was. Overwrites `path`. Throws kprof::Error
// naming the file when it cannot be written.
void write_text_file_atomic(const std::string& path, const std::string& text);
// A tag (a function's name, from the front end) as part of a file name: a '/' or '\\' in it
// would leave the output folder, a NUL or control character would cut or garble the name.
std::string file_name_part(std::string tag);

}  // namespace kprof::detail
