// ALSA's error handler is variadic; Swift cannot implement one, so a silent handler lives here.
#ifndef ASTRA_CALSA_SHIM_H
#define ASTRA_CALSA_SHIM_H
#include <alsa/asoundlib.h>

static void astra_alsa_silent_handler(const char *file, int line, const char *function, int err,
                                      const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
/// Stops ALSA printing its own diagnostics on stderr (we report errors ourselves).
static inline int astra_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(astra_alsa_silent_handler);
}
#endif
