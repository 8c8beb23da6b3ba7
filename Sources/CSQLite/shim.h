// SQLite from Debian's libsqlite3-dev. SQLITE_TRANSIENT is a macro casting -1 to a function
// pointer, which Swift cannot import: a typed constant stands in for it.
#pragma once
#include <sqlite3.h>

static const sqlite3_destructor_type csqlite_transient = SQLITE_TRANSIENT;
