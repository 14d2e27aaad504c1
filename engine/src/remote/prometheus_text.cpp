// The Prometheus text exposition format (kvchat/prometheus_text.h), line by line.
#include "kvchat/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace kvchat {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void skip_blanks(std::string_view& s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
}

// The next blank-separated token of `s` (removed from it).
std::string_view next_token(std::string_view& s) {
  skip_blanks(s);
  size_t end = 0;
  while (end < s.size() && !is_blank(s[end])) ++end;
  const std::string_view token = s.substr(0, end);
  s.remove_prefix(end);
  return token;
}

bool name_start(char c, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}
bool name_char(char c, bool colon) { return name_start(c, colon) || (c >= '0' && c <= '9'); }

// A metric name (colons allowed) or a label name at the front of `s`; "" when none.
std::string_view take_name(std::string_view& s, bool colon) {
  if (s.empty() || !name_start(s.front(), colon)) return {};
  size_t end = 1;
  while (end < s.size() && name_char(s[end], colon)) ++end;
  const std::string_view name = s.substr(0, end);
  s.remove_prefix(end);
  return name;
}

bool valid_metric_name(std::string_view s) {
  std::string_view rest = s;
  return !take_name(rest, true).empty() && rest.empty();
}

// HELP's text: \\ and \n are escapes, any other backslash stands for itself.
std::string unescape_help(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
      out += s[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A float as Go's ParseFloat reads it (decimal), and NaN / Inf in any case with a sign.
std::optional<double> parse_value(std::string_view s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  std::string_view body = lower;
  const bool negative = !body.empty() && body.front() == '-';
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) body.remove_prefix(1);
  if (body == "inf" || body == "infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (body == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (body.empty() || body.front() == '+' || body.front() == '-') return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -v : v;
}

class Parser {
 public:
  explicit Parser(PromMetrics& out) : out_(out) {}

  void line(std::string_view raw, size_t number) {
    number_ = number;
    const std::string_view l = trim(raw);
    if (l.empty()) return;
    if (l.front() == '#') return comment(l.substr(1));
    sample(l);
  }

 private:
  void problem(const std::string& why) {
    out_.problems.push_back("line " + std::to_string(number_) + ": " + why);
  }

  PromFamily& family(std::string_view name) {
    for (PromFamily& f : out_.families)
      if (f.name == name) return f;
    out_.families.push_back({std::string(name), "untyped", ""});
    return out_.families.back();
  }

  void comment(std::string_view rest) {
    const std::string_view keyword = next_token(rest);
    if (keyword != "HELP" && keyword != "TYPE") return;  // any other comment
    const std::string_view name = next_token(rest);
    if (!valid_metric_name(name))
      return problem("# " + std::string(keyword) + " names no valid metric: '" + std::string(name) +
                     "'");
    if (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);  // one blank
    if (keyword == "HELP") {
      family(name).help = unescape_help(rest);
      return;
    }
    const std::string_view type = trim(rest);
    static const char* const kTypes[] = {"counter", "gauge", "histogram", "summary", "untyped"};
    if (std::none_of(std::begin(kTypes), std::end(kTypes),
                     [&](const char* t) { return type == t; }))
      return problem("unknown metric type '" + std::string(type) + "' for " + std::string(name));
    family(name).type = std::string(type);
  }

  // `{name="value",...}` at the front of s, removed; false (and a problem) when broken.
  bool labels(std::string_view& s, std::vector<PromLabel>& out) {
    s.remove_prefix(1);  // '{'
    while (true) {
      skip_blanks(s);
      if (!s.empty() && s.front() == '}') {
        s.remove_prefix(1);
        return true;
      }
      const std::string_view name = take_name(s, false);
      if (name.empty()) return problem("a label name was expected"), false;
      skip_blanks(s);
      if (s.empty() || s.front() != '=')
        return problem("'=' after label " + std::string(name)), false;
      s.remove_prefix(1);
      skip_blanks(s);
      if (s.empty() || s.front() != '"')
        return problem("label " + std::string(name) + "'s value is not quoted"), false;
      s.remove_prefix(1);
      std::string value;
      bool closed = false;
      while (!s.empty() && !closed) {
        const char c = s.front();
        s.remove_prefix(1);
        if (c == '"') {
          closed = true;
        } else if (c == '\\') {
          if (s.empty()) break;
          const char e = s.front();
          s.remove_prefix(1);
          if (e == 'n')
            value += '\n';
          else if (e == '\\' || e == '"')
            value += e;
          else
            return problem("invalid escape '\\" + std::string(1, e) + "' in a label value"), false;
        } else {
          value += c;
        }
      }
      if (!closed) return problem("label " + std::string(name) + "'s value is not closed"), false;
      for (const PromLabel& l : out)
        if (l.name == name) return problem("label " + std::string(name) + " twice"), false;
      out.push_back({std::string(name), std::move(value)});
      skip_blanks(s);
      if (!s.empty() && s.front() == ',') {
        s.remove_prefix(1);
        continue;
      }
      if (!s.empty() && s.front() == '}') continue;
      return problem("',' or '}' expected after label " + std::string(name)), false;
    }
  }

  void sample(std::string_view s) {
    PromSample out;
    const std::string_view name = take_name(s, true);
    if (name.empty()) return problem("not a sample: '" + std::string(s.substr(0, 40)) + "'");
    out.name = std::string(name);
    if (!s.empty() && !is_blank(s.front()) && s.front() != '{')
      return problem("'" + std::string(name) + std::string(1, s.front()) +
                     "...' is not a metric name");
    skip_blanks(s);
    if (!s.empty() && s.front() == '{' && !labels(s, out.labels)) return;
    const std::string_view value = next_token(s);
    if (value.empty()) return problem(out.name + " has no value");
    const auto v = parse_value(value);
    if (!v) return problem(out.name + "'s value '" + std::string(value) + "' is not a number");
    out.value = *v;
    const std::string_view timestamp = next_token(s);
    if (!timestamp.empty()) {
      int64_t ms = 0;
      const auto [end, ec] =
          std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), ms);
      if (ec != std::errc() || end != timestamp.data() + timestamp.size())
        return problem(out.name + "'s timestamp '" + std::string(timestamp) +
                       "' is not an integer");
      out.timestamp_ms = ms;
    }
    if (!trim(s).empty()) return problem(out.name + " has more after its timestamp");
    out_.samples.push_back(std::move(out));
  }

  PromMetrics& out_;
  size_t number_ = 0;
};

bool has_labels(const PromSample& s, const std::vector<PromLabel>& with) {
  return std::all_of(with.begin(), with.end(), [&](const PromLabel& l) {
    return std::find(s.labels.begin(), s.labels.end(), l) != s.labels.end();
  });
}

}  // namespace

std::string PromSample::label(std::string_view label_name) const {
  for (const PromLabel& l : labels)
    if (l.name == label_name) return l.value;
  return {};
}

std::optional<double> PromMetrics::value(std::string_view name,
                                         const std::vector<PromLabel>& with) const {
  for (const PromSample& s : samples)
    if (s.name == name && has_labels(s, with)) return s.value;
  return std::nullopt;
}

std::optional<double> PromMetrics::sum(std::string_view name) const {
  std::optional<double> total;
  for (const PromSample& s : samples)
    if (s.name == name) total = total.value_or(0) + s.value;
  return total;
}

const PromFamily* PromMetrics::family(std::string_view name) const {
  for (const PromFamily& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

Result<PromMetrics> parse_prometheus_text(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes)
    return Error{"the metrics page is " + std::to_string(text.size() >> 20) + " MiB, over the " +
                 std::to_string(max_bytes >> 20) + " MiB kvchat reads"};
  PromMetrics out;
  Parser parser(out);
  size_t number = 0;
  while (!text.empty()) {
    const size_t eol = std::min(text.find('\n'), text.size());
    parser.line(text.substr(0, eol), ++number);
    text.remove_prefix(std::min(eol + 1, text.size()));
  }
  return out;
}

}  // namespace kvchat
