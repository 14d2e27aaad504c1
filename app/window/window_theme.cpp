#include "window/window_theme.h"

#include <QGuiApplication>
#include <QPalette>

namespace kvchat::app {

WindowTheme::WindowTheme(const QString& choice) : name_(choice) {
  if (name_ == QStringLiteral("system")) {
    const bool dark = QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
    name_ = dark ? QStringLiteral("dark") : QStringLiteral("light");
  }
}

}  // namespace kvchat::app
