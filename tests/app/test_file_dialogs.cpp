// The file dialogs' platform theme (app/platform/file_dialogs.h, issue 43 point 9): the XDG
// desktop portal's where it is there and the user chose no theme; the user's choice kept;
// without the portal, its plugin or a session bus, nothing changed (the QML dialog, in the
// window's palette). The probe reads the portal's D-Bus service file, the session bus and
// Qt's plugin folder; here they are made in temporary folders.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "platform/file_dialogs.h"

using kvchat::app::file_dialog_platform_theme;
using kvchat::app::FileDialogProbe;
using kvchat::app::probe_file_dialogs;

namespace {

FileDialogProbe portal_there() {
  FileDialogProbe p;
  p.session_bus = true;
  p.portal = true;
  p.portal_plugin = true;
  return p;
}

bool touch(const QString& path) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  return f.open(QIODevice::WriteOnly);
}

// An environment variable set for one scope, then put back.
struct ScopedEnv {
  QByteArray name, old;
  bool was_set;
  ScopedEnv(const char* n, const QByteArray& value)
      : name(n), old(qgetenv(n)), was_set(qEnvironmentVariableIsSet(n)) {
    if (value.isNull())
      qunsetenv(n);
    else
      qputenv(n, value);
  }
  ~ScopedEnv() {
    if (was_set)
      qputenv(name.constData(), old);
    else
      qunsetenv(name.constData());
  }
};

}  // namespace

class TestFileDialogs : public QObject {
  Q_OBJECT
 private slots:
  void thePortalWhenItIsThereAndNoThemeIsChosen() {
    QCOMPARE(file_dialog_platform_theme(portal_there()), QByteArray("xdgdesktopportal"));
    FileDialogProbe on_xcb = portal_there();
    on_xcb.qpa_platform = "xcb";
    QCOMPARE(file_dialog_platform_theme(on_xcb), QByteArray("xdgdesktopportal"));
    FileDialogProbe on_wayland = portal_there();
    on_wayland.qpa_platform = "wayland-egl";
    QCOMPARE(file_dialog_platform_theme(on_wayland), QByteArray("xdgdesktopportal"));
  }

  void theUsersThemeIsKept() {
    FileDialogProbe p = portal_there();
    p.user_theme = "gtk3";
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
    p.user_theme = "xdgdesktopportal";  // already: nothing to set
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
  }

  void nothingChangesWithoutThePortal() {
    FileDialogProbe p = portal_there();
    p.portal = false;
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
    p = portal_there();
    p.session_bus = false;
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
    p = portal_there();
    p.portal_plugin = false;  // Qt would fall back anyway; nothing is claimed
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
    p = portal_there();
    p.qpa_platform = "offscreen";  // the tests: no dialogs shown
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
    QVERIFY(file_dialog_platform_theme(FileDialogProbe{}).isEmpty());
  }

  // The probe on made-up folders: the service file under $XDG_DATA_DIRS, the bus address,
  // the plugin under platformthemes/, the user's variable.
  void theProbeFindsWhatIsThere() {
    QTemporaryDir data, home, plugins, empty;
    ScopedEnv data_home("XDG_DATA_HOME", home.path().toUtf8());
    ScopedEnv data_dirs("XDG_DATA_DIRS", data.path().toUtf8());
    ScopedEnv bus("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
    ScopedEnv theme("QT_QPA_PLATFORMTHEME", QByteArray());
    ScopedEnv snap("SNAP", QByteArray());
    QVERIFY(touch(plugins.path() + "/platformthemes/libqxdgdesktopportal.so"));

    FileDialogProbe p = probe_file_dialogs({plugins.path()});
    QVERIFY(p.session_bus);
    QVERIFY(p.portal_plugin);
    QVERIFY(p.user_theme.isEmpty());
    if (!QFileInfo::exists("/.flatpak-info")) QVERIFY(!p.portal);  // no service file yet
    QVERIFY(touch(data.path() + "/dbus-1/services/org.freedesktop.portal.Desktop.service"));
    p = probe_file_dialogs({plugins.path()});
    QVERIFY(p.portal);
    p.qpa_platform = {};
    QCOMPARE(file_dialog_platform_theme(p), QByteArray("xdgdesktopportal"));
    QVERIFY(!probe_file_dialogs({empty.path()}).portal_plugin);

    ScopedEnv chosen("QT_QPA_PLATFORMTHEME", "gtk3");
    p = probe_file_dialogs({plugins.path()});
    QCOMPARE(p.user_theme, QByteArray("gtk3"));
    QVERIFY(file_dialog_platform_theme(p).isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestFileDialogs)
#include "test_file_dialogs.moc"
