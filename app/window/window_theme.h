// WindowTheme: the palette the window starts with (QML singleton WindowTheme): "light",
// "dark", or "system" resolved by the platform's window colour (Qt 6.4 has no
// colour-scheme API; the palette is what it gives).
#pragma once

#include <QObject>
#include <QString>

namespace kvchat::app {

class WindowTheme : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString name READ name CONSTANT)

 public:
  // `choice`: --theme's value ("light", "dark" or "system").
  explicit WindowTheme(const QString& choice);
  QString name() const { return name_; }  // "light" or "dark" ("system" resolved)

 private:
  QString name_;
};

}  // namespace kvchat::app
