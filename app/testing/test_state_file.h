#pragma once
// The end-to-end tests read what the window shows from JSON files the app writes when
// KVCHAT_TEST_STATE_FILE is set. A reader must never see the file missing or half
// written: each write replaces it in one rename.

#include <QByteArray>
#include <QString>
#include <QVariantMap>

namespace kvchat::app {

// Writes `json` to `path` through a temporary file renamed over it; false when it failed.
bool write_test_state_file(const QString& path, const QByteArray& json);
bool write_test_state_file(const QString& path, const QVariantMap& state);

}  // namespace kvchat::app
