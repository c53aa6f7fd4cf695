// SQLite 3.40's page cache (pcache1) remembers the largest page number it has held (iMaxKey) and,
// at the end of every write transaction, drops the pages above the database size. When B-tree
// balancing swaps two page numbers, it parks one page for a moment at the number just past the
// 1 GiB lock byte. From then on the remembered maximum stays far above the database size, and each
// commit walks the whole hash table of the cache (every bucket and page of a 64 MiB cache) to drop
// nothing. With random index keys that happens on nearly every commit: 14% of the writer's CPU.
//
// The wrapper keeps SQLite's cache and its behaviour. It knows an upper bound on the page numbers
// the cache holds, and passes a truncation on only when some page may be at or above the limit.

#include "PageCache.h"
#include <sqlite3.h>
#include <stdlib.h>

static sqlite3_pcache_methods2 inner;
static sqlite3_pcache_methods2 wrapper;
// Per thread: a connection runs on the thread that calls it, so a test reads its own counts.
static _Thread_local unsigned long long passedTruncations;
static _Thread_local unsigned long long skippedTruncations;

enum { PARKED_CAPACITY = 8 };

typedef struct BoundedCache {
    sqlite3_pcache *cache;
    // No page fetched into the cache has a larger number.
    unsigned highestFetched;
    // Page numbers above `highestFetched` that pages were moved to, and may still hold.
    unsigned parked[PARKED_CAPACITY];
    unsigned parkedCount;
    // More pages were parked than tracked: every truncation goes through from then on.
    int untracked;
} BoundedCache;

static int isParked(const BoundedCache *bounded, unsigned key) {
    for (unsigned index = 0; index < bounded->parkedCount; index++) {
        if (bounded->parked[index] == key) return 1;
    }
    return 0;
}

static void unpark(BoundedCache *bounded, unsigned key) {
    for (unsigned index = 0; index < bounded->parkedCount; index++) {
        if (bounded->parked[index] == key) {
            bounded->parked[index] = bounded->parked[--bounded->parkedCount];
            return;
        }
    }
}

static int boundedInit(void *unused) {
    (void)unused;
    return inner.xInit ? inner.xInit(inner.pArg) : SQLITE_OK;
}

static void boundedShutdown(void *unused) {
    (void)unused;
    if (inner.xShutdown) inner.xShutdown(inner.pArg);
}

static sqlite3_pcache *boundedCreate(int pageSize, int extraSize, int purgeable) {
    BoundedCache *bounded = calloc(1, sizeof *bounded);
    if (!bounded) return 0;
    bounded->cache = inner.xCreate(pageSize, extraSize, purgeable);
    if (!bounded->cache) {
        free(bounded);
        return 0;
    }
    return (sqlite3_pcache *)bounded;
}

static void boundedCachesize(sqlite3_pcache *cache, int pages) {
    inner.xCachesize(((BoundedCache *)cache)->cache, pages);
}

static int boundedPagecount(sqlite3_pcache *cache) {
    return inner.xPagecount(((BoundedCache *)cache)->cache);
}

static sqlite3_pcache_page *boundedFetch(sqlite3_pcache *cache, unsigned key, int create) {
    BoundedCache *bounded = (BoundedCache *)cache;
    sqlite3_pcache_page *page = inner.xFetch(bounded->cache, key, create);
    if (page && key > bounded->highestFetched && !isParked(bounded, key)) bounded->highestFetched = key;
    return page;
}

static void boundedUnpin(sqlite3_pcache *cache, sqlite3_pcache_page *page, int discard) {
    // A discarded page's number is not known here; the bound stays an upper bound.
    inner.xUnpin(((BoundedCache *)cache)->cache, page, discard);
}

static void boundedRekey(sqlite3_pcache *cache, sqlite3_pcache_page *page, unsigned oldKey, unsigned newKey) {
    BoundedCache *bounded = (BoundedCache *)cache;
    inner.xRekey(bounded->cache, page, oldKey, newKey);
    unpark(bounded, oldKey);
    if (newKey > bounded->highestFetched && !isParked(bounded, newKey)) {
        if (bounded->parkedCount < PARKED_CAPACITY) {
            bounded->parked[bounded->parkedCount++] = newKey;
        } else {
            bounded->untracked = 1;
        }
    }
}

static void boundedTruncate(sqlite3_pcache *cache, unsigned limit) {
    BoundedCache *bounded = (BoundedCache *)cache;
    // Pages numbered `limit` and above are dropped: with every page below the limit, nothing is.
    if (!bounded->untracked && bounded->parkedCount == 0 && bounded->highestFetched < limit) {
        skippedTruncations++;
        return;
    }
    passedTruncations++;
    inner.xTruncate(bounded->cache, limit);
    if (limit == 0) {
        bounded->highestFetched = 0;
    } else if (bounded->highestFetched >= limit) {
        bounded->highestFetched = limit - 1;
    }
    for (unsigned index = 0; index < bounded->parkedCount;) {
        if (bounded->parked[index] >= limit) {
            bounded->parked[index] = bounded->parked[--bounded->parkedCount];
        } else {
            index++;
        }
    }
}

static void boundedDestroy(sqlite3_pcache *cache) {
    BoundedCache *bounded = (BoundedCache *)cache;
    inner.xDestroy(bounded->cache);
    free(bounded);
}

static void boundedShrink(sqlite3_pcache *cache) {
    if (inner.xShrink) inner.xShrink(((BoundedCache *)cache)->cache);
}

int attributiond_install_page_cache(void) {
    int result = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &inner);
    if (result != SQLITE_OK) return result;
    if (!inner.xCreate || !inner.xFetch || !inner.xRekey || !inner.xTruncate) return SQLITE_ERROR;
    wrapper = (sqlite3_pcache_methods2){
        .iVersion = inner.iVersion,
        .pArg = 0,
        .xInit = boundedInit,
        .xShutdown = boundedShutdown,
        .xCreate = boundedCreate,
        .xCachesize = boundedCachesize,
        .xPagecount = boundedPagecount,
        .xFetch = boundedFetch,
        .xUnpin = boundedUnpin,
        .xRekey = boundedRekey,
        .xTruncate = boundedTruncate,
        .xDestroy = boundedDestroy,
        .xShrink = inner.iVersion >= 2 ? boundedShrink : 0,
    };
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &wrapper);
}

void attributiond_page_cache_truncations(unsigned long long *passed, unsigned long long *skipped) {
    *passed = passedTruncations;
    *skipped = skippedTruncations;
}
