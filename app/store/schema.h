// kvchat's SQLite schema: the DDL of every table, here and nowhere else. migrations() is
// the history of kvchat.sqlite (ConversationStore::open runs it); downloads_table_v1() is
// one of its steps and also what hub::DownloadStore creates in kvchat-cli's own state
// file. In the library kvchat_sql (app/CMakeLists.txt), which kvchat_app_core and
// kvchat_hub both link.
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
// The table `downloads` (step 3 -> 4 of migrations(); hub::DownloadStore's state file).
// A shipped step: never edit; a later change is a new step.
MigrationStep downloads_table_v1();

}  // namespace schema
}  // namespace kvchat::app
