// Python str operations shared by the filters and the str methods.
#include <algorithm>
#include <cstdio>

#include "chat/jinja/builtins.h"
#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat::jinja {

std::int64_t int_arg(const CallArgs& args, size_t index, std::string_view name,
                     std::int64_t fallback) {
  const Value* v = args.get(index, name);
  if (!v || v->is_none() || v->is_undefined()) return fallback;
  if (v->is_int() || v->is_bool()) return v->as_int();
  if (v->is_float()) return static_cast<std::int64_t>(v->as_double());
  throw RenderError("'" + std::string(name) + "' must be an integer, not " + v->type_name());
}

bool bool_arg(const CallArgs& args, size_t index, std::string_view name, bool fallback) {
  const Value* v = args.get(index, name);
  return v ? v->truthy() : fallback;
}

std::string str_arg(const CallArgs& args, size_t index, std::string_view name,
                    const std::string& fallback) {
  const Value* v = args.get(index, name);
  return v && !v->is_undefined() ? v->str() : fallback;
}

std::string strip_chars(const std::string& s, const std::string* chars, bool left, bool right) {
  const Charge scratch((s.size() + (chars ? chars->size() : 0)) * sizeof(char32_t) + s.size());
  const std::u32string cps = utf8_decode(s);
  const std::u32string set = chars ? utf8_decode(*chars) : std::u32string();
  auto strip = [&](char32_t c) {
    return chars ? set.find(c) != std::u32string::npos : is_python_space(c);
  };
  size_t a = 0, b = cps.size();
  if (left)
    while (a < b && strip(cps[a])) ++a;
  if (right)
    while (b > a && strip(cps[b - 1])) --b;
  return utf8_encode(cps.substr(a, b - a));
}

Value split_string(const std::string& s, const Value* sep, std::int64_t maxsplit, bool from_right) {
  ListBuilder parts;
  if (!sep || sep->is_none() || sep->is_undefined()) {
    const Charge scratch(s.size() * 2 * sizeof(char32_t));  // the code points and the words
    // Runs of whitespace separate; leading/trailing whitespace yields nothing; once
    // maxsplit parts are cut, the rest is one part (its outer whitespace kept).
    const std::u32string cps = utf8_decode(s);
    std::vector<std::u32string> found;
    std::int64_t n = 0;
    if (!from_right) {
      size_t i = 0;
      while (true) {
        while (i < cps.size() && is_python_space(cps[i])) ++i;
        if (i >= cps.size()) break;
        if (maxsplit >= 0 && n == maxsplit) {
          found.push_back(cps.substr(i));
          break;
        }
        size_t j = i;
        while (j < cps.size() && !is_python_space(cps[j])) ++j;
        found.push_back(cps.substr(i, j - i));
        i = j;
        ++n;
      }
    } else {
      size_t j = cps.size();
      while (true) {
        while (j > 0 && is_python_space(cps[j - 1])) --j;
        if (j == 0) break;
        if (maxsplit >= 0 && n == maxsplit) {
          found.push_back(cps.substr(0, j));
          break;
        }
        size_t i = j;
        while (i > 0 && !is_python_space(cps[i - 1])) --i;
        found.push_back(cps.substr(i, j - i));
        j = i;
        ++n;
      }
      std::reverse(found.begin(), found.end());
    }
    for (const auto& w : found) parts.push_back(Value(utf8_encode(w)));
    return parts.list();
  }
  const std::string d = sep->str();
  if (d.empty()) throw RenderError("empty separator");
  if (!from_right) {
    size_t start = 0;
    std::int64_t n = 0;
    while (maxsplit < 0 || n < maxsplit) {
      const size_t at = s.find(d, start);
      if (at == std::string::npos) break;
      parts.push_back(Value(s.substr(start, at - start)));
      start = at + d.size();
      ++n;
    }
    parts.push_back(Value(s.substr(start)));
    return parts.list();
  }
  ListBuilder rev;  // the parts from the right: charged as they are cut
  size_t end = s.size();
  std::int64_t n = 0;
  while (maxsplit < 0 || n < maxsplit) {
    if (end < d.size()) break;
    const size_t at = s.rfind(d, end - d.size());
    if (at == std::string::npos) break;
    rev.push_back(Value(s.substr(at + d.size(), end - at - d.size())));
    end = at;
    ++n;
  }
  rev.push_back(Value(s.substr(0, end)));
  Value reversed = rev.list();
  for (auto it = reversed.items().rbegin(); it != reversed.items().rend(); ++it)
    parts.push_back(*it);
  return parts.list();
}

// The result's size is known before it is built: bounded like any string, and charged
// while it is built (a replacement that doubles a string in a loop stops at the limit).
std::string replace_all(const std::string& s, const std::string& from, const std::string& to,
                        std::int64_t count) {
  std::string out;
  if (from.empty()) {
    // Python inserts `to` between every character (and at both ends).
    std::uint64_t slots = static_cast<std::uint64_t>(Value(s).length()) + 1;
    if (count >= 0 && static_cast<std::uint64_t>(count) < slots)
      slots = static_cast<std::uint64_t>(count);
    const std::uint64_t total = s.size() + slots * to.size();  // < 2^49: no overflow
    check_string_size(static_cast<size_t>(total));
    const Charge scratch(static_cast<size_t>(total) + s.size() * sizeof(char32_t));
    out.reserve(static_cast<size_t>(total));
    const std::u32string cps = utf8_decode(s);
    std::int64_t n = 0;
    for (size_t i = 0; i <= cps.size(); ++i) {
      if (count < 0 || n < count) {
        out += to;
        ++n;
      }
      if (i < cps.size()) utf8::append_code_point(out, cps[i]);
    }
    return out;
  }
  std::uint64_t found = 0;
  for (size_t at = s.find(from);
       at != std::string::npos && (count < 0 || found < static_cast<std::uint64_t>(count));
       at = s.find(from, at + from.size()))
    ++found;
  const std::uint64_t total = s.size() - found * from.size() + found * to.size();
  check_string_size(static_cast<size_t>(total));
  const Charge scratch(static_cast<size_t>(total));
  out.reserve(static_cast<size_t>(total));
  size_t start = 0;
  std::int64_t n = 0;
  while (count < 0 || n < count) {
    const size_t at = s.find(from, start);
    if (at == std::string::npos) break;
    out.append(s, start, at - start);
    out += to;
    start = at + from.size();
    ++n;
  }
  out.append(s, start, std::string::npos);
  return out;
}

namespace {

bool is_alpha_cp(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= 0xC0 && c != 0xD7 && c != 0xF7 && !is_python_space(c));
}
char32_t upper_cp(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;  // Greek
  if (c >= 0x430 && c <= 0x44F) return c - 32;                // Cyrillic
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}
char32_t lower_cp(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

}  // namespace

std::string to_upper(std::string s) {
  const Charge scratch(s.size() * (sizeof(char32_t) + 1));
  std::u32string cps = utf8_decode(s);
  for (char32_t& c : cps) c = upper_cp(c);
  return utf8_encode(cps);
}

std::string to_lower(std::string s) {
  const Charge scratch(s.size() * (sizeof(char32_t) + 1));
  std::u32string cps = utf8_decode(s);
  for (char32_t& c : cps) c = lower_cp(c);
  return utf8_encode(cps);
}

std::string title_case(const std::string& s) {
  const Charge scratch(s.size() * (sizeof(char32_t) + 1));
  std::u32string cps = utf8_decode(s);
  bool prev_cased = false;
  for (char32_t& c : cps) {
    const bool alpha = is_alpha_cp(c);
    c = alpha ? (prev_cased ? lower_cp(c) : upper_cp(c)) : c;
    prev_cased = alpha;
  }
  return utf8_encode(cps);
}

std::string capitalize(const std::string& s) {
  const Charge scratch(s.size() * (sizeof(char32_t) + 1));
  std::u32string cps = utf8_decode(s);
  for (size_t i = 0; i < cps.size(); ++i) cps[i] = i == 0 ? upper_cp(cps[i]) : lower_cp(cps[i]);
  return utf8_encode(cps);
}

std::string percent_format(const std::string& fmt, const Value& args) {
  std::vector<Value> list;
  if (args.is_list() && args.list_obj().is_tuple)
    list = args.items();
  else
    list.push_back(args);
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 >= fmt.size()) throw RenderError("incomplete format");
    // Flags, width and precision: kept simple (%05.2f style handled by snprintf).
    size_t j = i + 1;
    std::string spec = "%";
    while (j < fmt.size() &&
           std::string_view("-+ 0#.0123456789").find(fmt[j]) != std::string_view::npos)
      spec += fmt[j++];
    if (j >= fmt.size()) throw RenderError("incomplete format");
    // snprintf pads into a 512-byte buffer (and glibc allocates a buffer as wide as the
    // width): widths and precisions beyond what it can hold are refused.
    for (size_t k = 1; k < spec.size();) {
      size_t e = k;
      while (e < spec.size() && spec[e] >= '0' && spec[e] <= '9') ++e;
      if (e - k > 3 || (e > k && std::stoi(spec.substr(k, e - k)) > 400))
        throw RenderError("format width or precision too large (at most 400)");
      k = e == k ? k + 1 : e;
    }
    const char conv = fmt[j];
    i = j;
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (next >= list.size()) throw RenderError("not enough arguments for format string");
    const Value& v = list[next++];
    char buf[512];
    switch (conv) {
      case 's':
      case 'r': {  // bounded before it is appended: a %s of a long value, again and again
        std::string text;
        const std::string& piece = conv == 's' && v.is_string()
                                       ? v.as_string()
                                       : (text = conv == 's' ? v.str() : v.repr());
        check_string_size(out.size() + piece.size());
        out += piece;
        break;
      }
      case 'd':
      case 'i':
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(),
                      static_cast<long long>(v.is_float() ? static_cast<std::int64_t>(v.as_double())
                                                          : v.as_int()));
        out += buf;
        break;
      case 'f':
      case 'e':
      case 'g':
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), v.as_double());
        out += buf;
        break;
      default:
        throw RenderError("unsupported format character '" + printable(std::string_view(&conv, 1)) +
                          "'");
    }
  }
  if (next < list.size() && !(args.is_dict()))
    throw RenderError("not all arguments converted during string formatting");
  return out;
}

}  // namespace kvchat::jinja
