// kvchat's SQLite schema: the DDL of every table of kvchat.sqlite but the downloads table
// (app/hub/download_schema.h, one of its steps, also kvchat-cli's own state file).
// migrations() is the history of kvchat.sqlite (ConversationStore::open runs it).
#pragma once

#include <QStringList>
#include <QVector>

namespace kvchat::app {

// One schema migration step: the SQL statements (one statement per entry) that take the
// schema from version N to N+1. All pending steps of one open() run in a single
// transaction together with the `PRAGMA user_version` bump; if any statement fails the
// file stays exactly as it was.
using MigrationStep = QStringList;

namespace schema {

// kvchat.sqlite's history: entry i takes a file from schema version i to i+1; its size()
// is ConversationStore::kSchemaVersion.
QVector<MigrationStep> migrations();

}  // namespace schema
}  // namespace kvchat::app
