// Validation of names and numbers that come from the network (the Hub's search results
// and file trees) before they are shown, put in a URL or turned into a local path.
// Each *_problem() returns an empty string for a valid value, else why it is refused in
// plain words (translated, context "HubNames").
#pragma once

#include <QString>
#include <QtGlobal>

namespace kvchat::hub {

// Longest accepted repository id and file path (the Hub's own limits are lower).
inline constexpr int kMaxRepoIdLength = 200;
inline constexpr int kMaxFilePathLength = 1024;
inline constexpr int kMaxPathComponentLength = 255;
// Largest accepted file size: no GGUF is a tebibyte.
inline constexpr qint64 kMaxFileBytes = qint64(1) << 40;

// "owner/name": two parts of ASCII letters, digits, '-', '_' and '.', each starting with
// a letter or digit, no "..", no "--" (the Hub forbids both).
QString repo_id_problem(const QString& repo);
// A path inside a repository: '/'-separated components, none empty, "." or ".."; no
// leading '/', no backslash, no control characters, no ':' (drive letters, streams).
QString file_path_problem(const QString& path);
// A file size: 0 .. kMaxFileBytes.
QString file_size_problem(qint64 bytes);
// A SHA-256 as the Hub writes it (lfs.oid): 64 lowercase hexadecimal digits.
QString sha256_problem(const QString& sha256);

inline bool valid_repo_id(const QString& repo) { return repo_id_problem(repo).isEmpty(); }
inline bool valid_file_path(const QString& path) { return file_path_problem(path).isEmpty(); }

}  // namespace kvchat::hub
