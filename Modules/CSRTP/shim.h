#ifndef ASTRA_CSRTP_SHIM_H
#define ASTRA_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
