// The summarize --resume log's lines (see summary_resume.h): written by ResumeLog, read
// back with every field's type and range checked.
#include <limits>
#include <sstream>

#include "json_field.h"
#include "summary_resume.h"
#include "util/printable.h"

namespace kvchat::cli {
namespace {

constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

Result<PartialSummary> partial_from_json(const JsonField& line) {
  PartialSummary p;
  auto int_of = [&](const char* key, int64_t max, auto& out) -> Status {
    auto field = line.member(key);
    if (!field) return field.error();
    auto v = field->integer(0, max);
    if (!v) return v.error();
    out = static_cast<std::remove_reference_t<decltype(out)>>(*v);
    return {};
  };
  for (Status st : {int_of("level", kMaxInt32, p.level), int_of("index", kMaxInt32, p.index),
                    int_of("token_begin", kMaxInt64, p.token_begin),
                    int_of("token_end", kMaxInt64, p.token_end),
                    int_of("source_begin", kMaxInt32, p.source_begin),
                    int_of("source_end", kMaxInt32, p.source_end)}) {
    if (!st) return Error{st.message()};
  }
  auto summary = line.member("summary");
  if (!summary) return summary.error();
  auto text = summary->string();
  if (!text) return text.error();
  p.text = std::move(*text);
  return p;
}

}  // namespace

nlohmann::json partial_to_json(const PartialSummary& p) {
  return {{"level", p.level},
          {"index", p.index},
          {"token_begin", p.token_begin},
          {"token_end", p.token_end},
          {"source_begin", p.source_begin},
          {"source_end", p.source_end},
          {"summary", p.text}};
}

Result<size_t> read_resume_lines(std::string_view content, const nlohmann::json& header,
                                 std::vector<PartialSummary>& done) {
  // Whole lines only: a torn last line is cut off before appending.
  const size_t last_newline = content.rfind('\n');
  const size_t whole = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  nlohmann::json want = header;
  want[kResumeHeaderKey] = 1;
  size_t line_no = 0;
  for (size_t at = 0; at < whole;) {
    const size_t end = content.find('\n', at);
    const std::string_view line = content.substr(at, end - at);
    at = end + 1;
    const std::string where = "line " + std::to_string(++line_no) + ": ";
    auto j = parse_json(line);
    if (!j) return Error{where + "not a summarize resume file (" + j.message() + ")"};
    if (line_no == 1) {
      if (!j->is_object() || !j->contains(kResumeHeaderKey)) {
        return Error{"not a summarize resume file (its first line is not the header)"};
      }
      if (*j != want) {
        return Error{"saved by another run (" + printable(json_text(*j), 1000) + ", this one is " +
                     json_text(want) + "); delete it to start over"};
      }
      continue;
    }
    auto p = partial_from_json(JsonField(*j, ""));
    if (!p) return Error{where + p.message()};
    done.push_back(std::move(*p));
  }
  return whole;
}

}  // namespace kvchat::cli
