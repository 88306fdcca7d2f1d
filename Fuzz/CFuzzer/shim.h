// libFuzzer's driver entry points, declared weak so astra-fuzz links in every build.
// The fuzz build (scripts/fuzz.sh) links libclang_rt.fuzzer_no_main and forces
// LLVMFuzzerRunDriver in; a normal build leaves them null and astra-fuzz only replays inputs.
#ifndef ASTRA_CFUZZER_SHIM_H
#define ASTRA_CFUZZER_SHIM_H
#include <stddef.h>
#include <stdint.h>

typedef int (*astra_fuzz_callback)(const uint8_t *data, size_t size);

extern int LLVMFuzzerRunDriver(int *argc, char ***argv, astra_fuzz_callback callback) __attribute__((weak));
extern size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize) __attribute__((weak));

/// 1 when libFuzzer is linked into this binary.
static inline int astra_fuzzer_linked(void) { return LLVMFuzzerRunDriver != 0; }

/// Runs libFuzzer's driver (it parses the flags and corpus folders in argv).
static inline int astra_fuzzer_run(int *argc, char ***argv, astra_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}

/// libFuzzer's own byte-level mutation (dictionary and CMP hints included); a no-op without it.
static inline size_t astra_fuzzer_mutate(uint8_t *data, size_t size, size_t maxSize) {
    return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, maxSize) : size;
}
#endif
