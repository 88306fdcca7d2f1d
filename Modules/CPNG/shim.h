// libpng (Debian libpng-dev): Provisioning reads PNG through the simplified png_image API
// (no setjmp needed) and writes PNG with it. PNG_IMAGE_SIZE etc. are macros: wrapped here.
#ifndef ASTRA_CPNG_SHIM_H
#define ASTRA_CPNG_SHIM_H
#include <png.h>

static inline png_uint_32 astra_png_version_opaque(void) { return PNG_IMAGE_VERSION; }
static inline png_uint_32 astra_png_format_gray(void) { return PNG_FORMAT_GRAY; }
static inline int astra_png_image_failed(png_imagep image) { return PNG_IMAGE_FAILED(*image); }
#endif
