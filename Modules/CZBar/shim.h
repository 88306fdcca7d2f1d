#ifndef ASTRA_CZBAR_SHIM_H
#define ASTRA_CZBAR_SHIM_H
#include <zbar.h>
#endif
