#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import; this is its value.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }

/// sqlite3_config is variadic, which Swift cannot call. This turns off SQLite's memory statistics, which take a
/// global mutex on every allocation; it must run before the first connection opens (later it changes nothing).
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/// sqlite3_db_config is variadic too. This turns on the query planner stability guarantee: a statement keeps the plan
/// it was prepared with whatever values are bound, so binding a LIKE pattern no longer expires it (SQLite would
/// prepare it again at its first step to weigh the pattern against an index).
static inline int csqlite_keep_plans_whatever_is_bound(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_QPSG, 1, (int *)0);
}
