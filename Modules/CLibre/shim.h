#ifndef ASTRA_CLIBRE_SHIM_H
#define ASTRA_CLIBRE_SHIM_H
// libre (Debian libre-dev): the reference SIP parser bench-sip compares SIPCore with. Only the
// benchmark links it; nothing the tools ship depends on it.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <re_types.h>
#include <re_fmt.h>
#include <re_mem.h>
#include <re_mbuf.h>
#include <re_list.h>
#include <re_sa.h>
#include <re_msg.h>
#include <re_uri.h>
#include <re_sip.h>

/// A libre buffer holding a copy of `bytes` (made once per corpus message, outside the timing).
static inline struct mbuf *astra_libre_buffer(const uint8_t *bytes, size_t count) {
    struct mbuf *mb = mbuf_alloc(count);
    if (mb == NULL) return NULL;
    if (mbuf_write_mem(mb, bytes, count) != 0) { mem_deref(mb); return NULL; }
    mb->pos = 0;
    return mb;
}

static inline void astra_libre_release(struct mbuf *mb) { mem_deref(mb); }

/// What a SIP layer reads of one decoded name-addr: display name, URI user, host, port and
/// parameters, header parameters.
static inline uint64_t astra_libre_address(const struct pl *dname, const struct uri *uri, const struct pl *params) {
    return dname->l + uri->user.l + uri->host.l + uri->port + uri->params.l + params->l;
}

/// `sip_msg_decode` of the whole buffer, then every field it decodes eagerly read out as a
/// number or a length (Request-URI, top Via transport, sent-by and branch, From and To as whole
/// name-addrs with their tags, CSeq, Call-ID, Content-Type, Content-Length, Max-Forwards,
/// Expires), and the first Contact decoded as a libre user does it (`sip_msg_hdr` +
/// `sip_addr_decode`: libre keeps Contact as raw text), the message freed. Returns 0 when libre
/// rejects the message, else a checksum of what was read (never 0), so the compiler cannot drop
/// the reads.
static inline uint64_t astra_libre_decode(struct mbuf *mb) {
    struct sip_msg *msg = NULL;
    mb->pos = 0;
    if (sip_msg_decode(&msg, mb) != 0 || msg == NULL) return 0;
    uint64_t sum = 1;
    sum += msg->req ? msg->uri.host.l + msg->uri.user.l + msg->uri.port + msg->uri.params.l : msg->scode;
    sum += (uint64_t)msg->via.tp + msg->via.sentby.l + sa_port(&msg->via.addr) + msg->via.branch.l;
    sum += msg->from.tag.l + msg->to.tag.l;
    sum += astra_libre_address(&msg->from.dname, &msg->from.uri, &msg->from.params);
    sum += astra_libre_address(&msg->to.dname, &msg->to.uri, &msg->to.params);
    const struct sip_hdr *contact = sip_msg_hdr(msg, SIP_HDR_CONTACT);
    if (contact != NULL) {
        struct sip_addr addr;
        if (sip_addr_decode(&addr, &contact->val) == 0) sum += astra_libre_address(&addr.dname, &addr.uri, &addr.params);
    }
    sum += msg->cseq.num + msg->cseq.met.l;
    sum += msg->callid.l;
    sum += msg->ctyp.type.l + msg->ctyp.subtype.l;
    sum += pl_u32(&msg->clen) + pl_u32(&msg->maxfwd) + pl_u32(&msg->expires);
    mem_deref(msg);
    return sum;
}

#endif
