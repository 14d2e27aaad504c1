// jinja2's builtin filters, plus transformers' tojson (json.dumps with
// ensure_ascii=False and the indent/separators/sort_keys options passed through).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "chat/jinja/builtins.h"
#include "chat/jinja/json.h"

namespace kvchat::jinja {
namespace {

// "a.b.0": successive subscripts, as jinja2's make_attrgetter does.
Value get_path(Interpreter& in, Value v, const std::string& path) {
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
    v = in.get_item(v, numeric ? Value(static_cast<std::int64_t>(std::stoll(part))) : Value(part));
    if (dot == std::string::npos) return v;
    start = dot + 1;
  }
}

// The sort key of case-insensitive comparisons: lower-cased strings.
Value fold_case(const Value& v, bool case_sensitive) {
  return !case_sensitive && v.is_string() ? Value(to_lower(v.as_string())) : v;
}

CallArgs rest_args(const CallArgs& args, size_t from) {
  CallArgs r;
  for (size_t i = from; i < args.positional.size(); ++i) r.positional.push_back(args.positional[i]);
  r.keyword = args.keyword;
  return r;
}

Value f_tojson(Interpreter&, const Value& v, const CallArgs& a) {
  JsonDumpOptions o;
  const Value* indent = a.get(0, "indent");
  if (indent && !indent->is_none() && !indent->is_undefined()) {
    if (!indent->is_string())
      check_string_size(static_cast<size_t>(std::max<std::int64_t>(0, indent->as_int())));
    o.indent =
        indent->is_string()
            ? indent->as_string()
            : std::string(static_cast<size_t>(std::max<std::int64_t>(0, indent->as_int())), ' ');
    o.item_separator = ",";
  }
  const Value* seps = a.get(2, "separators");
  if (seps && seps->is_list() && seps->items().size() == 2) {
    o.item_separator = seps->items()[0].str();
    o.key_separator = seps->items()[1].str();
  }
  o.sort_keys = bool_arg(a, 3, "sort_keys", false);
  return Value(dump_json(v, o));
}

Value f_trim(Interpreter&, const Value& v, const CallArgs& a) {
  const Value* chars = a.get(0, "chars");
  const std::string c = chars && !chars->is_none() ? chars->str() : std::string();
  return Value(strip_chars(v.str(), chars && !chars->is_none() ? &c : nullptr, true, true));
}
Value f_upper(Interpreter&, const Value& v, const CallArgs&) { return Value(to_upper(v.str())); }
Value f_lower(Interpreter&, const Value& v, const CallArgs&) { return Value(to_lower(v.str())); }
Value f_capitalize(Interpreter&, const Value& v, const CallArgs&) {
  return Value(capitalize(v.str()));
}
// jinja2's title: words begin after whitespace, '-', and opening brackets (not after
// apostrophes, unlike str.title); each word is capitalized.
Value f_title(Interpreter&, const Value& v, const CallArgs&) {
  const Charge scratch(v.str().size() * (sizeof(char32_t) + 1));
  std::u32string cps = utf8_decode(v.str());
  bool word_start = true;
  for (char32_t& c : cps) {
    const bool sep = is_python_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
    if (sep) {
      word_start = true;
      continue;
    }
    c = word_start ? utf8_decode(to_upper(utf8_encode(std::u32string(1, c))))[0]
                   : utf8_decode(to_lower(utf8_encode(std::u32string(1, c))))[0];
    word_start = false;
  }
  return Value(utf8_encode(cps));
}
// jinja2's soft_str: a string (a Markup too) is returned as it is.
Value f_string(Interpreter&, const Value& v, const CallArgs&) {
  return v.is_string() ? v : Value(v.str());
}
Value f_safe(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_markup()) return v;
  return Value::markup(v.str());
}
Value f_pprint(Interpreter&, const Value& v, const CallArgs&) { return Value(v.repr()); }

// escape / e: a Markup is already escaped; forceescape escapes it again.
Value f_escape(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_markup()) return v;
  return Value::markup(html_escape(v.str()));
}
Value f_forceescape(Interpreter&, const Value& v, const CallArgs&) {
  return Value::markup(html_escape(v.str()));
}

}  // namespace

std::string html_escape(const std::string& s) {
  size_t size = s.size();  // known before it is built: '&' takes 5 bytes
  for (char c : s) size += c == '&' ? 4 : c == '<' || c == '>' ? 3 : c == '"' || c == '\'' ? 4 : 0;
  check_string_size(size);
  const Charge scratch(size);
  std::string out;
  out.reserve(size);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

Value f_length(Interpreter&, const Value& v, const CallArgs&) {
  const std::int64_t n = v.length();
  if (n < 0) throw RenderError("object of type '" + v.type_name() + "' has no len()");
  return Value(n);
}

Value f_first(Interpreter&, const Value& v, const CallArgs&) {
  const Items items = iterate(v);
  if (items.empty()) return Value::undefined("No first item, sequence was empty.");
  return items.front();
}

Value f_last(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_iterator()) throw RenderError("'" + v.type_name() + "' object is not reversible");
  const Items items = iterate(v);
  if (items.empty()) return Value::undefined("No last item, sequence was empty.");
  return items.back();
}

Value f_join(Interpreter& in, const Value& v, const CallArgs& a) {
  const std::string sep = str_arg(a, 0, "d", "");
  const Value* attr = a.get(1, "attribute");
  std::string out;
  bool first = true;
  for (const Value& item : iterate(v)) {
    const Value part = attr ? get_path(in, item, attr->str()) : item;
    std::string text;  // bounded before it is appended
    const std::string& piece = part.is_string() ? part.as_string() : (text = part.str());
    in.check_size(out.size() + (first ? 0 : sep.size()) + piece.size());
    if (!first) out += sep;
    first = false;
    out += piece;
  }
  return Value(std::move(out));
}

Value f_default(Interpreter&, const Value& v, const CallArgs& a) {
  const Value* dflt = a.get(0, "default_value");
  const bool boolean = bool_arg(a, 1, "boolean", false);
  if (v.is_undefined() || (boolean && !v.truthy())) return dflt ? *dflt : Value("");
  return v;
}

Value f_replace(Interpreter&, const Value& v, const CallArgs& a) {
  const Value* from = a.get(0, "old");
  const Value* to = a.get(1, "new");
  if (!from || !to) throw RenderError("replace() needs old and new");
  return Value(replace_all(v.str(), from->str(), to->str(), int_arg(a, 2, "count", -1)));
}

Value f_list(Interpreter&, const Value& v, const CallArgs&) {
  const Items items = iterate(v);
  const Charge scratch(items.size() * sizeof(Value));  // the copy, until the list holds it
  return Value::list(items.vector());
}

Value f_items(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_undefined()) return Value::iterator({});
  if (!v.is_dict()) throw RenderError("Can only get item pairs from a mapping.");
  std::vector<Value> out;
  for (const auto& [k, val] : v.dict_obj().items) out.push_back(Value::list({k, val}, true));
  return Value::iterator(std::move(out));
}

// select / reject / selectattr / rejectattr. As in jinja2 (`if value:` before anything
// else), a false value -- none, undefined, 0, "" -- selects nothing, whatever the
// arguments: `tools | selectattr(...)` with tools=None is an empty generator.
Value select_impl(Interpreter& in, const Value& v, const CallArgs& a, bool by_attr, bool keep_if) {
  if (!v.truthy()) return Value::iterator({});
  size_t next = 0;
  std::string attr;
  if (by_attr) {
    if (a.positional.empty()) throw RenderError("missing attribute for selectattr/rejectattr");
    attr = a.positional[next++].str();
  }
  std::string test_name;
  if (next < a.positional.size()) test_name = a.positional[next++].str();
  const CallArgs test_args = rest_args(a, next);
  ListBuilder out;
  for (const Value& item : iterate(v)) {
    const Value probe = by_attr ? get_path(in, item, attr) : item;
    const bool pass = test_name.empty() ? probe.truthy() : in.test(test_name, probe, test_args);
    if (pass == keep_if) out.push_back(item);
  }
  return out.iterator();
}
Value f_select(Interpreter& in, const Value& v, const CallArgs& a) {
  return select_impl(in, v, a, false, true);
}
Value f_reject(Interpreter& in, const Value& v, const CallArgs& a) {
  return select_impl(in, v, a, false, false);
}
Value f_selectattr(Interpreter& in, const Value& v, const CallArgs& a) {
  return select_impl(in, v, a, true, true);
}
Value f_rejectattr(Interpreter& in, const Value& v, const CallArgs& a) {
  return select_impl(in, v, a, true, false);
}

// map: like select, a false value maps to an empty generator before the arguments
// are looked at.
Value f_map(Interpreter& in, const Value& v, const CallArgs& a) {
  if (!v.truthy()) return Value::iterator({});
  ListBuilder out;
  const Value* attr = nullptr;
  const Value* dflt = nullptr;
  for (const auto& [k, val] : a.keyword) {
    if (k == "attribute") attr = &val;
    if (k == "default") dflt = &val;
  }
  if (attr) {
    for (const Value& item : iterate(v)) {
      Value r = get_path(in, item, attr->str());
      out.push_back(r.is_undefined() && dflt ? *dflt : r);
    }
    return out.iterator();
  }
  if (a.positional.empty()) throw RenderError("map() needs a filter name or attribute=");
  const std::string name = a.positional[0].str();
  CallArgs fargs = rest_args(a, 1);
  for (const Value& item : iterate(v)) out.push_back(in.filter(name, item, fargs));
  return out.iterator();
}

// Python's hash(): lists and dicts (and tuples holding them) are unhashable.
void require_hashable(const Value& v) {
  if (v.is_dict() || (v.is_list() && !v.is_iterator() && !v.list_obj().is_tuple))
    throw RenderError("unhashable type: '" + v.type_name() + "'");
  if (v.is_list() && v.list_obj().is_tuple)
    for (const Value& item : v.items()) require_hashable(item);
}

// unique keeps a set of the keys seen, so a key must be hashable, as in jinja2.
Value f_unique(Interpreter& in, const Value& v, const CallArgs& a) {
  const bool cs = bool_arg(a, 0, "case_sensitive", false);
  const Value* attr = a.get(1, "attribute");
  ListBuilder out, seen;
  std::vector<Value> seen_keys;  // the same keys as `seen` (charged there), to search
  for (const Value& item : iterate(v)) {
    const Value key = fold_case(attr ? get_path(in, item, attr->str()) : item, cs);
    require_hashable(key);
    // Quadratic, as jinja2's is for unhashable items: the comparisons tick the clock.
    if (std::any_of(seen_keys.begin(), seen_keys.end(),
                    [&](const Value& s) { return values_equal(s, key); }))
      continue;
    seen.push_back(key);
    seen_keys.push_back(key);
    out.push_back(item);
  }
  return out.iterator();
}

Value f_sort(Interpreter& in, const Value& v, const CallArgs& a) {
  const bool reverse = bool_arg(a, 0, "reverse", false);
  const bool cs = bool_arg(a, 1, "case_sensitive", false);
  const Value* attr = a.get(2, "attribute");
  const Items items = iterate(v);
  const Charge scratch(items.size() *
                       (sizeof(std::pair<Value, Value>) + sizeof(Value)));  // the keys, the result
  std::vector<std::pair<Value, Value>> keyed;
  keyed.reserve(items.size());
  for (const Value& item : items)
    keyed.emplace_back(fold_case(attr ? get_path(in, item, attr->str()) : item, cs), item);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? value_less(y.first, x.first) : value_less(x.first, y.first);
  });
  std::vector<Value> out;
  for (auto& [k, item] : keyed) out.push_back(std::move(item));
  return Value::list(std::move(out));
}

Value f_dictsort(Interpreter&, const Value& v, const CallArgs& a) {
  // jinja2 calls value.items(): undefined fails as undefined, other types lack items.
  if (v.is_undefined()) fail_undefined(v);
  if (!v.is_dict()) throw RenderError("'" + v.type_name() + "' object has no attribute 'items'");
  const bool cs = bool_arg(a, 0, "case_sensitive", false);
  const std::string by = str_arg(a, 1, "by", "key");
  const bool reverse = bool_arg(a, 2, "reverse", false);
  const size_t pos = by == "value" ? 1 : 0;
  ListBuilder builder;
  for (const auto& [k, val] : v.dict_obj().items) builder.push_back(Value::list({k, val}, true));
  Value sorted = builder.list();
  std::vector<Value>& pairs = sorted.list_obj().items;
  std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
    const Value kx = fold_case(x.items()[pos], cs), ky = fold_case(y.items()[pos], cs);
    return reverse ? value_less(ky, kx) : value_less(kx, ky);
  });
  return sorted;
}

Value f_reverse(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_string()) {
    const Charge scratch(v.as_string().size() * (sizeof(char32_t) + 1));
    std::u32string s = utf8_decode(v.as_string());
    std::reverse(s.begin(), s.end());
    return Value(utf8_encode(s));
  }
  // reversed(list) is an iterator; other iterables become a reversed list.
  if (!v.is_list() && !v.is_dict() && !v.is_undefined())
    throw RenderError("argument must be iterable");
  const bool iterator = v.is_list() && !v.is_iterator();
  const Items in_order = iterate(v);
  const Charge scratch(in_order.size() * sizeof(Value));  // the copy, until the list holds it
  std::vector<Value> items = in_order.vector();
  std::reverse(items.begin(), items.end());
  return iterator ? Value::iterator(std::move(items), "list_reverseiterator")
                  : Value::list(std::move(items));
}

Value min_max(Interpreter& in, const Value& v, const CallArgs& a, bool want_max) {
  const bool cs = bool_arg(a, 0, "case_sensitive", false);
  const Value* attr = a.get(1, "attribute");
  const Items items = iterate(v);
  if (items.empty())
    return Value::undefined(want_max ? "No aggregated item, sequence was empty."
                                     : "No aggregated item, sequence was empty.");
  size_t best = 0;
  auto key = [&](size_t i) {
    return fold_case(attr ? get_path(in, items[i], attr->str()) : items[i], cs);
  };
  for (size_t i = 1; i < items.size(); ++i) {
    if (want_max ? value_less(key(best), key(i)) : value_less(key(i), key(best))) best = i;
  }
  return items[best];
}
Value f_min(Interpreter& in, const Value& v, const CallArgs& a) { return min_max(in, v, a, false); }
Value f_max(Interpreter& in, const Value& v, const CallArgs& a) { return min_max(in, v, a, true); }

Value f_sum(Interpreter& in, const Value& v, const CallArgs& a) {
  const Value* attr = a.get(0, "attribute");
  const Value* start = a.get(1, "start");
  Value total = start ? *start : Value(std::int64_t{0});
  for (const Value& item : iterate(v))
    total = binary_op("+", total, attr ? get_path(in, item, attr->str()) : item, in);
  return total;
}

// int() and float() of an undefined value fail (jinja2's Undefined defines __int__ and
// __float__ to raise); other values that do not convert give the default.
Value f_int(Interpreter&, const Value& v, const CallArgs& a) {
  if (v.is_undefined()) fail_undefined(v);
  const std::int64_t dflt = int_arg(a, 0, "default", 0);
  if (v.is_int() || v.is_bool()) return Value(v.as_int());
  if (v.is_float()) return Value(static_cast<std::int64_t>(v.as_double()));
  if (v.is_string()) {
    const std::string s = strip_chars(v.as_string(), nullptr, true, true);
    const int base = static_cast<int>(int_arg(a, 1, "base", 10));
    char* end = nullptr;
    const long long i = std::strtoll(s.c_str(), &end, base);
    if (!s.empty() && end && *end == '\0') return Value(static_cast<std::int64_t>(i));
    const double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == '\0' && std::isfinite(d))
      return Value(static_cast<std::int64_t>(d));
  }
  return Value(dflt);
}

Value f_float(Interpreter&, const Value& v, const CallArgs& a) {
  if (v.is_undefined()) fail_undefined(v);
  const Value* d = a.get(0, "default");
  const Value dflt = d ? *d : Value(0.0);
  if (v.is_number()) return Value(v.as_double());
  if (v.is_string()) {
    const std::string s = strip_chars(v.as_string(), nullptr, true, true);
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == '\0') return Value(x);
  }
  return dflt;
}

Value f_abs(Interpreter&, const Value& v, const CallArgs&) {
  if (v.is_float()) return Value(std::fabs(v.as_double()));
  if (v.is_int() || v.is_bool()) return Value(static_cast<std::int64_t>(std::llabs(v.as_int())));
  throw RenderError("bad operand type for abs(): '" + v.type_name() + "'");
}

Value f_round(Interpreter&, const Value& v, const CallArgs& a) {
  const std::int64_t precision = int_arg(a, 0, "precision", 0);
  const std::string method = str_arg(a, 1, "method", "common");
  if (method != "common" && method != "ceil" && method != "floor")
    throw RenderError("method must be common, ceil or floor");
  if (!v.is_number()) {  // Python's round(x) / math.ceil(x * 10**p)
    if (method == "common")
      throw RenderError("type " + v.type_name() + " doesn't define __round__ method");
    if (v.is_undefined()) fail_undefined(v);
    throw RenderError("unsupported operand type(s) for *: '" + v.type_name() + "' and 'int'");
  }
  if (method == "common" && (v.is_int() || v.is_bool())) {
    if (precision >= 0) return Value(v.as_int());  // Python's round(int) stays an int
  }
  const double scale = std::pow(10.0, static_cast<double>(precision));
  const double x = v.as_double() * scale;
  double r;
  if (method == "ceil")
    r = std::ceil(x);
  else if (method == "floor")
    r = std::floor(x);
  else if (method == "common")
    r = std::nearbyint(x);  // Python's round(): ties to even
  else
    throw RenderError("method must be common, ceil or floor");
  return Value(r / scale);
}

// jinja2's indent: every line but the first (unless first=True) gets the prefix;
// blank lines only with blank=True.
// The text is bounded as it grows: a long prefix times many lines.
Value f_indent(Interpreter&, const Value& v, const CallArgs& a) {
  const Value* w = a.get(0, "width");
  if (!(w && w->is_string()))
    check_string_size(static_cast<size_t>(std::max<std::int64_t>(0, int_arg(a, 0, "width", 4))));
  const std::string prefix =
      w && w->is_string()
          ? w->as_string()
          : std::string(static_cast<size_t>(std::max<std::int64_t>(0, int_arg(a, 0, "width", 4))),
                        ' ');
  const bool first = bool_arg(a, 1, "first", false);
  const bool blank = bool_arg(a, 2, "blank", false);
  // jinja2 appends "\n" to the value itself: only a string can take it.
  if (v.is_undefined()) fail_undefined(v);
  if (v.is_list() && !v.is_iterator() && !v.list_obj().is_tuple)
    throw RenderError("'list' object has no attribute 'splitlines'");
  if (!v.is_string())
    throw RenderError("unsupported operand type(s) for +=: '" + v.type_name() + "' and 'str'");
  const std::string s = v.as_string() + "\n";
  std::string out;
  if (first) out = prefix;
  size_t start = 0, line = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n' && s[i] != '\r') continue;
    const std::string_view text(s.data() + start, i - start);
    const bool prefixed = line && (blank || !text.empty());
    check_string_size(out.size() + (line ? 1 : 0) + (prefixed ? prefix.size() : 0) + text.size());
    if (line) out += '\n';
    if (prefixed) out += prefix;
    out += text;
    ++line;
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    start = i + 1;
  }
  return Value(std::move(out));
}

Value f_wordcount(Interpreter&, const Value& v, const CallArgs&) {
  const Charge scratch(v.str().size() * sizeof(char32_t));
  std::int64_t n = 0;
  bool in_word = false;
  for (char32_t c : utf8_decode(v.str())) {
    const bool w = c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z') ||
                   (c >= 0xC0 && !is_python_space(c));
    if (w && !in_word) ++n;
    in_word = w;
  }
  return Value(n);
}

Value f_batch(Interpreter&, const Value& v, const CallArgs& a) {
  const std::int64_t size = int_arg(a, 0, "linecount", 1);
  if (size <= 0) throw RenderError("batch size must be positive");
  const Value* fill = a.get(1, "fill_with");
  ListBuilder out, cur;
  for (const Value& item : iterate(v)) {
    cur.push_back(item);
    if (static_cast<std::int64_t>(cur.size()) == size) out.push_back(cur.list());
  }
  if (!cur.empty()) {
    if (fill && !fill->is_none())  // batch(2000000000, fill_with=x): bounded as it fills
      while (static_cast<std::int64_t>(cur.size()) < size) cur.push_back(*fill);
    out.push_back(cur.list());
  }
  return out.iterator();
}

Value f_attr(Interpreter& in, const Value& v, const CallArgs& a) {
  return in.get_attr(v, str_arg(a, 0, "name", ""));
}

Value f_format(Interpreter&, const Value& v, const CallArgs& a) {
  return Value(percent_format(v.str(), Value::list(a.positional, true)));
}

Value f_center(Interpreter&, const Value& v, const CallArgs& a) {
  const std::string s = v.str();
  const std::int64_t width = int_arg(a, 0, "width", 80);
  const std::int64_t len = v.is_string() ? v.length() : Value(s).length();
  if (width <= len) return Value(s);
  const std::int64_t pad = width - len;
  check_string_size(static_cast<size_t>(pad) + s.size());
  const Charge scratch(static_cast<size_t>(pad) + s.size());
  const std::int64_t left = pad / 2 + (pad & width & 1);
  std::string out;
  out.reserve(static_cast<size_t>(pad) + s.size());
  out.append(static_cast<size_t>(left), ' ').append(s).append(static_cast<size_t>(pad - left), ' ');
  return Value(std::move(out));
}

Value f_truncate(Interpreter&, const Value& v, const CallArgs& a) {
  const std::int64_t length = int_arg(a, 0, "length", 255);
  const bool killwords = bool_arg(a, 1, "killwords", false);
  const std::string end = str_arg(a, 2, "end", "...");
  const std::int64_t leeway = int_arg(a, 3, "leeway", 5);
  // jinja2 asserts the arguments, then takes len(value): an undefined value has length 0
  // and comes back as it is; a value without len() fails.
  if (length < Value(end).length())
    throw RenderError("expected length >= " + std::to_string(Value(end).length()) + ", got " +
                      std::to_string(length));
  if (leeway < 0) throw RenderError("expected leeway >= 0, got " + std::to_string(leeway));
  if (v.is_undefined()) return v;
  if (v.length() < 0) throw RenderError("object of type '" + v.type_name() + "' has no len()");
  if (!v.is_string()) {  // a list or dict: returned whole when short enough
    if (v.length() <= length + leeway) return v;
    throw RenderError("can only concatenate " + v.type_name() + " (not \"str\") to " +
                      v.type_name());
  }
  const Charge scratch(v.str().size() * (sizeof(char32_t) + 1));
  const std::u32string s = utf8_decode(v.str());
  const auto n = static_cast<std::int64_t>(s.size());
  if (n <= length + leeway) return Value(utf8_encode(s));
  const std::int64_t keep = std::max<std::int64_t>(0, length - Value(end).length());
  std::u32string cut = s.substr(0, static_cast<size_t>(keep));
  if (!killwords) {
    const size_t sp = cut.rfind(U' ');
    if (sp != std::u32string::npos) cut.resize(sp);
  }
  return Value(utf8_encode(cut) + end);
}

const std::unordered_map<std::string_view, FilterFn>& filter_table() {
  static const std::unordered_map<std::string_view, FilterFn> table = {
      {"tojson", f_tojson},
      {"trim", f_trim},
      {"upper", f_upper},
      {"lower", f_lower},
      {"capitalize", f_capitalize},
      {"title", f_title},
      {"string", f_string},
      {"safe", f_safe},
      {"pprint", f_pprint},
      {"escape", f_escape},
      {"e", f_escape},
      {"forceescape", f_forceescape},
      {"length", f_length},
      {"count", f_length},
      {"first", f_first},
      {"last", f_last},
      {"join", f_join},
      {"default", f_default},
      {"d", f_default},
      {"replace", f_replace},
      {"list", f_list},
      {"items", f_items},
      {"select", f_select},
      {"reject", f_reject},
      {"selectattr", f_selectattr},
      {"rejectattr", f_rejectattr},
      {"map", f_map},
      {"unique", f_unique},
      {"sort", f_sort},
      {"dictsort", f_dictsort},
      {"reverse", f_reverse},
      {"min", f_min},
      {"max", f_max},
      {"sum", f_sum},
      {"int", f_int},
      {"float", f_float},
      {"abs", f_abs},
      {"round", f_round},
      {"indent", f_indent},
      {"wordcount", f_wordcount},
      {"batch", f_batch},
      {"attr", f_attr},
      {"format", f_format},
      {"center", f_center},
      {"truncate", f_truncate},
  };
  return table;
}

}  // namespace

FilterFn find_filter(std::string_view name) {
  const auto& t = filter_table();
  const auto it = t.find(name);
  return it == t.end() ? nullptr : it->second;
}

}  // namespace kvchat::jinja
