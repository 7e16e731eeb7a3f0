// A results document read as it streams by: its tables, which are nearly all of it, go
// straight into the core's structs column by column; the rest (format, session, sweep) becomes
// a small DOM. A DOM of the whole document would take several times the memory and time of
// the text (a million records are tens of millions of JSON values).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/results/json_decode.hpp"

namespace kprof::detail {

// Where one table's columns go: the stream names a column, then hands its values in order.
class ColumnSink {
 public:
  explicit ColumnSink(const char* name) : name_(name) {}
  virtual ~ColumnSink() = default;
  // The table's key in the document ("records").
  const char* name() const { return name_; }
  // The index of the column named `name`, or -1 for a member the table does not have.
  virtual int column(std::string_view name) const = 0;
  virtual void begin(int column) = 0;       // a list of values follows, from index 0
  virtual void not_a_list(int column) = 0;  // the column's value is not a list
  virtual void value(Json&& value) = 0;
  virtual void text(std::string&& value) = 0;  // a string value, kept without a copy
  virtual void end() = 0;                      // the list is complete

  // Whether the document had this table as an object.
  bool seen() const { return seen_; }
  void mark_seen() { seen_ = true; }

 private:
  const char* name_;
  bool seen_ = false;
};

// The columns of a table of T, decoded into a vector<T> as they come, and what was wrong with
// them, kept so that the reader reports it in the order a DOM reader would (the table's
// structure first, then the first bad value by item).
template <class T, class Fields>
class TableSink final : public ColumnSink {
 public:
  // A column's state once read: absent, not a list, or a list of `count` values.
  struct Column {
    const char* name;
    bool present = false;
    bool list = false;
    std::size_t count = 0;
  };
  // The first value of the wrong kind: its item, its column and why.
  struct Error {
    std::size_t item;
    int column;
    std::string what;
  };

  TableSink(const char* name, Fields fields) : ColumnSink(name), fields_(fields) {
    const T probe{};
    fields_(probe, [&](const char* name, const auto&) { columns_.push_back({name}); });
  }

  const std::vector<Column>& columns() const { return columns_; }
  const std::optional<Error>& error() const { return error_; }
  // The items, `count` of them (the length of every column, checked by the caller).
  std::vector<T> take(std::size_t count) {
    items_.resize(count);
    return std::move(items_);
  }

  int column(std::string_view name) const override {
    for (std::size_t k = 0; k < columns_.size(); ++k)
      if (name == columns_[k].name) return static_cast<int>(k);
    return -1;
  }
  void begin(int column) override {
    current_ = column;
    index_ = 0;
    columns_[column] = {columns_[column].name, true, true, 0};
  }
  void not_a_list(int column) override {
    columns_[column] = {columns_[column].name, true, false, 0};
  }
  void value(Json&& value) override {
    put([&](auto& field) { decode(value, field); });
  }
  void text(std::string&& value) override {
    put([&](auto& field) {
      if constexpr (std::is_same_v<std::decay_t<decltype(field)>, std::string>)
        field = std::move(value);
      else
        decode(Json(std::move(value)), field);
    });
  }
  void end() override { columns_[current_].count = index_; }

 private:
  // Stores the next value of the current column into its item, growing the items as needed.
  template <class Store>
  void put(Store&& store) {
    if (index_ >= items_.size()) items_.resize(index_ + 1);
    int k = 0;
    try {
      fields_(items_[index_], [&](const char*, auto& field) {
        if (k++ == current_) store(field);
      });
    } catch (const BadValue& e) {
      if (!error_ || index_ < error_->item || (index_ == error_->item && current_ < error_->column))
        error_ = Error{index_, current_, e.what};
    }
    ++index_;
  }

  Fields fields_;
  std::vector<Column> columns_;
  std::vector<T> items_;
  std::optional<Error> error_;
  int current_ = 0;
  std::size_t index_ = 0;
};

// The table named `key` at the top of the document, or null for a member read into the DOM.
using TableLookup = std::function<ColumnSink*(std::string_view key)>;

// Parses `text`: a top-level member that `tables` names and whose value is an object streams
// into its sink; everything else is returned as a DOM (such a member left out of it). Throws
// nlohmann's parse_error or out_of_range as Json::parse does.
Json parse_streaming(const std::string& text, const TableLookup& tables);

}  // namespace kprof::detail
