// Where a remote endpoint's API key is kept: the system keyring (Secret Service or KWallet
// through Qt Keychain) when one answers, else <data dir>/remote_keys.json, created readable
// and writable by the user only (0600), and the window says which. KVCHAT_KEYRING=off
// skips the keyring (the tests; a machine whose keyring prompts). Keys are never logged.
// GUI thread: a keyring call runs a short event loop of its own (at most 5 s).
#pragma once

#include <QString>

namespace kvchat::app {

class RemoteKeyStore {
 public:
  explicit RemoteKeyStore(QString data_dir);
  // "keyring" or "file" (where it went), or "" with *error set.
  QString write(const QString& id, const QString& key, QString* error);
  // From where `place` says ("keyring" / "file"); "" when absent (or *error).
  QString read(const QString& id, const QString& place, QString* error) const;
  void remove(const QString& id, const QString& place);
  QString file_path() const { return file_; }
  static bool keyring_enabled();

 private:
  bool write_file(const QString& id, const QString& key, QString* error) const;
  QString file_;
};

}  // namespace kvchat::app
