// libpq, PostgreSQL's client library (Debian libpq-dev): astra-wakegw's shared state
// (`--state postgresql://…`). Nothing to wrap: libpq's API imports into Swift as it is.
#ifndef ASTRA_CPOSTGRESQL_SHIM_H
#define ASTRA_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#endif
