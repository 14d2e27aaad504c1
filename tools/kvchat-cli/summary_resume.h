// summarize --resume: the partial summaries of a run, one JSON object per line after a
// header line that names the run (document, model, context, KV type, summary size). Each
// summary is appended and fsync'ed as soon as it exists, so a cancelled or crashed run
// continues where it stopped. A torn last line (a crash mid-write) is dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/summarize.h"

namespace kvchat::cli {

// The header line's marker key (its value 1), beside the run's own fields.
inline constexpr const char* kResumeHeaderKey = "kvchat_summarize_resume";

// {"level", "index", "token_begin", "token_end", "source_begin", "source_end", "summary"}.
nlohmann::json partial_to_json(const PartialSummary& p);

// Reads a log's `content` for the run `header`: the summaries of its whole lines go to
// `done` (a torn last line is ignored). Returns the length of the whole lines. An error
// (not a log, another run's, a line or field that is wrong) names the line and the field,
// e.g. "line 3: token_end: expected an integer in [0, ...], found a string".
Result<size_t> read_resume_lines(std::string_view content, const nlohmann::json& header,
                                 std::vector<PartialSummary>& done);

class ResumeLog {
 public:
  // Opens (or creates) `path` for the run `header`; the summaries it already holds go to
  // `done`. Fails when it belongs to another run or cannot be read or written.
  static Result<ResumeLog> open(const std::string& path, const nlohmann::json& header,
                                std::vector<PartialSummary>& done);
  ResumeLog(ResumeLog&& other) noexcept;
  ResumeLog& operator=(ResumeLog&&) = delete;
  ~ResumeLog();

  // Appends one summary and makes it durable.
  Status append(const PartialSummary& p);

 private:
  ResumeLog(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status write_line(const nlohmann::json& j);
  int fd_ = -1;
  std::string path_;
};

}  // namespace kvchat::cli
