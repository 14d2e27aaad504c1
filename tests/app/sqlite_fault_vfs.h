// A test-only SQLite VFS that wraps the default one ("unix") and makes writes and syncs
// fail on command, as a full disk (SQLITE_FULL, what ENOSPC becomes) or a failing one
// (SQLITE_IOERR_WRITE / SQLITE_IOERR_FSYNC, what EIO becomes) does. Registered as the
// default VFS of the process, so Qt's QSQLITE connections (the system libsqlite3, the same
// library this test links) open their files through it. Everything else passes through.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace kvchat::test {

enum class DiskFault { None, Full, IoError };

class SqliteFaultVfs {
 public:
  // Installs the VFS as the default (once per process); false when SQLite refuses.
  static bool install() {
    static const bool ok = [] {
      real() = sqlite3_vfs_find(nullptr);
      if (!real()) return false;
      sqlite3_vfs& v = vfs();
      v = *real();
      v.zName = "kvchat-fault";
      v.szOsFile = static_cast<int>(sizeof(File)) + real()->szOsFile;
      v.pAppData = nullptr;
      v.xOpen = &open;
      return sqlite3_vfs_register(&v, 1) == SQLITE_OK;
    }();
    return ok;
  }
  static void set(DiskFault f) { fault().store(f); }
  // Writes and syncs refused since install (each counted once).
  static int refused() { return refusals().load(); }

 private:
  struct File {
    sqlite3_file base;    // must be first: SQLite sees this
    sqlite3_file* inner;  // the real VFS's file, right after this struct
  };

  static sqlite3_vfs*& real() {
    static sqlite3_vfs* r = nullptr;
    return r;
  }
  static sqlite3_vfs& vfs() {
    static sqlite3_vfs v;
    return v;
  }
  static std::atomic<DiskFault>& fault() {
    static std::atomic<DiskFault> f{DiskFault::None};
    return f;
  }
  static std::atomic<int>& refusals() {
    static std::atomic<int> n{0};
    return n;
  }
  static sqlite3_file* inner(sqlite3_file* f) { return reinterpret_cast<File*>(f)->inner; }
  static int refuse(int io_code) {
    const DiskFault f = fault().load();
    if (f == DiskFault::None) return SQLITE_OK;
    ++refusals();
    return f == DiskFault::Full ? SQLITE_FULL : io_code;
  }

  static int close(sqlite3_file* f) {
    sqlite3_file* in = inner(f);
    return in->pMethods ? in->pMethods->xClose(in) : SQLITE_OK;
  }
  static int read(sqlite3_file* f, void* p, int n, sqlite3_int64 off) {
    return inner(f)->pMethods->xRead(inner(f), p, n, off);
  }
  static int write(sqlite3_file* f, const void* p, int n, sqlite3_int64 off) {
    if (const int rc = refuse(SQLITE_IOERR_WRITE)) return rc;
    return inner(f)->pMethods->xWrite(inner(f), p, n, off);
  }
  static int truncate(sqlite3_file* f, sqlite3_int64 size) {
    return inner(f)->pMethods->xTruncate(inner(f), size);
  }
  static int sync(sqlite3_file* f, int flags) {
    if (const int rc = refuse(SQLITE_IOERR_FSYNC)) return rc;
    return inner(f)->pMethods->xSync(inner(f), flags);
  }
  static int file_size(sqlite3_file* f, sqlite3_int64* size) {
    return inner(f)->pMethods->xFileSize(inner(f), size);
  }
  static int lock(sqlite3_file* f, int l) { return inner(f)->pMethods->xLock(inner(f), l); }
  static int unlock(sqlite3_file* f, int l) { return inner(f)->pMethods->xUnlock(inner(f), l); }
  static int check_reserved(sqlite3_file* f, int* out) {
    return inner(f)->pMethods->xCheckReservedLock(inner(f), out);
  }
  static int file_control(sqlite3_file* f, int op, void* arg) {
    return inner(f)->pMethods->xFileControl(inner(f), op, arg);
  }
  static int sector_size(sqlite3_file* f) { return inner(f)->pMethods->xSectorSize(inner(f)); }
  static int device_characteristics(sqlite3_file* f) {
    return inner(f)->pMethods->xDeviceCharacteristics(inner(f));
  }
  static int shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** p) {
    return inner(f)->pMethods->xShmMap(inner(f), region, size, extend, p);
  }
  static int shm_lock(sqlite3_file* f, int offset, int n, int flags) {
    return inner(f)->pMethods->xShmLock(inner(f), offset, n, flags);
  }
  static void shm_barrier(sqlite3_file* f) { inner(f)->pMethods->xShmBarrier(inner(f)); }
  static int shm_unmap(sqlite3_file* f, int del) {
    return inner(f)->pMethods->xShmUnmap(inner(f), del);
  }
  static int fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** p) {
    return inner(f)->pMethods->xFetch(inner(f), off, n, p);
  }
  static int unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
    return inner(f)->pMethods->xUnfetch(inner(f), off, p);
  }

  static const sqlite3_io_methods* methods() {
    static const sqlite3_io_methods m = {3,
                                         &close,
                                         &read,
                                         &write,
                                         &truncate,
                                         &sync,
                                         &file_size,
                                         &lock,
                                         &unlock,
                                         &check_reserved,
                                         &file_control,
                                         &sector_size,
                                         &device_characteristics,
                                         &shm_map,
                                         &shm_lock,
                                         &shm_barrier,
                                         &shm_unmap,
                                         &fetch,
                                         &unfetch};
    return &m;
  }

  static int open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
    File* file = reinterpret_cast<File*>(f);
    std::memset(file, 0, sizeof(File));
    file->inner = reinterpret_cast<sqlite3_file*>(file + 1);
    const int rc = real()->xOpen(real(), name, file->inner, flags, out_flags);
    // SQLite calls xClose only when pMethods is set, also after a failed open.
    file->base.pMethods = file->inner->pMethods ? methods() : nullptr;
    return rc;
  }
};

}  // namespace kvchat::test
