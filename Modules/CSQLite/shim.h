// SQLITE_TRANSIENT is a cast of -1 to a destructor pointer, a macro Swift cannot import: typed
// wrappers that bind a copy of the caller's bytes (the buffer may go away after the call).
#ifndef ASTRA_CSQLITE_SHIM_H
#define ASTRA_CSQLITE_SHIM_H
#include <sqlite3.h>

static inline int astra_sqlite3_bind_text(sqlite3_stmt *s, int i, const char *text, int length) {
    return sqlite3_bind_text(s, i, text, length, SQLITE_TRANSIENT);
}
#endif
