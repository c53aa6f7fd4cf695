#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "CEventPoll.h"

int cevent_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static uint32_t epoll_bits(uint32_t interest) {
    return ((interest & CEVENT_READABLE) ? EPOLLIN : 0) | ((interest & CEVENT_WRITABLE) ? EPOLLOUT : 0);
}

int cevent_watch(int epoll_fd, int fd, uint32_t interest, int add) {
    struct epoll_event event = { .events = epoll_bits(interest), .data.fd = fd };
    return epoll_ctl(epoll_fd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

int cevent_unwatch(int epoll_fd, int fd) { return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL); }

int cevent_wait(int epoll_fd, cevent_ready *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        uint32_t bits = events[i].events, out = 0;
        if (bits & (EPOLLIN | EPOLLHUP | EPOLLERR)) out |= CEVENT_READABLE;
        if (bits & EPOLLOUT) out |= CEVENT_WRITABLE;
        if (bits & (EPOLLHUP | EPOLLERR)) out |= CEVENT_CLOSED;
        ready[i].fd = events[i].data.fd;
        ready[i].events = out;
    }
    return count;
}

int cevent_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void cevent_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

static __thread int on_loop_thread;

void cevent_mark_loop_thread(void) { on_loop_thread = 1; }

int cevent_on_loop_thread(void) { return on_loop_thread; }

int cevent_available_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}
