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

struct ListObject {
  std::vector<Value> items;
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
};

class Value {
 public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Function };

  Value() = default;  // undefined
  static Value undefined(std::string hint = {}) {
    Value v;
    v.str_ = std::move(hint);
    return v;
  }
  static Value none() { return Value(Kind::None); }
  Value(bool b) : kind_(Kind::Bool), int_(b) {}                                 // NOLINT
  Value(int v) : kind_(Kind::Int), int_(v) {}                                   // NOLINT
  Value(std::int64_t v) : kind_(Kind::Int), int_(v) {}                          // NOLINT
  Value(double v) : kind_(Kind::Float), float_(v) {}                            // NOLINT
  Value(std::string s) : kind_(Kind::String), str_(std::move(s)) {}             // NOLINT
  Value(std::string_view s) : kind_(Kind::String), str_(s) {}                   // NOLINT
  Value(const char* s) : kind_(Kind::String), str_(s) {}                        // NOLINT
  Value(std::shared_ptr<ListObject> l) : kind_(Kind::List), list_(std::move(l)) {}      // NOLINT
  Value(std::shared_ptr<DictObject> d) : kind_(Kind::Dict), dict_(std::move(d)) {}      // NOLINT
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
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_list() const { return kind_ == Kind::List; }
  bool is_iterator() const { return kind_ == Kind::List && list_->is_iterator(); }
  bool is_dict() const { return kind_ == Kind::Dict; }
  bool is_function() const { return kind_ == Kind::Function; }

  bool as_bool() const { return int_ != 0; }
  std::int64_t as_int() const { return int_; }  // Int and Bool
  double as_double() const { return kind_ == Kind::Float ? float_ : static_cast<double>(int_); }
  const std::string& as_string() const { return str_; }
  const std::string& undefined_hint() const { return str_; }
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
  void append_repr(std::string& out, int depth) const;
  Kind kind_ = Kind::Undefined;
  std::int64_t int_ = 0;
  double float_ = 0;
  std::string str_;  // the string, or the undefined value's name for error messages
  std::shared_ptr<ListObject> list_;
  std::shared_ptr<DictObject> dict_;
  std::shared_ptr<FunctionObject> fn_;
};

// Python ==: numbers by value (True == 1), strings, lists and dicts deeply; undefined
// equals only undefined.
bool values_equal(const Value& a, const Value& b);
// Python <: numbers, strings (by code point), lists lexicographically. Throws RenderError
// for other types.
bool value_less(const Value& a, const Value& b);
// Python's repr of a float ("1.0", "0.30000000000000004", "1e+16", "1e-05", "inf", "nan").
std::string format_float(double v);

// UTF-8 helpers: decode to code points and back (invalid bytes map to U+FFFD).
std::u32string utf8_decode(std::string_view s);
std::string utf8_encode(std::u32string_view s);
// Python's str.isspace() for one code point.
bool is_python_space(char32_t cp);

}  // namespace kvchat::jinja
