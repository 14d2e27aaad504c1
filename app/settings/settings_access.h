// SettingsAccess: the window's stored settings as the controllers read and write them. A
// write the store refuses (a full disk) is kept and written with the next save; reads see
// it meanwhile (ChatController implements it over the conversation store).
#pragma once

#include <QString>
#include <QVariant>

namespace kvchat::app {

class SettingsAccess {
 public:
  virtual QVariant setting(const QString& key, const QVariant& fallback = {}) const = 0;
  virtual void save_setting(const QString& key, const QVariant& value) = 0;

 protected:
  ~SettingsAccess() = default;
};

}  // namespace kvchat::app
