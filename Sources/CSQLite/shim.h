#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import; this is its value.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }

/// sqlite3_config is variadic, which Swift cannot call. This turns off SQLite's memory statistics, which take a
/// global mutex on every allocation; it must run before the first connection opens (later it changes nothing).
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/// sqlite3_db_config is variadic too. This keeps the WAL when the last connection closes instead of copying it into
/// the database file then: the next opener reads it as it is, and a later checkpoint copies it.
static inline int csqlite_keep_wal_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
