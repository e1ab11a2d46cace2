#pragma once

// An SQLite VFS that wraps the default one and counts xSync calls per file name suffix (for
// tests that a commit reached the disk: what survives a power loss). Registered as the default
// VFS while a SyncCountingVfs object lives; every file opened meanwhile goes through it.

#include <atomic>
#include <cstring>
#include <sqlite3.h>
#include <string>

namespace shardmap::testing {

class SyncCountingVfs final {
public:
    SyncCountingVfs()
    {
        s_real = sqlite3_vfs_find(nullptr);
        s_vfs = *s_real;
        s_vfs.zName = "sync-counting";
        s_vfs.szOsFile = static_cast<int>(sizeof(File)) + s_real->szOsFile;
        s_vfs.xOpen = &open;
        sqlite3_vfs_register(&s_vfs, 1);
        s_walSyncs = 0;
    }
    ~SyncCountingVfs() { sqlite3_vfs_unregister(&s_vfs); }
    SyncCountingVfs(const SyncCountingVfs&) = delete;
    SyncCountingVfs& operator=(const SyncCountingVfs&) = delete;

    // fsyncs of write-ahead logs ("-wal" files) since construction.
    static int walSyncs() { return s_walSyncs.load(); }

private:
    struct File {
        sqlite3_file base;
        bool wal;
        sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
    };

    static File* of(sqlite3_file* file) { return reinterpret_cast<File*>(file); }

    static int open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* outFlags)
    {
        File* wrapped = of(file);
        wrapped->wal = name && std::strlen(name) > 4 && std::strcmp(name + std::strlen(name) - 4, "-wal") == 0;
        const int rc = s_real->xOpen(s_real, name, wrapped->real(), flags, outFlags);
        wrapped->base.pMethods = rc == SQLITE_OK && wrapped->real()->pMethods ? &s_methods : nullptr;
        return rc;
    }

    static int sync(sqlite3_file* file, int flags)
    {
        if (of(file)->wal)
            ++s_walSyncs;
        return of(file)->real()->pMethods->xSync(of(file)->real(), flags);
    }

    static inline sqlite3_vfs* s_real = nullptr;
    static inline sqlite3_vfs s_vfs {};
    static inline std::atomic<int> s_walSyncs { 0 };
    static inline const sqlite3_io_methods s_methods = {
        3,
        [](sqlite3_file* f) { return of(f)->real()->pMethods->xClose(of(f)->real()); },
        [](sqlite3_file* f, void* b, int n, sqlite3_int64 o) {
            return of(f)->real()->pMethods->xRead(of(f)->real(), b, n, o);
        },
        [](sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
            return of(f)->real()->pMethods->xWrite(of(f)->real(), b, n, o);
        },
        [](sqlite3_file* f, sqlite3_int64 s) { return of(f)->real()->pMethods->xTruncate(of(f)->real(), s); },
        &sync,
        [](sqlite3_file* f, sqlite3_int64* s) { return of(f)->real()->pMethods->xFileSize(of(f)->real(), s); },
        [](sqlite3_file* f, int l) { return of(f)->real()->pMethods->xLock(of(f)->real(), l); },
        [](sqlite3_file* f, int l) { return of(f)->real()->pMethods->xUnlock(of(f)->real(), l); },
        [](sqlite3_file* f, int* r) { return of(f)->real()->pMethods->xCheckReservedLock(of(f)->real(), r); },
        [](sqlite3_file* f, int op, void* a) { return of(f)->real()->pMethods->xFileControl(of(f)->real(), op, a); },
        [](sqlite3_file* f) { return of(f)->real()->pMethods->xSectorSize(of(f)->real()); },
        [](sqlite3_file* f) { return of(f)->real()->pMethods->xDeviceCharacteristics(of(f)->real()); },
        [](sqlite3_file* f, int r, int s, int e, void volatile** p) {
            return of(f)->real()->pMethods->xShmMap(of(f)->real(), r, s, e, p);
        },
        [](sqlite3_file* f, int o, int n, int fl) {
            return of(f)->real()->pMethods->xShmLock(of(f)->real(), o, n, fl);
        },
        [](sqlite3_file* f) { of(f)->real()->pMethods->xShmBarrier(of(f)->real()); },
        [](sqlite3_file* f, int d) { return of(f)->real()->pMethods->xShmUnmap(of(f)->real(), d); },
        [](sqlite3_file* f, sqlite3_int64 o, int n, void** p) {
            return of(f)->real()->pMethods->xFetch(of(f)->real(), o, n, p);
        },
        [](sqlite3_file* f, sqlite3_int64 o, void* p) {
            return of(f)->real()->pMethods->xUnfetch(of(f)->real(), o, p);
        },
    };
};

} // namespace shardmap::testing
