#include "hub/download_schema.h"

namespace kvchat::hub {

QStringList downloads_table_v1() {
  return {
      QStringLiteral("CREATE TABLE downloads ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " repo TEXT NOT NULL,"
                     " file TEXT NOT NULL,"
                     " url TEXT NOT NULL,"
                     " dest_path TEXT NOT NULL UNIQUE,"
                     " part_path TEXT NOT NULL,"
                     " expected_size INTEGER NOT NULL DEFAULT 0,"
                     " sha256 TEXT NOT NULL DEFAULT '',"
                     " etag TEXT NOT NULL DEFAULT '',"
                     " bytes_done INTEGER NOT NULL DEFAULT 0,"
                     " status TEXT NOT NULL DEFAULT 'queued'"
                     "   CHECK (status IN ('queued', 'running', 'paused', 'failed', 'done')),"
                     " error TEXT NOT NULL DEFAULT '',"
                     " created_at INTEGER NOT NULL,"
                     " updated_at INTEGER NOT NULL)")};
}

}  // namespace kvchat::hub
