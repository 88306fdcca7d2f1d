// Glibc's Swift overlay does not export epoll, eventfd or timerfd; this header-only module does.
#ifndef ASTRA_CLINUX_SHIM_H
#define ASTRA_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <stdio.h>
#include <malloc.h>
#include <unistd.h>
#include <spawn.h>

/* glibc functions declared only under _GNU_SOURCE, which Glibc's module does not set: the same
   prototypes as <sys/socket.h>, <unistd.h> and <spawn.h> (glibc >= 2.34 for the last). Every
   descriptor the modules create is close-on-exec from the call that creates it (decisions D49):
   a library user's own fork/exec in another thread between a socket() and a later fcntl() would
   otherwise inherit it. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *length, int flags);
extern int pipe2(int fds[2], int flags);
/* A posix_spawn file action: close every descriptor >= from in the child, after the actions
   added before it (the dup2s onto 0, 1, 2). ProcessSpawn adds it last. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* recvmmsg/sendmmsg and struct mmsghdr need _GNU_SOURCE, which Glibc's module does not set:
   the same layout under our own name, and the system calls through syscall(2). */
struct astra_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

static inline int astra_recvmmsg(int fd, struct astra_mmsghdr *vector, unsigned int count, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, vector, count, flags, (void *)0);
}

/* getrandom(2): the kernel CSPRNG without a file descriptor (glibc ≥ 2.25 exports it from
   <sys/random.h>, which Glibc's module does not include). */
static inline long astra_getrandom(void *buffer, unsigned long length, unsigned int flags) {
    return syscall(SYS_getrandom, buffer, length, flags);
}

static inline int astra_sendmmsg(int fd, struct astra_mmsghdr *vector, unsigned int count, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, vector, count, flags);
}
/* The width of the terminal on `fd` in columns (TIOCGWINSZ), or 0 when `fd` is no terminal or
   the terminal does not say (a serial line, a pty nobody sized). ioctl(2) is variadic, which
   Swift cannot call. */
static inline int astra_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

/* Sets the size of the terminal on `fd` (TIOCSWINSZ), as a terminal emulator does when its
   window is resized; the tests size their pseudo-terminals with it. Returns 0, or -1. */
static inline int astra_set_terminal_size(int fd, unsigned short rows, unsigned short columns) {
    struct winsize size = {rows, columns, 0, 0};
    return ioctl(fd, TIOCSWINSZ, &size);
}

/* A pseudo-terminal master (posix_openpt and friends need _XOPEN_SOURCE, which Glibc's module
   does not set): /dev/ptmx, unlocked (TIOCSPTLCK), its slave's path from TIOCGPTN. Returns the
   master descriptor, or -1. The tests drive interactive tools through it. */
static inline int astra_open_pty(char *slave_path, size_t length) {
    int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    int unlock = 0;
    unsigned int number = 0;
    if (ioctl(master, TIOCSPTLCK, &unlock) != 0 || ioctl(master, TIOCGPTN, &number) != 0) {
        close(master);
        return -1;
    }
    snprintf(slave_path, length, "/dev/pts/%u", number);
    return master;
}

/* Heap in use by this process (glibc mallinfo2(3), glibc >= 2.33): bytes handed out by malloc
   from its arenas (uordblks) plus the big blocks it mmapped (hblkhd). Unlike RSS it does not
   count freed pages malloc keeps, so a leak shows as a number that grows, not a hint. */
static inline unsigned long long astra_heap_in_use_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return (unsigned long long)info.uordblks + (unsigned long long)info.hblkhd;
}

/* Give freed heap pages back to the system (glibc malloc_trim(3) with pad 0). Since glibc 2.8 it
   walks every arena and releases whole free pages anywhere in them (madvise MADV_DONTNEED), not
   only the top of the main heap as free() does: a long-running server whose threads free what
   they allocated otherwise keeps those pages resident. Returns 1 when memory was released. */
static inline int astra_heap_trim(void) { return malloc_trim(0); }

/* Serve every thread's malloc from the main arena only (mallopt(3) M_ARENA_MAX = 1; the same
   setting as GLIBC_TUNABLES=glibc.malloc.arena_max=1). glibc otherwise gives threads arenas of
   their own (up to 8 per core), and memory freed in one is kept there for that arena's next
   allocation: a process whose few pool threads take turns serving thousands of small, long-lived
   objects keeps several half-empty arenas resident. It takes effect for threads that have not
   allocated yet, so it is called before any thread starts. Returns 1 on success. */
static inline int astra_heap_single_arena(void) { return mallopt(M_ARENA_MAX, 1); }

#endif
