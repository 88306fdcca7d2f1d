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
#endif
