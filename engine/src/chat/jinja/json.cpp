// A small JSON reader and a json.dumps-compatible writer.
#include "chat/jinja/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tokenizer/utf8.h"
#include "util/printable.h"

namespace kvchat::jinja {
namespace {

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  Value document() {
    Value v = value(0);
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail(const std::string& what) const {
    throw RenderError("invalid JSON at byte " + std::to_string(pos_) + ": " + what);
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return Value(string());
    if (consume("true")) return Value(true);
    if (consume("false")) return Value(false);
    if (consume("null")) return Value::none();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    fail("unexpected character '" + printable(std::string_view(&c, 1)) + "'");
  }

  Value object(int depth) {
    ++pos_;
    Value d = Value::dict();
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return d;
    }
    while (true) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a key");
      std::string key = string();
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') fail("expected ':'");
      ++pos_;
      d.dict_obj().set(Value(std::move(key)), value(depth + 1));
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return d;
      }
      fail("expected ',' or '}'");
    }
  }

  Value array(int depth) {
    ++pos_;
    std::vector<Value> items;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return Value::list(std::move(items));
    }
    while (true) {
      items.push_back(value(depth + 1));
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return Value::list(std::move(items));
      }
      fail("expected ',' or ']'");
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        v |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        v |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return v;
  }

  std::string string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          char32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            const size_t save = pos_;
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000)
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else
              pos_ = save;
          }
          utf8::append_code_point(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  Value number() {
    const size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    bool is_float = false;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && is_float)) {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    const std::string text(s_.substr(start, pos_ - start));
    if (text == "-") fail("bad number");
    if (!is_float) {
      errno = 0;
      const long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == 0) return Value(static_cast<std::int64_t>(v));
    }
    return Value(std::strtod(text.c_str(), nullptr));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

void dump_string(std::string& out, const std::string& s) {
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (i % 65536 == 0) check_string_size(out.size());  // escapes take up to 6 bytes each
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

class JsonWriter {
 public:
  explicit JsonWriter(const JsonDumpOptions& o) : o_(o) {}

  // Bounded as it grows: a dict that holds another twice, again and again, is
  // exponentially long.
  void write(std::string& out, const Value& v, int level) {
    if (level > kMaxValueDepth) throw RenderError("tojson: value nested too deeply");
    check_string_size(out.size());
    budget_tick();
    switch (v.kind()) {
      case Value::Kind::None: out += "null"; return;
      case Value::Kind::Bool: out += v.as_bool() ? "true" : "false"; return;
      case Value::Kind::Int: out += std::to_string(v.as_int()); return;
      case Value::Kind::Float: {
        const double d = v.as_double();
        if (std::isnan(d))
          out += "NaN";
        else if (std::isinf(d))
          out += d < 0 ? "-Infinity" : "Infinity";
        else
          out += format_float(d);
        return;
      }
      case Value::Kind::String: dump_string(out, v.as_string()); return;
      case Value::Kind::List: {
        if (v.is_iterator())
          throw RenderError("Object of type " + v.type_name() + " is not JSON serializable");
        const auto& items = v.items();
        if (items.empty()) {
          out += "[]";
          return;
        }
        out += '[';
        for (size_t i = 0; i < items.size(); ++i) {
          if (i) out += item_sep();
          newline(out, level + 1);
          write(out, items[i], level + 1);
        }
        newline(out, level);
        out += ']';
        return;
      }
      case Value::Kind::Dict: {
        std::vector<const std::pair<Value, Value>*> entries;
        for (const auto& e : v.dict_obj().items) entries.push_back(&e);
        if (entries.empty()) {
          out += "{}";
          return;
        }
        if (o_.sort_keys) {
          std::stable_sort(entries.begin(), entries.end(),
                           [](auto* a, auto* b) { return value_less(a->first, b->first); });
        }
        out += '{';
        for (size_t i = 0; i < entries.size(); ++i) {
          if (i) out += item_sep();
          newline(out, level + 1);
          const Value& k = entries[i]->first;
          if (k.is_string())
            dump_string(out, k.as_string());
          else if (k.is_none())
            out += "\"null\"";
          else if (k.is_bool())
            out += k.as_bool() ? "\"true\"" : "\"false\"";
          else if (k.is_int() || k.is_float())
            out += "\"" + k.str() + "\"";
          else
            throw RenderError("keys must be str, int, float, bool or None, not " + k.type_name());
          out += o_.key_separator;
          write(out, entries[i]->second, level + 1);
        }
        newline(out, level);
        out += '}';
        return;
      }
      default: throw RenderError("Object of type " + v.type_name() + " is not JSON serializable");
    }
  }

 private:
  const std::string& item_sep() const { return o_.item_separator; }
  void newline(std::string& out, int level) const {
    if (!o_.indent) return;
    check_string_size(out.size() + 1 + static_cast<size_t>(level) * o_.indent->size());
    out += '\n';
    for (int i = 0; i < level; ++i) out += *o_.indent;
  }
  const JsonDumpOptions& o_;
};

}  // namespace

Value parse_json(std::string_view text) { return JsonReader(text).document(); }

std::string dump_json(const Value& value, const JsonDumpOptions& options) {
  std::string out;
  JsonWriter(options).write(out, value, 0);
  return out;
}

}  // namespace kvchat::jinja
