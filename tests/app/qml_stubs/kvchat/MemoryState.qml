// Stand-in for MemoryState in tst_settings_drawer.qml: the snapshots' budget (4 GiB, the default).
pragma Singleton
import QtQuick
QtObject { property double snapshotBudgetBytes: 4294967296 }
