// Value: Python semantics for truthiness, len(), str(), repr(), == and <.
#include "chat/jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat::jinja {

StringObject::StringObject(std::string s) : text(std::move(s)) {
  // The object with its shared_ptr control block (one allocation), plus the text
  // where it does not fit the string's own small buffer.
  charge.add(heap_bytes(sizeof(StringObject) + 16) +
             (text.capacity() > 15 ? heap_bytes(text.capacity() + 1) : 0));
}

std::shared_ptr<const StringObject> Value::make_string(std::string s) {
  if (s.empty()) return nullptr;
  return std::make_shared<const StringObject>(std::move(s));
}

const std::string& Value::empty_string() {
  static const std::string empty;
  return empty;
}

const Value* DictObject::find(const Value& key) const {
  for (const auto& [k, v] : items)
    if (values_equal(k, key)) return &v;
  return nullptr;
}

const Value* DictObject::find(std::string_view key) const {
  for (const auto& [k, v] : items)
    if (k.is_string() && k.as_string() == key) return &v;
  return nullptr;
}

namespace {

// Values nested deeper than kMaxValueDepth are refused where they are built, so
// that printing, comparing and freeing them cannot run out of stack.
int checked_depth(int depth) {
  if (depth > kMaxValueDepth) {
    throw RenderError("value nested too deeply (more than " + std::to_string(kMaxValueDepth) +
                      " levels)");
  }
  return depth;
}

}  // namespace

void DictObject::set(Value key, Value value) {
  for (auto& [k, v] : items) {
    if (values_equal(k, key)) {
      depth = std::max(depth, checked_depth(1 + value.depth()));
      v = std::move(value);
      return;
    }
  }
  depth = std::max(depth, checked_depth(1 + std::max(key.depth(), value.depth())));
  if (items.size() == items.capacity()) {  // charged before the slots grow
    const size_t grown = std::max<size_t>(4, items.capacity() * 2);
    const size_t had = items.capacity() ? heap_bytes(items.capacity() * sizeof(items[0])) : 0;
    charge.add(heap_bytes(grown * sizeof(items[0])) - had);
    items.reserve(grown);
  }
  items.emplace_back(std::move(key), std::move(value));
}

const Value* CallArgs::get(size_t index, std::string_view name) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [k, v] : keyword)
    if (k == name) return &v;
  return nullptr;
}

Value Value::list(std::vector<Value> items, bool tuple) {
  auto l = std::make_shared<ListObject>();
  int deepest = 0;
  for (const Value& item : items) deepest = std::max(deepest, item.depth());
  l->depth = checked_depth(1 + deepest);
  check_string_size(items.size() * sizeof(Value));  // one list's slots: bounded as one string is
  l->charge.add(heap_bytes(sizeof(ListObject) + 16) +
                (items.capacity() ? heap_bytes(items.capacity() * sizeof(Value)) : 0));
  l->items = std::move(items);
  l->is_tuple = tuple;
  return Value(std::move(l));
}

void ListBuilder::grow() {
  const size_t grown = std::max<size_t>(8, 2 * items_.capacity());
  check_string_size((items_.size() + 1) * sizeof(Value));
  charge_.add((grown - items_.capacity()) * sizeof(Value));
  items_.reserve(grown);
}

Value Value::iterator(std::vector<Value> items, std::string type) {
  Value v = list(std::move(items));
  v.list_->iterator_type = std::move(type);
  return v;
}

Value Value::dict() {
  auto d = std::make_shared<DictObject>();
  d->charge.add(heap_bytes(sizeof(DictObject) + 16));
  return Value(std::move(d));
}

Value Value::function(std::string name, std::function<Value(Interpreter&, const CallArgs&)> fn) {
  auto f = std::make_shared<FunctionObject>();
  f->charge.add(heap_bytes(sizeof(FunctionObject) + 16) + heap_bytes(64) +
                name.capacity());  // + the closure
  f->name = std::move(name);
  f->call = std::move(fn);
  return Value(std::move(f));
}

bool Value::truthy() const {
  switch (kind_) {
    case Kind::Undefined:
    case Kind::None: return false;
    case Kind::Bool:
    case Kind::Int: return int_ != 0;
    case Kind::Float: return float_ != 0.0;
    case Kind::String: return !as_string().empty();
    case Kind::List: return list_->is_iterator() || !list_->items.empty();
    case Kind::Dict: return dict_->is_namespace || !dict_->items.empty();
    case Kind::Function: return true;
  }
  return false;
}

std::int64_t Value::length() const {
  switch (kind_) {
    case Kind::String: {
      std::int64_t n = 0;
      for (unsigned char c : as_string()) n += (c & 0xC0) != 0x80;
      return n;
    }
    case Kind::List:
      return list_->is_iterator() ? -1 : static_cast<std::int64_t>(list_->items.size());
    case Kind::Dict: return static_cast<std::int64_t>(dict_->items.size());
    case Kind::Undefined: return 0;
    default: return -1;
  }
}

std::string format_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]d[.ddd]e[+-]XX
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  const int exp = std::stoi(sci.substr(e + 1));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exp >= -4 && exp < 16) {
    std::string out;
    if (exp < 0) {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." +
            digits.substr(static_cast<size_t>(exp) + 1);
    }
    return sign + out;
  }
  std::string mant = digits.substr(0, 1);
  if (digits.size() > 1) mant += "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return sign + mant + ebuf;
}

namespace {

bool printable(char32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp >= 0x80 && cp <= 0xA0) return false;
  if (cp == 0xAD) return false;
  if ((cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
      (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 || cp == 0xFEFF)
    return false;
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  return true;
}

std::string repr_string(const std::string& s) {
  const Charge scratch(s.size() * sizeof(char32_t));  // the decoded code points
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  size_t n = 0;
  for (char32_t cp : utf8_decode(s)) {
    if (++n % 65536 == 0) check_string_size(out.size());  // escapes take up to 10 bytes each
    if (cp == '\\')
      out += "\\\\";
    else if (cp == static_cast<char32_t>(quote))
      out += std::string("\\") + quote;
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\r')
      out += "\\r";
    else if (cp == '\t')
      out += "\\t";
    else if (!printable(cp)) {
      char buf[16];
      if (cp < 0x100)
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      else if (cp < 0x10000)
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      else
        std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      utf8::append_code_point(out, cp);
    }
  }
  out += quote;
  return out;
}

}  // namespace

std::string Value::str() const {
  switch (kind_) {
    case Kind::Undefined: return "";
    case Kind::String: return as_string();
    default: return repr();
  }
}

int Value::depth() const {
  if (kind_ == Kind::List) return list_->depth;
  if (kind_ == Kind::Dict) return dict_->depth;
  return 0;
}

std::string Value::repr() const {
  std::string out;
  append_repr(out, 0);
  return out;
}

// Lists and dicts print their items; a namespace can hold itself, so the depth is
// bounded (as tojson's) rather than trusted.
// A dict that holds another twice ({'a': d, 'b': d}, again and again) prints
// exponentially long: the text is bounded as it grows.
void Value::append_repr(std::string& out, int depth) const {
  if (depth > kMaxValueDepth)
    throw RenderError("value nested too deeply to print (a namespace that holds itself?)");
  check_string_size(out.size());
  budget_tick();
  switch (kind_) {
    case Kind::Undefined: out += "Undefined"; return;
    case Kind::None: out += "None"; return;
    case Kind::Bool: out += int_ ? "True" : "False"; return;
    case Kind::Int: out += std::to_string(int_); return;
    case Kind::Float: out += format_float(float_); return;
    case Kind::String: out += repr_string(as_string()); return;
    case Kind::List: {
      const auto& l = *list_;
      if (l.is_iterator()) {
        out += "<" + l.iterator_type + " object>";
        return;
      }
      out += l.is_tuple ? "(" : "[";
      for (size_t i = 0; i < l.items.size(); ++i) {
        if (i) out += ", ";
        l.items[i].append_repr(out, depth + 1);
      }
      if (l.is_tuple && l.items.size() == 1) out += ",";
      out += l.is_tuple ? ")" : "]";
      return;
    }
    case Kind::Dict: {
      out += dict_->is_namespace ? "<Namespace {" : "{";
      bool first = true;
      for (const auto& [k, v] : dict_->items) {
        if (!first) out += ", ";
        first = false;
        k.append_repr(out, depth + 1);
        out += ": ";
        v.append_repr(out, depth + 1);
      }
      out += dict_->is_namespace ? "}>" : "}";
      return;
    }
    case Kind::Function: out += "<function " + fn_->name + ">"; return;
  }
}

std::string repr_for_message(const Value& v) {
  if (v.is_string() && v.as_string().size() > kPrintableMaxBytes) {
    size_t cut = kPrintableMaxBytes;
    while (cut > 0 && (static_cast<unsigned char>(v.as_string()[cut]) & 0xC0) == 0x80) --cut;
    std::string r = Value(std::string_view(v.as_string()).substr(0, cut)).repr();
    return r + "… (" + std::to_string(v.as_string().size()) + " bytes)";
  }
  std::string r = v.repr();
  if (r.size() <= kPrintableMaxBytes) return r;
  return kvchat::printable(r, kPrintableMaxBytes);
}

std::string Value::type_name() const {
  switch (kind_) {
    case Kind::Undefined: return "Undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::List:
      return list_->is_iterator() ? list_->iterator_type : list_->is_tuple ? "tuple" : "list";
    case Kind::Dict: return dict_->is_namespace ? "Namespace" : "dict";
    case Kind::Function: return "function";
  }
  return "object";
}

namespace {

void check_depth(int depth) {
  if (depth > kMaxValueDepth) throw RenderError("values nested too deeply to compare");
}

bool equal_at(const Value& a, const Value& b, int depth) {
  check_depth(depth);
  budget_tick();  // dicts that share their items compare in exponential time
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None: return true;
    case Value::Kind::String: return a.as_string() == b.as_string();
    case Value::Kind::List: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (&x == &y) return true;
      if (a.is_iterator() || b.is_iterator()) return false;
      if (a.list_obj().is_tuple != b.list_obj().is_tuple) return false;  // (1, 2) != [1, 2]
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!equal_at(x[i], y[i], depth + 1)) return false;
      return true;
    }
    case Value::Kind::Dict: {
      const auto& x = a.dict_obj();
      const auto& y = b.dict_obj();
      if (&x == &y) return true;
      if (x.items.size() != y.items.size()) return false;
      for (const auto& [k, v] : x.items) {
        const Value* o = y.find(k);
        if (!o || !equal_at(v, *o, depth + 1)) return false;
      }
      return true;
    }
    case Value::Kind::Function: return &a.function_obj() == &b.function_obj();
    default: return false;
  }
}

bool less_at(const Value& a, const Value& b, int depth) {
  check_depth(depth);
  budget_tick();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_double() < b.as_double();
    return a.as_int() < b.as_int();
  }
  if (a.is_string() && b.is_string())
    return a.as_string() < b.as_string();  // UTF-8 order = code point order
  if (a.is_list() && b.is_list()) {
    const auto& x = a.items();
    const auto& y = b.items();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (less_at(x[i], y[i], depth + 1)) return true;
      if (less_at(y[i], x[i], depth + 1)) return false;
    }
    return x.size() < y.size();
  }
  throw RenderError("'<' not supported between instances of '" + a.type_name() + "' and '" +
                    b.type_name() + "'");
}

}  // namespace

bool values_equal(const Value& a, const Value& b) { return equal_at(a, b, 0); }
bool value_less(const Value& a, const Value& b) { return less_at(a, b, 0); }

std::u32string utf8_decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = 0;
    char32_t cp = 0;
    if (c < 0x80) {
      cp = c;
      n = 0;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      n = 1;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      n = 2;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      n = 3;
    } else {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    bool ok = true;
    for (int k = 1; k <= n; ++k) {
      if (i + static_cast<size_t>(k) >= s.size()) {
        ok = false;
        break;
      }
      const auto cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((cc & 0xC0) != 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (!ok) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    out += cp;
    i += static_cast<size_t>(n) + 1;
  }
  return out;
}

std::string utf8_encode(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) utf8::append_code_point(out, cp);
  return out;
}

bool is_python_space(char32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85 ||
         cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

}  // namespace kvchat::jinja
