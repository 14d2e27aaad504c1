// The summarize --resume log (see summary_resume.h).
#include "summary_resume.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli_common.h"
#include "json_field.h"

namespace kvchat::cli {

Result<ResumeLog> ResumeLog::open(const std::string& path, const nlohmann::json& header,
                                  std::vector<PartialSummary>& done) {
  std::string content;
  if (::access(path.c_str(), F_OK) == 0) {
    auto r = read_file(path);
    if (!r) return r.error();
    content = std::move(*r);
  }
  auto whole = read_resume_lines(content, header, done);
  if (!whole) return Error{path + ": " + whole.message()};
  const bool have_header = *whole > 0;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{path + ": cannot open for writing: " + std::strerror(errno)};
  ResumeLog log(fd, path);
  if (::ftruncate(fd, static_cast<off_t>(*whole)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    return Error{path + ": cannot prepare for writing: " + std::strerror(errno)};
  }
  if (!have_header) {
    nlohmann::json h = header;
    h[kResumeHeaderKey] = 1;
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

Status ResumeLog::append(const PartialSummary& p) { return write_line(partial_to_json(p)); }

Status ResumeLog::write_line(const nlohmann::json& j) {
  const std::string line = json_text(j) + "\n";
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
