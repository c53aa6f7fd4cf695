#ifndef ATTRIBUTIOND_CLIBPQ_SHIM_H
#define ATTRIBUTIOND_CLIBPQ_SHIM_H
// PostgreSQL's client library (Debian's libpq-dev puts it under postgresql/; pkg-config adds the path).
#include <libpq-fe.h>
#endif
