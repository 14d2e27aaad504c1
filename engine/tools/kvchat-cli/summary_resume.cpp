// The summarize --resume log (see summary_resume.h).
#include "summary_resume.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "cli_common.h"

namespace kvchat::cli {
namespace {

constexpr const char* kHeaderKey = "kvchat_summarize_resume";

Result<PartialSummary> partial_from_json(const nlohmann::json& j) {
  PartialSummary p;
  try {
    p.level = j.at("level").get<int32_t>();
    p.index = j.at("index").get<int32_t>();
    p.token_begin = j.at("token_begin").get<int64_t>();
    p.token_end = j.at("token_end").get<int64_t>();
    p.source_begin = j.at("source_begin").get<int32_t>();
    p.source_end = j.at("source_end").get<int32_t>();
    p.text = j.at("summary").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("a summary line is malformed: ") + e.what()};
  }
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

Result<ResumeLog> ResumeLog::open(const std::string& path, const nlohmann::json& header,
                                  std::vector<PartialSummary>& done) {
  std::string content;
  if (::access(path.c_str(), F_OK) == 0) {
    auto r = read_file(path);
    if (!r) return r.error();
    content = std::move(*r);
  }
  // Whole lines only: a torn last line is cut off before appending.
  const size_t whole = content.rfind('\n') == std::string::npos ? 0 : content.rfind('\n') + 1;
  std::istringstream lines(content.substr(0, whole));
  std::string line;
  bool have_header = false;
  while (std::getline(lines, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return Error{path + ": not a summarize resume file (a line is not JSON)"};
    if (!have_header) {
      if (!j.is_object() || !j.contains(kHeaderKey))
        return Error{path + ": not a summarize resume file"};
      nlohmann::json want = header;
      want[kHeaderKey] = 1;
      if (j != want) {
        return Error{path + ": saved by another run (" + j.dump() + ", this one is " + want.dump() +
                     "); delete it to start over"};
      }
      have_header = true;
      continue;
    }
    auto p = partial_from_json(j);
    if (!p) return Error{path + ": " + p.message()};
    done.push_back(std::move(*p));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{path + ": cannot open for writing: " + std::strerror(errno)};
  ResumeLog log(fd, path);
  if (::ftruncate(fd, static_cast<off_t>(whole)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    return Error{path + ": cannot prepare for writing: " + std::strerror(errno)};
  }
  if (!have_header) {
    nlohmann::json h = header;
    h[kHeaderKey] = 1;
    if (auto s = log.write_line(h); !s) return Error{s.message()};
  }
  return log;
}

ResumeLog::ResumeLog(ResumeLog&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

ResumeLog::~ResumeLog() {
  if (fd_ >= 0) ::close(fd_);
}

Status ResumeLog::append(const PartialSummary& p) {
  return write_line(partial_to_json(p));
}

Status ResumeLog::write_line(const nlohmann::json& j) {
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path_ + ": cannot write: " + std::strerror(errno)};
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd_) != 0) return Error{path_ + ": cannot sync: " + std::strerror(errno)};
  return {};
}

}  // namespace kvchat::cli
