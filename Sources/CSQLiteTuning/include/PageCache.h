#ifndef ATTRIBUTIOND_CSQLITE_PAGE_CACHE_H
#define ATTRIBUTIOND_CSQLITE_PAGE_CACHE_H

/// Installs SQLite's own page cache behind a thin wrapper that skips truncations with nothing to
/// drop. Call once, before the first connection opens; returns an SQLite result code.
int attributiond_install_page_cache(void);

/// How many truncations the wrapper passed on to SQLite's cache on the calling thread, and how
/// many it skipped.
void attributiond_page_cache_truncations(unsigned long long *passed, unsigned long long *skipped);

#endif
