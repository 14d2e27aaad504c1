// Which file dialogs the window gets (issue 43 point 9). Qt Quick Dialogs' FileDialog (Main.qml,
// Sidebar.qml) is the platform's own when the platform theme offers one, else a dialog drawn
// in QML with the window's palette (Main.qml sets every role it draws with; the contrast test
// checks them). On Linux outside Flatpak and Snap, Qt 6.4 asks the XDG desktop portal (the
// desktop's own file chooser, in its own theme) only with QT_QPA_PLATFORMTHEME=xdgdesktopportal:
// kvchat sets it, before the QGuiApplication is made, when the portal is there (a session
// bus and the portal's D-Bus service), Qt's plugin for it is installed and the user chose
// no platform theme of their own. kvchat does not link QtDBus: the portal is known by its
// service file, which is how D-Bus itself starts it.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace kvchat::app {

// What decides it, as found on this machine (probe_file_dialogs) or given by a test.
struct FileDialogProbe {
  QByteArray user_theme;       // QT_QPA_PLATFORMTHEME as found (empty: not set)
  QByteArray qpa_platform;     // QT_QPA_PLATFORM as found ("offscreen" in the tests: no dialogs)
  bool session_bus = false;    // a D-Bus session bus to reach the portal on
  bool portal = false;         // org.freedesktop.portal.Desktop can be started (or sandboxed)
  bool portal_plugin = false;  // Qt's xdgdesktopportal platform theme is installed
};

inline constexpr char kPortalPlatformTheme[] = "xdgdesktopportal";

// The platform theme to set for the file dialogs: kPortalPlatformTheme when the portal and
// Qt's plugin for it are there and the user set none (on a desktop platform); empty: leave
// QT_QPA_PLATFORMTHEME as it is (the user's choice is kept; without a portal Qt's own
// theme stays, and the QML dialog takes the window's palette).
QByteArray file_dialog_platform_theme(const FileDialogProbe& probe);

// This machine: the environment, the D-Bus service directories ($XDG_DATA_HOME, then
// $XDG_DATA_DIRS, each's dbus-1/services) and `plugin_dirs`' platformthemes/ (by default
// Qt's plugin folder and $QT_PLUGIN_PATH).
FileDialogProbe probe_file_dialogs(const QStringList& plugin_dirs = {});

// Before the QGuiApplication: sets QT_QPA_PLATFORMTHEME as file_dialog_platform_theme says;
// returns what it set (empty: nothing).
QByteArray prefer_platform_file_dialogs();

}  // namespace kvchat::app
