// LD_PRELOAD shim that counts heap allocations, for scripts/bench-sip-allocs.sh.
// bench-sip finds `astra_malloc_count` with dlsym when this library is preloaded.
#include <stddef.h>
#include <errno.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static unsigned long count;
unsigned long astra_malloc_count(void) { return __atomic_load_n(&count, __ATOMIC_RELAXED); }
static void bump(void) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); }
void *malloc(size_t n) { bump(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { bump(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { bump(); return __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { bump(); return __libc_memalign(a, n); }
void *memalign(size_t a, size_t n) { bump(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    bump();
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
