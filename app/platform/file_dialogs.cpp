#include "platform/file_dialogs.h"

#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QtGlobal>

namespace kvchat::app {
namespace {

const QString kPortalService =
    QStringLiteral("dbus-1/services/org.freedesktop.portal.Desktop.service");

// Where D-Bus looks for session services (the XDG base directory defaults when unset).
QStringList data_dirs() {
  QStringList dirs;
  const QString home = qEnvironmentVariable("XDG_DATA_HOME");
  dirs << (home.isEmpty() ? QDir::homePath() + QStringLiteral("/.local/share") : home);
  const QString system = qEnvironmentVariable("XDG_DATA_DIRS");
  dirs << (system.isEmpty() ? QStringLiteral("/usr/local/share:/usr/share") : system)
              .split(QLatin1Char(':'), Qt::SkipEmptyParts);
  return dirs;
}

bool has_portal_service() {
  // In Flatpak and Snap the portal is the way out of the sandbox: it is always there.
  if (QFileInfo::exists(QStringLiteral("/.flatpak-info")) || qEnvironmentVariableIsSet("SNAP"))
    return true;
  for (const QString& dir : data_dirs()) {
    if (QFileInfo::exists(QDir(dir).filePath(kPortalService))) return true;
  }
  return false;
}

bool has_session_bus() {
  if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS")) return true;
  // Without the variable, D-Bus clients find the user's bus at $XDG_RUNTIME_DIR/bus.
  const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
  return !runtime.isEmpty() && QFileInfo::exists(runtime + QStringLiteral("/bus"));
}

bool has_portal_plugin(QStringList plugin_dirs) {
  if (plugin_dirs.isEmpty()) {
    plugin_dirs << QLibraryInfo::path(QLibraryInfo::PluginsPath);
    plugin_dirs
        << qEnvironmentVariable("QT_PLUGIN_PATH").split(QLatin1Char(':'), Qt::SkipEmptyParts);
  }
  for (const QString& dir : plugin_dirs) {
    const QStringList found = QDir(dir + QStringLiteral("/platformthemes"))
                                  .entryList({QStringLiteral("*xdgdesktopportal*")}, QDir::Files);
    if (!found.isEmpty()) return true;
  }
  return false;
}

}  // namespace

QByteArray file_dialog_platform_theme(const FileDialogProbe& probe) {
  if (!probe.user_theme.isEmpty()) return {};  // the user's choice
  // Only a desktop platform shows dialogs (offscreen and minimal are the tests' and tools').
  const QByteArray platform = probe.qpa_platform.split(':').value(0);
  if (!platform.isEmpty() && platform != "xcb" && platform != "wayland" &&
      !platform.startsWith("wayland-"))
    return {};
  if (!probe.session_bus || !probe.portal || !probe.portal_plugin) return {};
  return kPortalPlatformTheme;
}

FileDialogProbe probe_file_dialogs(const QStringList& plugin_dirs) {
  FileDialogProbe probe;
  probe.user_theme = qgetenv("QT_QPA_PLATFORMTHEME");
  probe.qpa_platform = qgetenv("QT_QPA_PLATFORM");
  probe.session_bus = has_session_bus();
  probe.portal = has_portal_service();
  probe.portal_plugin = has_portal_plugin(plugin_dirs);
  return probe;
}

QByteArray prefer_platform_file_dialogs() {
  const QByteArray theme = file_dialog_platform_theme(probe_file_dialogs());
  if (!theme.isEmpty()) qputenv("QT_QPA_PLATFORMTHEME", theme);
  return theme;
}

}  // namespace kvchat::app
