// The values a Jinja template computes with, modelled on the Python objects jinja2
// hands around: undefined, None, bool, int, float, str, list/tuple, dict (insertion
// ordered) and callables (builtins and macros). Lists and dicts are shared by
// reference, as in Python, so `ns.items.append(x)` and namespace attribute assignment
// are seen by every holder. Strings are UTF-8; indexing, slicing and length count
// code points, as Python's str does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat/jinja/value_budget.h"

namespace kvchat::jinja {

// A template error at render time (raise_exception, type errors, undefined access).
// Internal to the interpreter: ChatTemplate turns it into an Error result.
struct RenderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How deeply lists and dicts may nest where they are printed or compared (and in
// tojson): a namespace can hold itself, and recursion must stay on the stack.
inline constexpr int kMaxValueDepth = 512;

class Value;
class Interpreter;

// A string value's text: immutable and shared by every copy of the value, so copying a
// value (a lookup, a list item, `[s] * n`) never copies its text; charged once.
struct StringObject {
  explicit StringObject(std::string s);
  const std::string text;
  Charge charge;
};

struct ListObject {
  std::vector<Value> items;
  Charge charge;          // the item slots (charged by Value::list)
  int depth = 1;          // 1 + the deepest item's depth (set by Value::list)
  bool is_tuple = false;  // prints as (a, b)
  // A one-shot Python iterator (what jinja2's map/select/unique/items/reverse filters
  // return): always truthy, no len(), no subscripts, not JSON-serializable, and empty
  // once iterated. `iterator_type` is its Python type name ("generator").
  std::string iterator_type;
  bool is_iterator() const { return !iterator_type.empty(); }
};

struct DictObject {
  std::vector<std::pair<Value, Value>> items;  // insertion order, unique keys
  Charge charge;                               // the object and its item slots, as they grow
  bool is_namespace = false;                   // namespace(): attributes are assignable
  int depth = 1;  // 1 + the deepest key's or value's depth ever set (a bound, not exact)

  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
  const Value* find(const char* key) const { return find(std::string_view(key)); }
  void set(Value key, Value value);
};

// Call arguments: positional then keyword, in call order.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;

  // The argument at `index` or named `name`, or nullptr.
  const Value* get(size_t index, std::string_view name) const;
};

struct FunctionObject {
  std::string name;
  std::function<Value(Interpreter&, const CallArgs&)> call;
  Charge charge;
};

class Value {
 public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Function };

  Value() = default;  // undefined
  static Value undefined(std::string hint = {}) {
    Value v;
    v.str_ = make_string(std::move(hint));
    return v;
  }
  static Value none() { return Value(Kind::None); }
  // A markupsafe.Markup string, what |safe and |escape return: `+` with a plain string
  // escapes the plain side (Markup.__add__ / __radd__), |string keeps it Markup; it
  // prints, compares and serializes as its text. Other operations give plain strings.
  static Value markup(std::string s) {
    Value v(std::move(s));
    v.markup_ = true;
    return v;
  }
  Value(bool b) : kind_(Kind::Bool), int_(b) {}                                           // NOLINT
  Value(int v) : kind_(Kind::Int), int_(v) {}                                             // NOLINT
  Value(std::int64_t v) : kind_(Kind::Int), int_(v) {}                                    // NOLINT
  Value(double v) : kind_(Kind::Float), float_(v) {}                                      // NOLINT
  Value(std::string s) : kind_(Kind::String), str_(make_string(std::move(s))) {}          // NOLINT
  Value(std::string_view s) : Value(std::string(s)) {}                                    // NOLINT
  Value(const char* s) : Value(std::string(s)) {}                                         // NOLINT
  Value(std::shared_ptr<ListObject> l) : kind_(Kind::List), list_(std::move(l)) {}        // NOLINT
  Value(std::shared_ptr<DictObject> d) : kind_(Kind::Dict), dict_(std::move(d)) {}        // NOLINT
  Value(std::shared_ptr<FunctionObject> f) : kind_(Kind::Function), fn_(std::move(f)) {}  // NOLINT

  static Value list(std::vector<Value> items = {}, bool tuple = false);
  static Value iterator(std::vector<Value> items, std::string type = "generator");
  static Value dict();
  static Value function(std::string name, std::function<Value(Interpreter&, const CallArgs&)> fn);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::Undefined; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_number() const {
    return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool;
  }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_markup() const { return kind_ == Kind::String && markup_; }
  bool is_list() const { return kind_ == Kind::List; }
  bool is_iterator() const { return kind_ == Kind::List && list_->is_iterator(); }
  bool is_dict() const { return kind_ == Kind::Dict; }
  bool is_function() const { return kind_ == Kind::Function; }

  bool as_bool() const { return int_ != 0; }
  std::int64_t as_int() const { return int_; }  // Int and Bool
  double as_double() const { return kind_ == Kind::Float ? float_ : static_cast<double>(int_); }
  const std::string& as_string() const { return str_ ? str_->text : empty_string(); }
  const std::string& undefined_hint() const { return as_string(); }
  ListObject& list_obj() const { return *list_; }
  DictObject& dict_obj() const { return *dict_; }
  const FunctionObject& function_obj() const { return *fn_; }
  const std::vector<Value>& items() const { return list_->items; }

  // Python truthiness.
  bool truthy() const;
  // Python's len() for str (code points), list and dict; -1 otherwise.
  std::int64_t length() const;
  // str(x) as jinja2 prints it: None -> "None", True -> "True", lists as repr, undefined -> "".
  std::string str() const;
  // repr(x): strings quoted the way Python does.
  std::string repr() const;
  // How deeply lists and dicts nest in this value: 0 for scalars, 1 for a flat list.
  int depth() const;
  // The Python type name, for error messages ("str", "int", "dict", ...).
  std::string type_name() const;

 private:
  explicit Value(Kind k) : kind_(k) {}
  static std::shared_ptr<const StringObject> make_string(std::string s);  // null for ""
  static const std::string& empty_string();
  void append_repr(std::string& out, int depth) const;
  Kind kind_ = Kind::Undefined;
  bool markup_ = false;  // String: a Markup
  std::int64_t int_ = 0;
  double float_ = 0;
  std::shared_ptr<const StringObject> str_;  // the string, or the undefined value's hint
  std::shared_ptr<ListObject> list_;
  std::shared_ptr<DictObject> dict_;
  std::shared_ptr<FunctionObject> fn_;
};

// The items of a list being built by a builtin (split, map, sort, ...): each time the
// slots grow they are bounded like one string and charged first, so a builtin that
// makes millions of items stops at the budget rather than after the allocation.
class ListBuilder {
 public:
  void push_back(Value v) {
    if (items_.size() == items_.capacity()) grow();
    items_.push_back(std::move(v));
  }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  // The list (or iterator) value, which charges its own slots; the builder is empty
  // and uncharged afterwards.
  Value list(bool tuple = false) { return done(Value::list(std::move(items_), tuple)); }
  Value iterator(std::string type = "generator") {
    return done(Value::iterator(std::move(items_), std::move(type)));
  }

 private:
  void grow();
  Value done(Value v) {
    items_ = {};
    charge_ = Charge();
    return v;
  }
  std::vector<Value> items_;
  Charge charge_;
};

// Python ==: numbers by value (True == 1), strings, lists and dicts deeply; undefined
// equals only undefined.
bool values_equal(const Value& a, const Value& b);
// Python <: numbers, strings (by code point), lists lexicographically. Throws RenderError
// for other types.
bool value_less(const Value& a, const Value& b);
// repr(x) for an error message: at most ~200 bytes (a long string's start, its size).
std::string repr_for_message(const Value& v);
// Python's repr of a float ("1.0", "0.30000000000000004", "1e+16", "1e-05", "inf", "nan").
std::string format_float(double v);

// UTF-8 helpers: decode to code points and back (invalid bytes map to U+FFFD).
std::u32string utf8_decode(std::string_view s);
std::string utf8_encode(std::u32string_view s);
// Python's str.isspace() for one code point.
bool is_python_space(char32_t cp);

}  // namespace kvchat::jinja
