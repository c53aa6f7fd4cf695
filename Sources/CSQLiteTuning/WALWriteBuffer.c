// SQLite writes each WAL frame with two pwrite calls, a 24-byte header and then the page, so a
// commit of 200 pages costs 400 system calls, and since frames are 4,120 bytes long each one also
// straddles two page-cache pages. This VFS forwards everything to the platform's VFS except WAL
// writes that continue the previous one: those are gathered in memory and issued together, up to
// 112 KiB at a time.
//
// When gathered bytes reach the file:
// - right after the page of a commit frame (a frame header whose "database size after commit" is
//   not zero), inside that same xWrite call: a failed write fails the commit as it would have
//   without the buffer, and no other connection can see the commit before its frames are written
//   (the commit becomes visible only afterwards, when SQLite updates the shared WAL index);
// - before any other operation on the WAL file (read, sync, truncate, size, lock, file control,
//   close) and before a write elsewhere in it, so SQLite never observes the difference;
// - on the database file's shared-memory barrier and lock calls, as a second safety net.
// Frames of a transaction that has not committed yet (cache spills) may wait in memory: only this
// connection reads them, through xRead, which writes them out first.

#include "WALWriteBuffer.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// The unix VFS keeps only the low 17 bits of a write's length (seekAndWriteFd: `nBuf &= 0x1ffff`),
// so one write must stay under 128 KiB: 112 KiB is 27 frames of 4 KiB pages.
enum { BUFFER_CAPACITY = 112 << 10, FRAME_HEADER_SIZE = 24 };

static sqlite3_vfs *platform;
static sqlite3_vfs bufferedVFS;
static sqlite3_io_methods bufferedMethods;

static _Thread_local unsigned long long requestedWrites;
static _Thread_local unsigned long long issuedWrites;

typedef struct BufferedFile {
    sqlite3_file base;
    sqlite3_file *file;             // the platform's file, stored right after this struct
    int isWAL;
    struct BufferedFile *wal;       // on a database file: its WAL while open
    struct BufferedFile *database;  // on a WAL: its database file
    unsigned char *buffer;
    size_t used;
    sqlite3_int64 start;            // file offset of buffer[0]
    int commitPageNext;             // the last write was a commit frame's header
    int unreportedFailure;          // a write-out that failed where no error could be returned
} BufferedFile;

static int issue(BufferedFile *buffered, const void *data, int amount, sqlite3_int64 offset) {
    issuedWrites++;
    return buffered->file->pMethods->xWrite(buffered->file, data, amount, offset);
}

static int flush(BufferedFile *buffered) {
    if (!buffered) return SQLITE_OK;
    if (buffered->unreportedFailure) {
        int failure = buffered->unreportedFailure;
        buffered->unreportedFailure = 0;
        buffered->used = 0;
        return failure;
    }
    if (buffered->used == 0) return SQLITE_OK;
    size_t amount = buffered->used;
    buffered->used = 0;
    return issue(buffered, buffered->buffer, (int)amount, buffered->start);
}

static int isCommitFrameHeader(const void *data, int amount, sqlite3_int64 offset) {
    if (amount != FRAME_HEADER_SIZE || offset < 32) return 0;
    const unsigned char *bytes = data;
    return (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
}

static int bufferedWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    BufferedFile *buffered = (BufferedFile *)file;
    if (!buffered->isWAL) return buffered->file->pMethods->xWrite(buffered->file, data, amount, offset);
    requestedWrites++;
    int result = buffered->unreportedFailure ? flush(buffered) : SQLITE_OK;
    if (result == SQLITE_OK && buffered->used > 0 && offset != buffered->start + (sqlite3_int64)buffered->used) result = flush(buffered);
    if (result == SQLITE_OK && buffered->used + (size_t)amount > BUFFER_CAPACITY) result = flush(buffered);
    if (result != SQLITE_OK) return result;
    if (!buffered->buffer) buffered->buffer = malloc(BUFFER_CAPACITY);
    if (!buffered->buffer || (size_t)amount > BUFFER_CAPACITY) return issue(buffered, data, amount, offset);

    if (buffered->used == 0) buffered->start = offset;
    memcpy(buffered->buffer + buffered->used, data, (size_t)amount);
    buffered->used += (size_t)amount;
    int endsCommit = buffered->commitPageNext;
    buffered->commitPageNext = isCommitFrameHeader(data, amount, offset);
    return endsCommit ? flush(buffered) : SQLITE_OK;
}

// Every other method: gathered bytes first, then the platform's method.
#define FORWARD(buffered) BufferedFile *buffered = (BufferedFile *)file; \
    int flushed = flush(buffered->isWAL ? buffered : 0); if (flushed != SQLITE_OK) return flushed

static int bufferedClose(sqlite3_file *file) {
    BufferedFile *buffered = (BufferedFile *)file;
    int flushed = buffered->isWAL ? flush(buffered) : SQLITE_OK;
    if (buffered->isWAL && buffered->database && buffered->database->wal == buffered) buffered->database->wal = 0;
    if (!buffered->isWAL && buffered->wal) buffered->wal->database = 0;
    free(buffered->buffer);
    buffered->buffer = 0;
    int closed = buffered->file->pMethods->xClose(buffered->file);
    return flushed != SQLITE_OK ? flushed : closed;
}

static int bufferedRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    FORWARD(buffered);
    return buffered->file->pMethods->xRead(buffered->file, data, amount, offset);
}

static int bufferedTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FORWARD(buffered);
    return buffered->file->pMethods->xTruncate(buffered->file, size);
}

static int bufferedSync(sqlite3_file *file, int flags) {
    FORWARD(buffered);
    return buffered->file->pMethods->xSync(buffered->file, flags);
}

static int bufferedFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    FORWARD(buffered);
    return buffered->file->pMethods->xFileSize(buffered->file, size);
}

static int bufferedLock(sqlite3_file *file, int level) {
    FORWARD(buffered);
    return buffered->file->pMethods->xLock(buffered->file, level);
}

static int bufferedUnlock(sqlite3_file *file, int level) {
    FORWARD(buffered);
    return buffered->file->pMethods->xUnlock(buffered->file, level);
}

static int bufferedCheckReservedLock(sqlite3_file *file, int *reserved) {
    FORWARD(buffered);
    return buffered->file->pMethods->xCheckReservedLock(buffered->file, reserved);
}

static int bufferedFileControl(sqlite3_file *file, int operation, void *argument) {
    FORWARD(buffered);
    return buffered->file->pMethods->xFileControl(buffered->file, operation, argument);
}

static int bufferedSectorSize(sqlite3_file *file) {
    BufferedFile *buffered = (BufferedFile *)file;
    return buffered->file->pMethods->xSectorSize(buffered->file);
}

static int bufferedDeviceCharacteristics(sqlite3_file *file) {
    BufferedFile *buffered = (BufferedFile *)file;
    return buffered->file->pMethods->xDeviceCharacteristics(buffered->file);
}

static int bufferedShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
    BufferedFile *buffered = (BufferedFile *)file;
    return buffered->file->pMethods->xShmMap(buffered->file, region, size, extend, memory);
}

static int bufferedShmLock(sqlite3_file *file, int offset, int count, int flags) {
    BufferedFile *buffered = (BufferedFile *)file;
    int flushed = flush(buffered->wal);
    if (flushed != SQLITE_OK) return flushed;
    return buffered->file->pMethods->xShmLock(buffered->file, offset, count, flags);
}

static void bufferedShmBarrier(sqlite3_file *file) {
    BufferedFile *buffered = (BufferedFile *)file;
    // Commits have written theirs out by now. A failure here has no way back to SQLite: the next
    // operation on the WAL returns it.
    if (buffered->wal) {
        int flushed = flush(buffered->wal);
        if (flushed != SQLITE_OK) buffered->wal->unreportedFailure = flushed;
    }
    buffered->file->pMethods->xShmBarrier(buffered->file);
}

static int bufferedShmUnmap(sqlite3_file *file, int deleteFlag) {
    BufferedFile *buffered = (BufferedFile *)file;
    return buffered->file->pMethods->xShmUnmap(buffered->file, deleteFlag);
}

static int bufferedFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    BufferedFile *buffered = (BufferedFile *)file;
    if (buffered->isWAL || buffered->file->pMethods->iVersion < 3) {
        *pointer = 0;
        return SQLITE_OK;  // no mapping: SQLite reads with xRead
    }
    return buffered->file->pMethods->xFetch(buffered->file, offset, amount, pointer);
}

static int bufferedUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    BufferedFile *buffered = (BufferedFile *)file;
    if (buffered->isWAL || buffered->file->pMethods->iVersion < 3) return SQLITE_OK;
    return buffered->file->pMethods->xUnfetch(buffered->file, offset, pointer);
}

static int bufferedOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    BufferedFile *buffered = (BufferedFile *)file;
    memset(buffered, 0, sizeof *buffered);
    buffered->file = (sqlite3_file *)(buffered + 1);
    int result = platform->xOpen(platform, name, buffered->file, flags, outFlags);
    if (result != SQLITE_OK) {
        if (buffered->file->pMethods) buffered->file->pMethods->xClose(buffered->file);
        buffered->base.pMethods = 0;
        return result;
    }
    // The shared-memory methods are what makes WAL possible: the platform file must have them.
    if (buffered->file->pMethods->iVersion < 2) {
        buffered->file->pMethods->xClose(buffered->file);
        buffered->base.pMethods = 0;
        return SQLITE_CANTOPEN;
    }
    buffered->isWAL = (flags & SQLITE_OPEN_WAL) != 0;
    if (buffered->isWAL && name) {
        BufferedFile *database = (BufferedFile *)sqlite3_database_file_object(name);
        if (database && database->base.pMethods == &bufferedMethods) {
            buffered->database = database;
            database->wal = buffered;
        }
    }
    buffered->base.pMethods = &bufferedMethods;
    return SQLITE_OK;
}

// The rest of the VFS is the platform's.
static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return platform->xDelete(platform, name, syncDirectory);
}
static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return platform->xAccess(platform, name, flags, result);
}
static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return platform->xFullPathname(platform, name, size, output);
}
static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; return platform->xDlOpen(platform, name); }
static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) { (void)vfs; platform->xDlError(platform, size, message); }
static void (*vfsDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return platform->xDlSym(platform, handle, symbol);
}
static void vfsDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; platform->xDlClose(platform, handle); }
static int vfsRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return platform->xRandomness(platform, size, output);
}
static int vfsSleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return platform->xSleep(platform, microseconds); }
static int vfsCurrentTime(sqlite3_vfs *vfs, double *time) { (void)vfs; return platform->xCurrentTime(platform, time); }
static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return platform->xGetLastError ? platform->xGetLastError(platform, size, message) : 0;
}
static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return platform->xCurrentTimeInt64(platform, time);
}

int attributiond_install_wal_write_buffer(void) {
    platform = sqlite3_vfs_find(0);
    if (!platform || platform->iVersion < 2 || !platform->xCurrentTimeInt64) return SQLITE_ERROR;
    bufferedMethods = (sqlite3_io_methods){
        .iVersion = 3,
        .xClose = bufferedClose,
        .xRead = bufferedRead,
        .xWrite = bufferedWrite,
        .xTruncate = bufferedTruncate,
        .xSync = bufferedSync,
        .xFileSize = bufferedFileSize,
        .xLock = bufferedLock,
        .xUnlock = bufferedUnlock,
        .xCheckReservedLock = bufferedCheckReservedLock,
        .xFileControl = bufferedFileControl,
        .xSectorSize = bufferedSectorSize,
        .xDeviceCharacteristics = bufferedDeviceCharacteristics,
        .xShmMap = bufferedShmMap,
        .xShmLock = bufferedShmLock,
        .xShmBarrier = bufferedShmBarrier,
        .xShmUnmap = bufferedShmUnmap,
        .xFetch = bufferedFetch,
        .xUnfetch = bufferedUnfetch,
    };
    bufferedVFS = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(BufferedFile) + platform->szOsFile,
        .mxPathname = platform->mxPathname,
        .zName = "attributiond-wal-buffer",
        .xOpen = bufferedOpen,
        .xDelete = vfsDelete,
        .xAccess = vfsAccess,
        .xFullPathname = vfsFullPathname,
        .xDlOpen = vfsDlOpen,
        .xDlError = vfsDlError,
        .xDlSym = vfsDlSym,
        .xDlClose = vfsDlClose,
        .xRandomness = vfsRandomness,
        .xSleep = vfsSleep,
        .xCurrentTime = vfsCurrentTime,
        .xGetLastError = vfsGetLastError,
        .xCurrentTimeInt64 = vfsCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&bufferedVFS, 1);
}

void attributiond_wal_write_counts(unsigned long long *requested, unsigned long long *issued) {
    *requested = requestedWrites;
    *issued = issuedWrites;
}
