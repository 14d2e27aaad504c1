#include "hub/names.h"

#include <QCoreApplication>
#include <QStringList>

namespace kvchat::hub {

namespace {

bool ascii_name_char(QChar c) {
  const char16_t u = c.unicode();
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-' ||
         u == '_' || u == '.';
}

bool alnum(QChar c) {
  const char16_t u = c.unicode();
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9');
}

}  // namespace

QString repo_id_problem(const QString& repo) {
  if (repo.isEmpty())
    return QCoreApplication::translate("HubNames", "The repository name is empty.");
  if (repo.size() > kMaxRepoIdLength)
    return QCoreApplication::translate("HubNames", "The repository name is too long.");
  const QStringList parts = repo.split(u'/');
  if (parts.size() != 2) {
    return QCoreApplication::translate(
        "HubNames", "The repository name must be owner/name, with exactly one '/'.");
  }
  for (const QString& part : parts) {
    if (part.isEmpty())
      return QCoreApplication::translate(
          "HubNames", "The repository name must be owner/name, with exactly one '/'.");
    for (QChar c : part) {
      if (!ascii_name_char(c)) {
        return QCoreApplication::translate(
            "HubNames", "The repository name may only contain letters, digits, '-', '_' and '.'.");
      }
    }
    if (!alnum(part.front())) {
      return QCoreApplication::translate(
          "HubNames", "Each part of the repository name must start with a letter or a digit.");
    }
    if (part.contains(QLatin1String("..")) || part.contains(QLatin1String("--"))) {
      return QCoreApplication::translate("HubNames",
                                         "The repository name must not contain '..' or '--'.");
    }
  }
  return {};
}

QString file_path_problem(const QString& path) {
  if (path.isEmpty()) return QCoreApplication::translate("HubNames", "The file name is empty.");
  if (path.size() > kMaxFilePathLength)
    return QCoreApplication::translate("HubNames", "The file name is too long.");
  for (QChar c : path) {
    if (c.unicode() < 0x20 || c.unicode() == 0x7f || c.category() == QChar::Other_Control ||
        c.category() == QChar::Other_Format) {
      return QCoreApplication::translate("HubNames", "The file name contains control characters.");
    }
    if (c == u'\\' || c == u':')
      return QCoreApplication::translate("HubNames", "The file name must not contain '\\' or ':'.");
  }
  if (path.startsWith(u'/'))
    return QCoreApplication::translate("HubNames", "The file name must not be an absolute path.");
  for (const QString& part : path.split(u'/')) {
    if (part.isEmpty() || part == QLatin1String(".") || part == QLatin1String("..")) {
      return QCoreApplication::translate(
          "HubNames", "The file name must not contain empty, '.' or '..' parts.");
    }
    if (part.size() > kMaxPathComponentLength)
      return QCoreApplication::translate("HubNames", "A part of the file name is too long.");
  }
  return {};
}

QString file_size_problem(qint64 bytes) {
  if (bytes < 0) return QCoreApplication::translate("HubNames", "The file size is negative.");
  if (bytes > kMaxFileBytes)
    return QCoreApplication::translate("HubNames", "The file size is absurdly large.");
  return {};
}

QString sha256_problem(const QString& sha256) {
  if (sha256.size() != 64)
    return QCoreApplication::translate("HubNames", "The SHA-256 must be 64 hexadecimal digits.");
  for (QChar c : sha256) {
    const char16_t u = c.unicode();
    if (!((u >= '0' && u <= '9') || (u >= 'a' && u <= 'f'))) {
      return QCoreApplication::translate("HubNames",
                                         "The SHA-256 must be 64 lowercase hexadecimal digits.");
    }
  }
  return {};
}

}  // namespace kvchat::hub
