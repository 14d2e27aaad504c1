// jinja2's tests (`x is defined`, `n is divisibleby 3`, ...) and the globals a chat
// template sees: range, dict, namespace, and transformers' raise_exception and
// strftime_now.
#include <ctime>
#include <string_view>
#include <unordered_map>

#include "chat/jinja/builtins.h"
#include "util/printable.h"

namespace kvchat::jinja {
namespace {

const Value& arg0(const CallArgs& a, const char* test) {
  const Value* v = a.get(0, "");
  if (!v) throw RenderError(std::string("test '") + test + "' needs an argument");
  return *v;
}

bool t_defined(Interpreter&, const Value& v, const CallArgs&) { return !v.is_undefined(); }
bool t_undefined(Interpreter&, const Value& v, const CallArgs&) { return v.is_undefined(); }
bool t_none(Interpreter&, const Value& v, const CallArgs&) { return v.is_none(); }
bool t_boolean(Interpreter&, const Value& v, const CallArgs&) { return v.is_bool(); }
bool t_true(Interpreter&, const Value& v, const CallArgs&) { return v.is_bool() && v.as_bool(); }
bool t_false(Interpreter&, const Value& v, const CallArgs&) { return v.is_bool() && !v.as_bool(); }
bool t_integer(Interpreter&, const Value& v, const CallArgs&) { return v.is_int(); }
bool t_float(Interpreter&, const Value& v, const CallArgs&) { return v.is_float(); }
bool t_number(Interpreter&, const Value& v, const CallArgs&) { return v.is_number(); }
bool t_string(Interpreter&, const Value& v, const CallArgs&) { return v.is_string(); }
bool t_mapping(Interpreter&, const Value& v, const CallArgs&) { return v.is_dict(); }
bool t_iterable(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
}
bool t_sequence(Interpreter&, const Value& v, const CallArgs&) {
  // Undefined too, as in jinja2 (it has __len__ and __getitem__).
  return v.is_string() || (v.is_list() && !v.is_iterator()) || v.is_dict() || v.is_undefined();
}
// jinja2's Undefined defines __call__ (to raise), so callable() is true for it.
bool t_callable(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_function() || v.is_undefined();
}
bool t_lower(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() && to_lower(v.as_string()) == v.as_string();
}
bool t_upper(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() && to_upper(v.as_string()) == v.as_string();
}

std::int64_t need_int(const Value& v, const char* test) {
  if (!v.is_int() && !v.is_bool()) {
    if (v.is_float()) return static_cast<std::int64_t>(v.as_double());
    throw RenderError(std::string("test '") + test + "' needs a number, got " + v.type_name());
  }
  return v.as_int();
}
bool t_even(Interpreter&, const Value& v, const CallArgs&) { return need_int(v, "even") % 2 == 0; }
bool t_odd(Interpreter&, const Value& v, const CallArgs&) { return need_int(v, "odd") % 2 != 0; }
bool t_divisibleby(Interpreter&, const Value& v, const CallArgs& a) {
  const std::int64_t d = need_int(arg0(a, "divisibleby"), "divisibleby");
  if (d == 0) throw RenderError("integer modulo by zero");
  return need_int(v, "divisibleby") % d == 0;
}

bool t_in(Interpreter& in, const Value& v, const CallArgs& a) {
  return binary_op("in", v, arg0(a, "in"), in).truthy();
}
bool t_eq(Interpreter&, const Value& v, const CallArgs& a) {
  return values_equal(v, arg0(a, "eq"));
}
bool t_ne(Interpreter&, const Value& v, const CallArgs& a) {
  return !values_equal(v, arg0(a, "ne"));
}
bool t_lt(Interpreter&, const Value& v, const CallArgs& a) { return value_less(v, arg0(a, "lt")); }
bool t_gt(Interpreter&, const Value& v, const CallArgs& a) { return value_less(arg0(a, "gt"), v); }
bool t_le(Interpreter&, const Value& v, const CallArgs& a) { return !value_less(arg0(a, "le"), v); }
bool t_ge(Interpreter&, const Value& v, const CallArgs& a) { return !value_less(v, arg0(a, "ge")); }

bool t_sameas(Interpreter&, const Value& v, const CallArgs& a) {
  const Value& o = arg0(a, "sameas");
  if (v.kind() != o.kind()) return false;
  if (v.is_list()) return &v.list_obj() == &o.list_obj();
  if (v.is_dict()) return &v.dict_obj() == &o.dict_obj();
  if (v.is_function()) return &v.function_obj() == &o.function_obj();
  return values_equal(v, o);
}

bool t_filter(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() && find_filter(v.as_string());
}
bool t_test(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() && find_test(v.as_string());
}

const std::unordered_map<std::string_view, TestFn>& test_table() {
  static const std::unordered_map<std::string_view, TestFn> table = {
      {"defined", t_defined},
      {"undefined", t_undefined},
      {"none", t_none},
      {"None", t_none},
      {"boolean", t_boolean},
      {"true", t_true},
      {"false", t_false},
      {"integer", t_integer},
      {"float", t_float},
      {"number", t_number},
      {"string", t_string},
      {"mapping", t_mapping},
      {"iterable", t_iterable},
      {"sequence", t_sequence},
      {"callable", t_callable},
      {"lower", t_lower},
      {"upper", t_upper},
      {"even", t_even},
      {"odd", t_odd},
      {"divisibleby", t_divisibleby},
      {"in", t_in},
      {"eq", t_eq},
      {"equalto", t_eq},
      {"==", t_eq},
      {"ne", t_ne},
      {"!=", t_ne},
      {"lt", t_lt},
      {"lessthan", t_lt},
      {"<", t_lt},
      {"gt", t_gt},
      {"greaterthan", t_gt},
      {">", t_gt},
      {"le", t_le},
      {"<=", t_le},
      {"ge", t_ge},
      {">=", t_ge},
      {"sameas", t_sameas},
      {"filter", t_filter},
      {"test", t_test},
  };
  return table;
}

// jinja2's sandbox refuses ranges longer than this.
constexpr std::int64_t kMaxRange = 100000;

Value g_range(Interpreter& in, const CallArgs& a) {
  std::int64_t start = 0, stop = 0, step = 1;
  auto num = [](const Value& v) {
    if (!v.is_int() && !v.is_bool())
      throw RenderError("'" + v.type_name() + "' object cannot be interpreted as an integer");
    return v.as_int();
  };
  const auto& p = a.positional;
  if (p.size() == 1) {
    stop = num(p[0]);
  } else if (p.size() == 2 || p.size() == 3) {
    start = num(p[0]);
    stop = num(p[1]);
    if (p.size() == 3) step = num(p[2]);
  } else {
    throw RenderError("range expected 1 to 3 arguments");
  }
  if (step == 0) throw RenderError("range() arg 3 must not be zero");
  std::vector<Value> out;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (static_cast<std::int64_t>(out.size()) >= kMaxRange)
      throw RenderError("range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    out.emplace_back(i);
  }
  in.charge(static_cast<std::int64_t>(out.size()));
  return Value::list(std::move(out));
}

Value make_dict(const CallArgs& a, bool is_namespace) {
  Value d = Value::dict();
  d.dict_obj().is_namespace = is_namespace;
  for (const Value& p : a.positional) {
    if (p.is_dict()) {
      for (const auto& [k, v] : p.dict_obj().items) d.dict_obj().set(k, v);
    } else {
      for (const Value& pair : iterate(p)) {
        const Items kv = iterate(pair);
        if (kv.size() != 2)
          throw RenderError("dictionary update sequence element has the wrong length");
        d.dict_obj().set(kv[0], kv[1]);
      }
    }
  }
  for (const auto& [k, v] : a.keyword) d.dict_obj().set(Value(k), v);
  return d;
}

Value g_dict(Interpreter&, const CallArgs& a) { return make_dict(a, false); }
Value g_namespace(Interpreter&, const CallArgs& a) { return make_dict(a, true); }

// The template's own words reach the terminal and the window: control characters
// escaped, cut at kPrintableMaxBytes.
Value g_raise_exception(Interpreter&, const CallArgs& a) {
  throw RenderError(a.positional.empty() ? std::string("raise_exception() called")
                                         : printable(a.positional[0].str()));
}

Value g_strftime_now(Interpreter& in, const CallArgs& a) {
  const std::string fmt = str_arg(a, 0, "format", "");
  const std::time_t t = static_cast<std::time_t>(in.now_unix_seconds());
  std::tm tm{};
  localtime_r(&t, &tm);
  if (fmt.empty()) return Value("");
  check_string_size(fmt.size() * 8 + 64);
  const Charge scratch(fmt.size() * 8 + 64);
  std::string buf(fmt.size() * 8 + 64, '\0');
  const size_t n = std::strftime(buf.data(), buf.size(), fmt.c_str(), &tm);
  buf.resize(n);
  return Value(std::move(buf));
}

}  // namespace

TestFn find_test(std::string_view name) {
  const auto& t = test_table();
  const auto it = t.find(name);
  return it == t.end() ? nullptr : it->second;
}

void install_globals(Scope& scope) {
  scope.vars["range"] = Value::function("range", g_range);
  scope.vars["dict"] = Value::function("dict", g_dict);
  scope.vars["namespace"] = Value::function("namespace", g_namespace);
  scope.vars["raise_exception"] = Value::function("raise_exception", g_raise_exception);
  scope.vars["strftime_now"] = Value::function("strftime_now", g_strftime_now);
}

}  // namespace kvchat::jinja
