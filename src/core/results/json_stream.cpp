#include "core/results/json_stream.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace kprof::detail {
namespace {

using DomBuilder = nlohmann::detail::json_sax_dom_parser<Json>;

// nlohmann's SAX events, routed: the document's own members to a DOM builder; a table's
// columns to its sink; a value inside a column that is itself a list or an object (a sweep
// value, a row's info columns) to a DOM of its own, handed to the sink whole.
class DocumentStream {
 public:
  DocumentStream(Json& head, const TableLookup& tables) : head_(head), tables_(tables) {}

  bool null() {
    return scalar([](DomBuilder& b) { return b.null(); }, [] { return Json(nullptr); });
  }
  bool boolean(bool v) {
    return scalar([v](DomBuilder& b) { return b.boolean(v); }, [v] { return Json(v); });
  }
  bool number_integer(std::int64_t v) {
    return scalar([v](DomBuilder& b) { return b.number_integer(v); }, [v] { return Json(v); });
  }
  bool number_unsigned(std::uint64_t v) {
    return scalar([v](DomBuilder& b) { return b.number_unsigned(v); }, [v] { return Json(v); });
  }
  bool number_float(double v, const std::string& text) {
    return scalar([&](DomBuilder& b) { return b.number_float(v, text); }, [v] { return Json(v); });
  }
  bool binary(Json::binary_t& v) {
    return scalar([&](DomBuilder& b) { return b.binary(v); }, [&] { return Json(v); });
  }
  bool string(std::string& v) {
    if (state_ == State::column) {
      sink_->text(std::move(v));
      return true;
    }
    return scalar([&](DomBuilder& b) { return b.string(v); }, [&] { return Json(v); });
  }

  bool start_object(std::size_t n) { return open(n, false); }
  bool start_array(std::size_t n) { return open(n, true); }
  bool end_object() { return close(false); }
  bool end_array() { return close(true); }

  bool key(std::string& k) {
    switch (state_) {
      case State::head:
        if (depth_ == 1 && (pending_ = tables_(k)) != nullptr) {
          pending_key_ = k;
          state_ = State::table_pending;
          return true;
        }
        return head_builder_.key(k);
      case State::table:
        column_ = sink_->column(k);
        state_ = column_ < 0 ? State::skip : State::column_pending;
        skip_depth_ = 0;
        return true;
      case State::nested:
        return nested_builder_->key(k);
      default:  // skip: a key inside a skipped value
        return true;
    }
  }

  // nlohmann's own exception, thrown as its DOM parser throws it.
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  enum class State {
    head,            // the document's own members: into the DOM
    table_pending,   // a table's key was read; an object streams, anything else is DOM
    table,           // inside a table's object: its column names
    column_pending,  // a column's name was read; a list is its values
    column,          // inside a column's list: each value to the sink
    nested,          // inside a list or object within a column: into a DOM of its own
    skip,            // a member a table does not have, or a column that is not a list
  };

  // A value that is not a list or an object: `add` gives it to a DOM builder, `make` makes it.
  template <class Add, class Make>
  bool scalar(Add add, Make make) {
    switch (state_) {
      case State::head:
        return add(head_builder_);
      case State::table_pending:
        resume_head();
        return add(head_builder_);
      case State::column_pending:
        sink_->not_a_list(column_);
        state_ = State::table;
        return true;
      case State::column:
        sink_->value(make());
        return true;
      case State::nested:
        return add(*nested_builder_);
      case State::skip:
        if (skip_depth_ == 0) state_ = State::table;
        return true;
      case State::table:
        return true;  // not reached: an object's members start with a key
    }
    return true;
  }

  bool open(std::size_t n, bool array) {
    switch (state_) {
      case State::head:
        ++depth_;
        return array ? head_builder_.start_array(n) : head_builder_.start_object(n);
      case State::table_pending:
        if (array) {
          resume_head();
          return open(n, array);
        }
        sink_ = pending_;
        sink_->mark_seen();
        state_ = State::table;
        return true;
      case State::column_pending:
        if (array) {
          sink_->begin(column_);
          state_ = State::column;
          return true;
        }
        sink_->not_a_list(column_);
        state_ = State::skip;
        skip_depth_ = 1;
        return true;
      case State::column:
        nested_value_ = Json();
        nested_builder_.emplace(nested_value_);
        nested_depth_ = 0;
        state_ = State::nested;
        return open(n, array);
      case State::nested:
        ++nested_depth_;
        return array ? nested_builder_->start_array(n) : nested_builder_->start_object(n);
      case State::skip:
        ++skip_depth_;
        return true;
      case State::table:
        return true;  // not reached
    }
    return true;
  }

  bool close(bool array) {
    switch (state_) {
      case State::head:
        --depth_;
        return array ? head_builder_.end_array() : head_builder_.end_object();
      case State::table:  // the table's object ends
        state_ = State::head;
        return true;
      case State::column:  // the column's list ends
        sink_->end();
        state_ = State::table;
        return true;
      case State::nested: {
        const bool ok = array ? nested_builder_->end_array() : nested_builder_->end_object();
        if (--nested_depth_ == 0) {
          nested_builder_.reset();
          state_ = State::column;
          sink_->value(std::move(nested_value_));
        }
        return ok;
      }
      case State::skip:
        if (--skip_depth_ == 0) state_ = State::table;
        return true;
      default:
        return true;  // not reached: nothing is open in the pending states
    }
  }

  // A table's key whose value is not an object: the key and its value go to the DOM, where
  // the reader finds a table of the wrong kind.
  void resume_head() {
    state_ = State::head;
    head_builder_.key(pending_key_);
  }

  Json& head_;
  const TableLookup& tables_;
  DomBuilder head_builder_{head_};
  State state_ = State::head;
  int depth_ = 0;  // of the document's own containers, while in the head
  std::string pending_key_;
  ColumnSink* pending_ = nullptr;
  ColumnSink* sink_ = nullptr;
  int column_ = -1;
  int skip_depth_ = 0;
  Json nested_value_;
  std::optional<DomBuilder> nested_builder_;
  int nested_depth_ = 0;
};

}  // namespace

Json parse_streaming(const std::string& text, const TableLookup& tables) {
  Json head;
  DocumentStream stream(head, tables);
  Json::sax_parse(text, &stream);
  return head;
}

}  // namespace kprof::detail
