// Python methods of str, list and dict that templates call (`content.strip()`,
// `message.get('x')`, ...), returned as bound functions. Methods that modify a list
// or dict are refused, as in jinja2's immutable sandbox.
#include <algorithm>

#include "chat/jinja/builtins.h"
#include "util/printable.h"

namespace kvchat::jinja {
namespace {

using Method = Value (*)(Interpreter&, const Value& self, const CallArgs& args);

const Value& need(const CallArgs& args, size_t i, const char* what) {
  if (i >= args.positional.size())
    throw RenderError(std::string(what) + "() missing a required argument");
  return args.positional[i];
}

// str.startswith/endswith accept a string or a tuple of strings.
bool affix_match(const std::string& s, const Value& affix, bool at_start) {
  auto one = [&](const Value& a) {
    if (!a.is_string())
      throw RenderError("startswith/endswith first arg must be str or a tuple of str");
    const std::string& x = a.as_string();
    if (x.size() > s.size()) return false;
    return at_start ? s.compare(0, x.size(), x) == 0
                    : s.compare(s.size() - x.size(), x.size(), x) == 0;
  };
  if (affix.is_list()) return std::any_of(affix.items().begin(), affix.items().end(), one);
  return one(affix);
}

std::int64_t cp_index(const std::string& s, size_t byte_pos) {
  std::int64_t n = 0;
  for (size_t i = 0; i < byte_pos; ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return n;
}

std::string str_format(const std::string& fmt, const CallArgs& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      const size_t close = fmt.find('}', i);
      if (close == std::string::npos) throw RenderError("single '{' encountered in format string");
      std::string field = fmt.substr(i + 1, close - i - 1);
      const size_t colon = field.find_first_of(":!");
      if (colon != std::string::npos) field.resize(colon);
      const Value* v = nullptr;
      if (field.empty()) {
        v = args.get(auto_index++, "");
      } else if (std::all_of(field.begin(), field.end(),
                             [](char d) { return d >= '0' && d <= '9'; })) {
        v = args.get(static_cast<size_t>(std::stoul(field)), "");
      } else {
        for (const auto& [k, val] : args.keyword)
          if (k == field) v = &val;
      }
      if (!v) throw RenderError("format: no argument for '{" + printable(field) + "}'");
      std::string text;  // bounded before it is appended: '{0}{0}{0}...'.format(long)
      const std::string& piece = v->is_string() ? v->as_string() : (text = v->str());
      check_string_size(out.size() + piece.size());
      out += piece;
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

Value str_method(const std::string& name, const Value& self, Interpreter& in, const CallArgs& a) {
  const std::string& s = self.as_string();
  const Value* first = a.get(0, "");
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    const std::string chars = first && !first->is_none() ? first->str() : std::string();
    return Value(strip_chars(s, first && !first->is_none() ? &chars : nullptr, name != "rstrip",
                             name != "lstrip"));
  }
  if (name == "split" || name == "rsplit")
    return split_string(s, a.get(0, "sep"), int_arg(a, 1, "maxsplit", -1), name == "rsplit");
  if (name == "splitlines") {
    ListBuilder lines;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n' || s[i] == '\r') {
        lines.push_back(Value(s.substr(start, i - start)));
        if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
        start = i + 1;
      }
    }
    if (start < s.size()) lines.push_back(Value(s.substr(start)));
    return lines.list();
  }
  if (name == "startswith") return Value(affix_match(s, need(a, 0, "startswith"), true));
  if (name == "endswith") return Value(affix_match(s, need(a, 0, "endswith"), false));
  if (name == "replace")
    return Value(replace_all(s, need(a, 0, "replace").str(), need(a, 1, "replace").str(),
                             int_arg(a, 2, "count", -1)));
  if (name == "upper") return Value(to_upper(s));
  if (name == "lower") return Value(to_lower(s));
  if (name == "title") return Value(title_case(s));
  if (name == "capitalize") return Value(capitalize(s));
  if (name == "find" || name == "index" || name == "rfind" || name == "rindex") {
    const std::string sub = need(a, 0, name.c_str()).str();
    const size_t at = name[0] == 'r' ? s.rfind(sub) : s.find(sub);
    if (at == std::string::npos) {
      if (name == "index" || name == "rindex") throw RenderError("substring not found");
      return Value(std::int64_t{-1});
    }
    return Value(cp_index(s, at));
  }
  if (name == "count") {
    const std::string sub = need(a, 0, "count").str();
    if (sub.empty()) return Value(self.length() + 1);
    std::int64_t n = 0;
    for (size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
    return Value(n);
  }
  if (name == "join") {
    std::string out;
    bool firstItem = true;
    for (const Value& v : iterate(need(a, 0, "join"))) {
      std::string text;  // bounded before it is appended
      const std::string& piece = v.is_string() ? v.as_string() : (text = v.str());
      in.check_size(out.size() + (firstItem ? 0 : s.size()) + piece.size());
      if (!firstItem) out += s;
      firstItem = false;
      out += piece;
    }
    return Value(std::move(out));
  }
  if (name == "format") return Value(str_format(s, a));
  if (name == "partition" || name == "rpartition") {
    const std::string sep = need(a, 0, name.c_str()).str();
    const size_t at = name[0] == 'r' ? s.rfind(sep) : s.find(sep);
    if (at == std::string::npos) {
      return name[0] == 'r' ? Value::list({Value(""), Value(""), self}, true)
                            : Value::list({self, Value(""), Value("")}, true);
    }
    return Value::list({Value(s.substr(0, at)), Value(sep), Value(s.substr(at + sep.size()))},
                       true);
  }
  auto all = [&](auto pred) {
    const Charge scratch(s.size() * sizeof(char32_t));
    const std::u32string cps = utf8_decode(s);
    return Value(!cps.empty() && std::all_of(cps.begin(), cps.end(), pred));
  };
  if (name == "isdigit") return all([](char32_t c) { return c >= '0' && c <= '9'; });
  if (name == "isspace") return all([](char32_t c) { return is_python_space(c); });
  if (name == "isalpha") return all([](char32_t c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; });
  if (name == "isalnum")
    return all(
        [](char32_t c) { return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9'); });
  if (name == "islower") return Value(to_lower(s) == s && to_upper(s) != s);
  if (name == "isupper") return Value(to_upper(s) == s && to_lower(s) != s);
  throw RenderError("'str' object has no attribute '" + name + "'");
}

Value dict_method(const std::string& name, const Value& self, const CallArgs& a) {
  const DictObject& d = self.dict_obj();
  if (name == "items") {
    std::vector<Value> out;
    for (const auto& [k, v] : d.items) out.push_back(Value::list({k, v}, true));
    return Value::list(std::move(out));
  }
  if (name == "keys" || name == "values") {
    std::vector<Value> out;
    for (const auto& [k, v] : d.items) out.push_back(name == "keys" ? k : v);
    return Value::list(std::move(out));
  }
  if (name == "get") {
    const Value* v = d.find(need(a, 0, "get"));
    if (v) return *v;
    const Value* dflt = a.get(1, "default");
    return dflt ? *dflt : Value::none();
  }
  if (name == "copy") {
    Value c = Value::dict();
    c.dict_obj().charge.add(heap_bytes(d.items.size() * sizeof(d.items[0])));  // before the copy
    c.dict_obj().items = d.items;
    c.dict_obj().depth = d.depth;
    return c;
  }
  throw RenderError("'dict' object has no attribute '" + name + "'");
}

Value list_method(const std::string& name, const Value& self, const CallArgs& a) {
  const std::vector<Value>& l = self.list_obj().items;
  if (name == "index" || name == "count") {
    const Value& x = need(a, 0, name.c_str());
    std::int64_t n = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      if (!values_equal(l[i], x)) continue;
      if (name == "index") return Value(static_cast<std::int64_t>(i));
      ++n;
    }
    if (name == "index") throw RenderError(repr_for_message(x) + " is not in list");
    return Value(n);
  }
  if (name == "copy") return Value::list(l);
  throw RenderError("'list' object has no attribute '" + name + "'");
}

bool has_method(const Value& obj, const std::string& name) {
  static const char* kStr[] = {
      "strip",      "lstrip",  "rstrip",  "split",   "rsplit",  "splitlines", "startswith",
      "endswith",   "replace", "upper",   "lower",   "title",   "capitalize", "find",
      "rfind",      "index",   "rindex",  "count",   "join",    "format",     "partition",
      "rpartition", "isdigit", "isspace", "isalpha", "isalnum", "islower",    "isupper"};
  static const char* kDict[] = {"items", "keys", "values", "get", "copy"};
  static const char* kList[] = {"index", "count", "copy"};
  auto in = [&](const auto& names) {
    return std::any_of(std::begin(names), std::end(names),
                       [&](const char* n) { return name == n; });
  };
  if (obj.is_string()) return in(kStr);
  if (obj.is_dict()) return in(kDict);
  if (obj.is_list()) return in(kList);
  return false;
}

// transformers renders in jinja2's ImmutableSandboxedEnvironment: methods that
// modify a list or dict are refused.
bool is_mutating(const Value& obj, const std::string& name) {
  if (obj.is_list())
    return name == "append" || name == "extend" || name == "insert" || name == "pop" ||
           name == "remove" || name == "clear" || name == "sort" || name == "reverse";
  if (obj.is_dict() && !obj.dict_obj().is_namespace)
    return name == "update" || name == "pop" || name == "popitem" || name == "setdefault" ||
           name == "clear";
  return false;
}

}  // namespace

Value find_method(const Value& obj, const std::string& name) {
  if (is_mutating(obj, name)) {
    return Value::function(name, [obj, name](Interpreter&, const CallArgs&) -> Value {
      throw RenderError("access to attribute '" + name + "' of '" + obj.type_name() +
                        "' object is unsafe.");
    });
  }
  if (!has_method(obj, name))
    return Value::undefined("'" + obj.type_name() + " object' has no attribute '" + name + "'");
  return Value::function(name, [obj, name](Interpreter& in, const CallArgs& args) -> Value {
    if (obj.is_string()) return str_method(name, obj, in, args);
    if (obj.is_dict()) return dict_method(name, obj, args);
    return list_method(name, obj, args);
  });
}

}  // namespace kvchat::jinja
