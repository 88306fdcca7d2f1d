#ifndef ASTRA_CQRENCODE_SHIM_H
#define ASTRA_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
