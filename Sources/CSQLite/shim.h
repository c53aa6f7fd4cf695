#ifndef ATTRIBUTIOND_CSQLITE_SHIM_H
#define ATTRIBUTIOND_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type attributiond_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// Before the first connection opens: without memory statistics, SQLite's allocator takes no
// process-wide mutex on every malloc and free, which all our connections would contend on.
// sqlite3_config is variadic, which Swift cannot call.
static inline int attributiond_sqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
