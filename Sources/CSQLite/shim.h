#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import; this is its value.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }
