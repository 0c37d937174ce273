#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import; this is its value.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }

/// sqlite3_config is variadic, which Swift cannot call. This turns off SQLite's memory statistics, which take a
/// global mutex on every allocation; it must run before the first connection opens (later it changes nothing).
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
