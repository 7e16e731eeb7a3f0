#include "core/results/csv.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "kprof/errors.hpp"

namespace kprof::detail {
namespace csv {
namespace {

bool needs_quotes(std::string_view field) {
  return field.find_first_of(",\"\r\n") != std::string_view::npos;
}

void append_field(std::string& out, std::string_view field) {
  if (!needs_quotes(field)) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// Reads one CSV text, field by field. Holds the state of the field being read.
class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  void run(const std::function<void(const Row&)>& row) {
    row_callback_ = &row;
    for (pos_ = 0; pos_ < text_.size(); ++pos_) in_quotes_ ? quoted_char() : plain_char();
    if (in_quotes_) fail(quote_line_, "a quoted field is not closed");
    end_line();
  }

 private:
  // The characters from pos_ up to the next one that `stops` go to the field at once: most of
  // a file is such runs, and a character at a time is most of the time a file takes to read.
  template <class Stops>
  void take_run(Stops stops) {
    std::size_t end = pos_;
    while (end < text_.size() && !stops(text_[end])) ++end;
    if (end > pos_ + 1) {
      field_.append(text_.substr(pos_, end - pos_ - 1));
      pos_ = end - 1;
    }
  }

  void quoted_char() {
    take_run([](char c) { return c == '"' || c == '\n'; });
    const char c = text_[pos_];
    if (c == '\n') ++line_;
    if (c != '"') {
      field_ += c;
    } else if (next_is('"')) {
      field_ += '"';
      ++pos_;
    } else {
      in_quotes_ = false;
    }
  }

  void plain_char() {
    if (!was_quoted_)
      take_run([](char c) { return c == ',' || c == '"' || c == '\r' || c == '\n'; });
    const char c = text_[pos_];
    if (c == ',') return end_field();
    if (c == '\r' && next_is('\n')) ++pos_;
    if (text_[pos_] == '\n') return end_line();
    if (was_quoted_) fail(line_, "text after the closing quote of a field");
    if (c == '"') {
      if (!field_.empty()) fail(line_, "a quote inside a field that is not quoted");
      in_quotes_ = was_quoted_ = true;
      quote_line_ = line_;
      return;
    }
    field_ += c;
  }

  bool next_is(char c) const { return pos_ + 1 < text_.size() && text_[pos_ + 1] == c; }

  // The row's strings are kept from line to line, their buffers swapped with the field's, so
  // that a file of millions of fields is not as many allocations.
  void end_field() {
    if (fields_ < row_.size())
      row_[fields_].swap(field_);
    else
      row_.push_back(std::move(field_));
    ++fields_;
    field_.clear();
    was_quoted_ = false;
  }

  void end_line() {
    const bool blank = fields_ == 0 && field_.empty() && !was_quoted_;
    if (!blank) {
      end_field();
      row_.resize(fields_);
      (*row_callback_)(row_);
      fields_ = 0;
    }
    ++line_;
  }

  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw FormatError(source_ + ": line " + std::to_string(line) + ": " + what);
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  std::size_t quote_line_ = 1;
  bool in_quotes_ = false;
  bool was_quoted_ = false;
  std::string field_;
  Row row_;
  std::size_t fields_ = 0;  // of row_, read on this line
  const std::function<void(const Row&)>* row_callback_ = nullptr;
};

}  // namespace

void append_row(std::string& out, const Row& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    append_field(out, fields[i]);
  }
  out += '\n';
}

void for_each_row(std::string_view text, const std::string& source,
                  const std::function<void(const Row&)>& row) {
  Parser(text, source).run(row);
}

std::vector<Row> parse(std::string_view text, const std::string& source) {
  std::vector<Row> rows;
  for_each_row(text, source, [&rows](const Row& cells) { rows.push_back(cells); });
  return rows;
}

}  // namespace csv

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw FormatError(path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open: " + std::strerror(errno));
  // Read at its size in one go: a stream copied through a growing buffer moves a large file
  // several times over. A file whose size cannot be told (a pipe) is read to its end instead.
  std::string text;
  const std::streamoff size = in.seekg(0, std::ios::end) ? std::streamoff(in.tellg()) : -1;
  in.clear();
  if (size > 0 && in.seekg(0)) {
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw FormatError(path + ": cannot read: " + std::strerror(errno));
  in.clear();
  std::ostringstream rest;  // what follows, when the file grew or has no size
  rest << in.rdbuf();
  if (in.bad()) throw FormatError(path + ": cannot read: " + std::strerror(errno));
  text += std::move(rest).str();
  return text;
}

std::string file_name_part(std::string tag) {
  for (char& c : tag)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
  return tag;
}

void write_text_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      const std::string why = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error("cannot write " + path + ": " + why);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace kprof::detail
