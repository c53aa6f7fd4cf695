#ifndef ATTRIBUTIOND_CZLIB_SHIM_H
#define ATTRIBUTIOND_CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 is a macro, which Swift cannot call: a function around it.
static inline int attributiond_deflate_init_gzip(z_streamp stream, int level) {
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream (RFC 1952).
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int attributiond_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
