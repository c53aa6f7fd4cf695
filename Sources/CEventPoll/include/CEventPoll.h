// Linux epoll and eventfd for the HTTP server's event loops, behind plain C types: Swift's Glibc
// module does not export them, and including <sys/epoll.h> here would make this module claim
// system types such as `timespec`.
#ifndef C_EVENT_POLL_H
#define C_EVENT_POLL_H
#include <stdint.h>

enum {
    CEVENT_READABLE = 1,   // EPOLLIN
    CEVENT_WRITABLE = 2,   // EPOLLOUT
    CEVENT_CLOSED = 4,     // EPOLLHUP or EPOLLERR: reset, or shut both ways
};

/// One ready descriptor, as `cevent_wait` reports it.
typedef struct {
    int32_t fd;
    uint32_t events;  // CEVENT_* bits
} cevent_ready;

/// A close-on-exec epoll instance, or -1 with errno set.
int cevent_create(void);
/// Adds (`add` != 0) or changes the level-triggered interest of `fd` in CEVENT_READABLE/WRITABLE bits.
int cevent_watch(int epoll_fd, int fd, uint32_t interest, int add);
int cevent_unwatch(int epoll_fd, int fd);
/// Waits up to `timeout_ms` (-1: forever); the number of entries filled, or -1 with errno set.
int cevent_wait(int epoll_fd, cevent_ready *ready, int capacity, int timeout_ms);
/// A non-blocking, close-on-exec eventfd, or -1.
int cevent_eventfd(void);

/// Names the calling thread (at most 15 characters are kept).
void cevent_set_thread_name(const char *name);
/// Marks the calling thread as an event loop's, for `cevent_on_loop_thread`.
void cevent_mark_loop_thread(void);
/// Whether the calling thread is an event loop's (a thread-local flag: no lock, no lookup).
int cevent_on_loop_thread(void);
/// CPUs this process may run on (its affinity mask, which containers restrict); 0 if unknown.
int cevent_available_cpus(void);
#endif
