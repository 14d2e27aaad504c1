// Python's binary operators on template values.
#include <cmath>

#include "chat/jinja/builtins.h"
#include "chat/jinja/interpreter.h"

namespace kvchat::jinja {
namespace {

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  throw RenderError("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" +
                    b.type_name() + "'");
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  const bool ints = !a.is_float() && !b.is_float();
  if (op == "+")
    return ints ? Value(a.as_int() + b.as_int()) : Value(a.as_double() + b.as_double());
  if (op == "-")
    return ints ? Value(a.as_int() - b.as_int()) : Value(a.as_double() - b.as_double());
  if (op == "*")
    return ints ? Value(a.as_int() * b.as_int()) : Value(a.as_double() * b.as_double());
  if (op == "/") {
    if (b.as_double() == 0) throw RenderError("division by zero");
    return Value(a.as_double() / b.as_double());
  }
  if (op == "//" || op == "%") {
    if (ints) {
      const std::int64_t x = a.as_int(), y = b.as_int();
      if (y == 0)
        throw RenderError(op == "%" ? "integer modulo by zero"
                                    : "integer division or modulo by zero");
      std::int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        --q;
        r += y;
      }
      return op == "//" ? Value(q) : Value(r);
    }
    const double x = a.as_double(), y = b.as_double();
    if (y == 0) throw RenderError("float modulo");
    const double q = std::floor(x / y);
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return op == "//" ? Value(q) : Value(r);
  }
  if (op == "**") {
    if (ints && b.as_int() >= 0) {
      std::int64_t r = 1, base = a.as_int();
      for (std::int64_t e = b.as_int(); e > 0 && r != 0; --e) {
        if (e > 64 && (base > 1 || base < -1)) throw RenderError("integer power too large");
        r *= base;
      }
      return Value(r);
    }
    return Value(std::pow(a.as_double(), b.as_double()));
  }
  unsupported(op, a, b);
}

Value repeat(const Value& seq, std::int64_t n, const Interpreter& in) {
  if (n < 0) n = 0;
  // The size of the result, checked without overflow; an empty sequence stays empty
  // however large n is (no n-step loop over nothing).
  const std::size_t unit =
      seq.is_string() ? seq.as_string().size() : seq.items().size() * sizeof(Value);
  if (unit == 0) n = 0;
  if (unit != 0 && static_cast<std::uint64_t>(n) > in.limits().max_output_bytes / unit) {
    in.check_size(in.limits().max_output_bytes + 1);  // throws
  }
  if (seq.is_string()) {
    in.check_size(seq.as_string().size() * static_cast<std::size_t>(n));
    const Charge scratch(seq.as_string().size() *
                         static_cast<std::size_t>(n));  // until the value holds it
    const std::size_t total = seq.as_string().size() * static_cast<std::size_t>(n);
    std::string out;
    out.reserve(total);
    if (total > 0) {
      out = seq.as_string();
      while (out.size() * 2 <= total) out.append(out);  // doubling: 'x' * 8000000 in 23 copies
      out.append(out, 0, total - out.size());
    }
    return Value(std::move(out));
  }
  in.check_size(seq.items().size() * static_cast<std::size_t>(n) * sizeof(Value));
  const Charge scratch(seq.items().size() * static_cast<std::size_t>(n) * sizeof(Value));
  std::vector<Value> out;
  out.reserve(seq.items().size() * static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    out.insert(out.end(), seq.items().begin(), seq.items().end());
  return Value::list(std::move(out), seq.list_obj().is_tuple);
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::String:
      if (!item.is_string())
        throw RenderError("'in <string>' requires string as left operand, not " + item.type_name());
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::List:
      for (const Value& v : iterate(container))
        if (values_equal(v, item)) return true;
      return false;
    case Value::Kind::Dict: return container.dict_obj().find(item) != nullptr;
    case Value::Kind::Undefined: return false;
    default: throw RenderError("argument of type '" + container.type_name() + "' is not iterable");
  }
}

}  // namespace

Value binary_op(const std::string& op, const Value& a, const Value& b, const Interpreter& in) {
  if (op == "~") {
    std::string a_text, b_text;  // str() of what is not a string; strings are not copied
    const std::string& s = a.is_string() ? a.as_string() : (a_text = a.str());
    const std::string& t = b.is_string() ? b.as_string() : (b_text = b.str());
    in.check_size(s.size() + t.size());
    const Charge scratch(s.size() + t.size());  // until the value holds it
    std::string out;
    out.reserve(s.size() + t.size());
    out += s;
    out += t;
    return Value(std::move(out));
  }
  if (op == "==") return Value(values_equal(a, b));
  if (op == "!=") return Value(!values_equal(a, b));
  if (op == "in") return Value(contains(b, a));
  if (op == "not in") return Value(!contains(b, a));
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  if (op == "<") return Value(value_less(a, b));
  if (op == ">") return Value(value_less(b, a));
  if (op == "<=") return Value(!value_less(b, a));
  if (op == ">=") return Value(!value_less(a, b));
  if (a.is_number() && b.is_number()) return arithmetic(op, a, b);
  if (op == "+") {
    if ((a.is_markup() && b.is_string()) || (a.is_string() && b.is_markup())) {
      // Markup + str escapes the str, str + Markup too: the result is Markup.
      const std::string left = a.is_markup() ? a.as_string() : html_escape(a.as_string());
      const std::string right = b.is_markup() ? b.as_string() : html_escape(b.as_string());
      in.check_size(left.size() + right.size());
      const Charge scratch(left.size() + right.size());
      return Value::markup(left + right);
    }
    if (a.is_string() && b.is_string()) {
      in.check_size(a.as_string().size() + b.as_string().size());
      const Charge scratch(a.as_string().size() + b.as_string().size());
      return Value(a.as_string() + b.as_string());
    }
    if (a.is_list() && b.is_list() && !a.is_iterator() && !b.is_iterator() &&
        a.list_obj().is_tuple == b.list_obj().is_tuple) {
      const size_t n = a.items().size() + b.items().size();
      in.check_size(n * sizeof(Value));
      const Charge scratch(n * sizeof(Value));
      std::vector<Value> out;
      out.reserve(n);
      out.insert(out.end(), a.items().begin(), a.items().end());
      out.insert(out.end(), b.items().begin(), b.items().end());
      return Value::list(std::move(out), a.list_obj().is_tuple);
    }
    // Python: a sequence on the left refuses what it cannot concatenate; anything else
    // on the left (None + "x", 1 + "x") is an unsupported operand pair.
    if (a.is_string() || (a.is_list() && !a.is_iterator()))
      throw RenderError("can only concatenate " + a.type_name() + " (not \"" + b.type_name() +
                        "\") to " + a.type_name());
  }
  if (op == "*") {
    if ((a.is_string() || (a.is_list() && !a.is_iterator())) && (b.is_int() || b.is_bool()))
      return repeat(a, b.as_int(), in);
    if ((b.is_string() || (b.is_list() && !b.is_iterator())) && (a.is_int() || a.is_bool()))
      return repeat(b, a.as_int(), in);
  }
  if (op == "%" && a.is_string()) return Value(percent_format(a.as_string(), b));
  unsupported(op, a, b);
}

}  // namespace kvchat::jinja
