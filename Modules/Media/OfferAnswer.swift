/// An audio codec we can send: G.711 A-law or µ-law (RFC 3551 §4.5.14, static PTs 8 and 0).
public enum AudioCodec: String, Sendable, Hashable, CaseIterable {
    case pcma = "PCMA"
    case pcmu = "PCMU"

    public var payloadType: UInt8 { self == .pcma ? 8 : 0 }
    public var law: G711.Law { self == .pcma ? .aLaw : .muLaw }
    public var rtpMap: RTPMap { RTPMap(payloadType: payloadType, encodingName: rawValue, clockRate: 8000) }
}

/// What we offer or accept for one audio stream.
public struct AudioCapabilities: Sendable, Hashable {
    /// Our media address (c=) and RTP port (m=).
    public var address: String
    public var port: UInt16
    /// RTCP port when not muxed (a=rtcp, RFC 3605); nil = port + 1.
    public var rtcpPort: UInt16?
    /// In preference order.
    public var codecs: [AudioCodec] = [.pcma, .pcmu]
    /// telephone-event (RFC 4733 §7.1.1) payload type we offer; nil = none.
    public var telephoneEventPayloadType: UInt8? = 101
    public var ptime: Int = 20
    public var direction: MediaDirection = .sendrecv
    /// Offer / accept RFC 5761 rtcp-mux.
    public var rtcpMux: Bool = true
    /// SDES keys we offer (one a=crypto line each, tags 1…n) or pick from when answering.
    public var crypto: [SRTPKeyMaterial] = []
    /// Reject plain RTP (RTP/AVP) offers and answers.
    public var requireSRTP: Bool = false
    /// DTLS-SRTP (RFC 5763) fingerprint and role to advertise; negotiated here, run elsewhere.
    public var fingerprint: CertificateFingerprint?
    /// In offers: `actpass` for a new association, `active`/`passive` to keep an existing one
    /// (RFC 8842 §5.5). In answers to an `actpass` offer: `active`/`passive` pins the role of
    /// an existing association (RFC 8842 §5.3); `actpass` takes the RFC 5763 §5 default.
    public var setup: SetupRole = .actpass
    public var ice: ICEParameters?
    public var mid: String?
    /// Answerer codec order: true = the offer's order (RFC 3264 §6.1 lets the answerer
    /// choose; PBXs usually honour the offerer), false = ours.
    public var preferOffererCodecOrder: Bool = true

    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }
}

/// The outcome of offer/answer for the audio stream, from our point of view.
public struct NegotiatedAudio: Sendable, Hashable, CustomStringConvertible {
    public var remoteAddress: String
    public var remotePort: UInt16
    /// RTCP destination (RFC 3605 a=rtcp, or port + 1, or the RTP port with rtcp-mux).
    public var remoteRTCPPort: UInt16
    /// The `a=rtcp` address when it names one (RFC 3605 §2.1), else the c= address is used.
    public var remoteRTCPAddress: String?
    public var rtcpMux: Bool
    /// The codec we send (first common codec of the answer).
    public var codec: AudioCodec
    public var payloadType: UInt8
    /// The telephone-event PT to use, if both sides support it.
    public var telephoneEventPayloadType: UInt8?
    public var ptime: Int
    /// Our direction (on hold when the peer is sendonly/inactive).
    public var direction: MediaDirection
    /// SDES: our key (for sending) and the peer's (for receiving).
    public var localKey: SRTPKeyMaterial?
    public var remoteKey: SRTPKeyMaterial?
    public var remoteFingerprint: CertificateFingerprint?
    public var remoteSetup: SetupRole?
    public var remoteICE: ICEParameters?
    public var mid: String?
    /// The peer is ICE-lite (session-level `a=ice-lite`, RFC 8839 §5.3).
    public var remoteICELite = false

    public var description: String {
        "audio \(codec.rawValue)/\(payloadType) te=\(telephoneEventPayloadType.map(String.init) ?? "-") ptime=\(ptime) "
            + "\(direction.rawValue) -> \(remoteAddress):\(remotePort) rtcp=\(remoteRTCPPort)\(rtcpMux ? " mux" : "")"
            + (localKey != nil ? " srtp=\(localKey!.profile.sdesName)" : "")
    }
}

/// RFC 3264 offer/answer for one audio stream (other m= lines are rejected with port 0).
public enum OfferAnswer {
    /// Builds an offer (RFC 3264 §5). `origin` carries the session id and version (§8: the
    /// version increments for each new offer in the session).
    public static func makeOffer(_ caps: AudioCapabilities, origin: SDPOrigin) -> SessionDescription {
        var sdp = SessionDescription(origin: origin, connection: SDPConnection(address: caps.address))
        if let mid = caps.mid { sdp.attributes.append(SDPAttribute("group", "BUNDLE \(mid)")) }
        var formats = caps.codecs.map { String($0.payloadType) }
        if let te = caps.telephoneEventPayloadType { formats.append(String(te)) }
        var m = MediaDescription(port: caps.port, proto: proto(caps), formats: formats)
        fill(
            &m, caps: caps, codecs: caps.codecs, telephoneEvent: caps.telephoneEventPayloadType,
            ptime: caps.ptime, direction: caps.direction, rtcpMux: caps.rtcpMux, setup: caps.setup)
        for (i, key) in caps.crypto.enumerated() {
            m.attributes.append(SDPAttribute("crypto", key.cryptoAttribute(tag: i + 1).value))
        }
        sdp.media.append(m)
        return sdp
    }

    /// Builds the answer to `offer` (RFC 3264 §6) and the negotiated audio stream, or nil if
    /// every stream had to be rejected (the answer then rejects them all with port 0). Throws
    /// `negotiationFailed` only when the offer has no audio stream we could take at all and
    /// `requireAudio` is set.
    public static func makeAnswer(
        to offer: SessionDescription, capabilities caps: AudioCapabilities, origin: SDPOrigin,
        requireAudio: Bool = true
    ) throws(MediaError) -> (answer: SessionDescription, audio: NegotiatedAudio?) {
        var answer = SessionDescription(origin: origin, connection: SDPConnection(address: caps.address))
        var negotiated: NegotiatedAudio?
        var acceptedMids: [String] = []
        for (index, offered) in offer.media.enumerated() {
            let reject = { () -> MediaDescription in
                var m = MediaDescription(media: offered.media, port: 0, proto: offered.proto, formats: offered.formats)
                if let mid = offered.mid { m.attributes.append(SDPAttribute("mid", mid)) }
                return m
            }
            guard negotiated == nil, offered.media == "audio", offered.port != 0,
                let conn = offer.effectiveConnection(of: index),
                let accepted = try? accept(
                    offered, connection: conn, direction: offer.effectiveDirection(of: index), caps: caps)
            else {
                answer.media.append(reject())
                continue
            }
            answer.media.append(accepted.media)
            negotiated = accepted.audio
            if let mid = offered.mid { acceptedMids.append(mid) }
        }
        if let group = offer.groups.first(where: { $0.semantics == "BUNDLE" }) {
            let mids = group.mids.filter { acceptedMids.contains($0) }
            if !mids.isEmpty {
                answer.attributes.append(SDPAttribute("group", SDPGroup(semantics: "BUNDLE", mids: mids).value))
            }
        }
        negotiated?.remoteICELite = offer.attributes.contains { $0.name == "ice-lite" }
        if negotiated == nil && requireAudio {
            throw MediaError(.negotiationFailed, "no acceptable audio stream in the offer")
        }
        return (answer, negotiated)
    }

    /// Processes the answer to our offer (RFC 3264 §7): the stream to run, or
    /// `negotiationFailed` when the audio stream was rejected or is unusable.
    public static func processAnswer(
        _ answer: SessionDescription, offer: SessionDescription,
        capabilities caps: AudioCapabilities
    ) throws(MediaError) -> NegotiatedAudio {
        guard let index = answer.media.firstIndex(where: { $0.media == "audio" }) else {
            throw MediaError(.negotiationFailed, "answer has no audio stream")
        }
        let m = answer.media[index]
        guard m.port != 0 else { throw MediaError(.negotiationFailed, "audio stream rejected (port 0)") }
        guard let conn = answer.effectiveConnection(of: index) else {
            throw MediaError(.negotiationFailed, "no c= for audio")
        }
        let offeredTE = caps.telephoneEventPayloadType
        var codec: AudioCodec?
        var te: UInt8?
        for f in m.formats {
            guard let pt = UInt8(f), let map = m.encoding(of: pt) else { continue }
            if codec == nil,
                let c = caps.codecs.first(where: {
                    $0.rawValue.caseInsensitiveCompare(map.encodingName) && map.clockRate == 8000
                })
            {
                codec = c
            }
            if map.encodingName.lowercased() == "telephone-event", offeredTE != nil { te = pt }
        }
        guard let codec else { throw MediaError(.negotiationFailed, "answer has no codec we offered") }
        var localKey: SRTPKeyMaterial?
        var remoteKey: SRTPKeyMaterial?
        if m.proto.contains("SAVP") && !m.proto.hasPrefix("UDP/TLS") {
            guard let chosen = m.crypto.first(where: { $0.profile != nil }), let profile = chosen.profile,
                chosen.tag >= 1, chosen.tag <= caps.crypto.count, caps.crypto[chosen.tag - 1].profile == profile
            else { throw MediaError(.negotiationFailed, "answer's a=crypto matches none we offered") }
            localKey = caps.crypto[chosen.tag - 1]
            remoteKey = try SRTPKeyMaterial(profile: profile, keyAndSalt: chosen.keyAndSalt)
        } else if caps.requireSRTP && !m.proto.hasPrefix("UDP/TLS") {
            throw MediaError(.negotiationFailed, "answer is plain RTP but SRTP is required")
        }
        let mux = caps.rtcpMux && m.rtcpMux
        var negotiated = NegotiatedAudio(
            remoteAddress: conn.host, remotePort: m.port, remoteRTCPPort: mux ? m.port : (m.rtcp?.port ?? m.port &+ 1),
            rtcpMux: mux, codec: codec, payloadType: codec.payloadType, telephoneEventPayloadType: te,
            ptime: m.ptime ?? caps.ptime,
            direction: caps.direction.intersect(answer.effectiveDirection(of: index).reversed),
            localKey: localKey, remoteKey: remoteKey, remoteFingerprint: m.fingerprints.first, remoteSetup: m.setup,
            remoteICE: ice(m), mid: m.mid)
        negotiated.remoteICELite = answer.attributes.contains { $0.name == "ice-lite" }
        if !mux { negotiated.remoteRTCPAddress = m.rtcp?.address }
        return negotiated
    }

    // MARK: Helpers

    private static func accept(
        _ offered: MediaDescription, connection: SDPConnection, direction offeredDirection: MediaDirection,
        caps: AudioCapabilities
    ) throws(MediaError) -> (media: MediaDescription, audio: NegotiatedAudio) {
        let isSDES = offered.proto == "RTP/SAVP" || offered.proto == "RTP/SAVPF"
        let isDTLS = offered.proto.hasPrefix("UDP/TLS/RTP/SAVP")
        guard offered.proto == "RTP/AVP" || offered.proto == "RTP/AVPF" || isSDES || isDTLS else {
            throw MediaError(.negotiationFailed, "transport \(offered.proto)")
        }
        if caps.requireSRTP && !(isSDES || isDTLS) { throw MediaError(.negotiationFailed, "plain RTP refused") }
        if isDTLS && caps.fingerprint == nil {
            throw MediaError(.negotiationFailed, "DTLS-SRTP without a local certificate")
        }

        // Codecs: the offer's payload types, keep those we support (RFC 3264 §6.1).
        var common: [(AudioCodec, UInt8)] = []
        var te: UInt8?
        for f in offered.formats {
            guard let pt = UInt8(f), let map = offered.encoding(of: pt) else { continue }
            if map.encodingName.lowercased() == "telephone-event" && map.clockRate == 8000 {
                if caps.telephoneEventPayloadType != nil && te == nil { te = pt }
            } else if map.clockRate == 8000,
                let codec = caps.codecs.first(where: { $0.rawValue.caseInsensitiveCompare(map.encodingName) }),
                !common.contains(where: { $0.0 == codec })
            {
                common.append((codec, pt))
            }
        }
        if !caps.preferOffererCodecOrder {
            common.sort { a, b in caps.codecs.firstIndex(of: a.0)! < caps.codecs.firstIndex(of: b.0)! }
        }
        guard let (codec, pt) = common.first else { throw MediaError(.negotiationFailed, "no common codec") }

        var localKey: SRTPKeyMaterial?
        var remoteKey: SRTPKeyMaterial?
        var cryptoLine: String?
        if isSDES {
            guard
                let (offeredCrypto, key) = offered.crypto.lazy.compactMap({ c -> (CryptoAttribute, SRTPKeyMaterial)? in
                    guard let p = c.profile, let mine = caps.crypto.first(where: { $0.profile == p }) else {
                        return nil
                    }
                    return (c, mine)
                }).first, let profile = offeredCrypto.profile
            else { throw MediaError(.negotiationFailed, "no acceptable a=crypto") }
            localKey = key
            remoteKey = try SRTPKeyMaterial(profile: profile, keyAndSalt: offeredCrypto.keyAndSalt)
            cryptoLine = key.cryptoAttribute(tag: offeredCrypto.tag).value
        }

        // Direction (RFC 3264 §6.1): mirror the offer, restricted by what we want.
        // RFC 3264 §8.4: a c=0.0.0.0 offer is a legacy hold (treat as sendonly).
        let peer =
            connection.isNullAddress && offeredDirection == .sendrecv ? MediaDirection.sendonly : offeredDirection
        let ourDirection = caps.direction.intersect(peer.reversed)
        let mux = caps.rtcpMux && offered.rtcpMux
        let ptime = offered.ptime ?? caps.ptime

        var m = MediaDescription(
            port: caps.port, proto: offered.proto,
            formats: common.map { String($0.1) } + (te.map { [String($0)] } ?? []))
        fill(
            &m, caps: caps, codecs: common.map(\.0), payloadTypes: common.map(\.1), telephoneEvent: te, ptime: ptime,
            direction: ourDirection, rtcpMux: mux, setup: isDTLS ? answerSetup(offered.setup, caps.setup) : nil)
        if let cryptoLine { m.attributes.append(SDPAttribute("crypto", cryptoLine)) }
        if let mid = offered.mid { m.setAttributes("mid", [mid]) }

        var audio = NegotiatedAudio(
            remoteAddress: connection.host, remotePort: offered.port,
            remoteRTCPPort: mux ? offered.port : (offered.rtcp?.port ?? offered.port &+ 1), rtcpMux: mux, codec: codec,
            payloadType: pt, telephoneEventPayloadType: te, ptime: ptime, direction: ourDirection, localKey: localKey,
            remoteKey: remoteKey, remoteFingerprint: offered.fingerprints.first, remoteSetup: offered.setup,
            remoteICE: ice(offered), mid: offered.mid)
        if !mux { audio.remoteRTCPAddress = offered.rtcp?.address }
        return (m, audio)
    }

    private static func proto(_ caps: AudioCapabilities) -> String {
        if caps.fingerprint != nil { return "UDP/TLS/RTP/SAVPF" }
        return caps.crypto.isEmpty ? "RTP/AVP" : "RTP/SAVP"
    }

    private static func fill(
        _ m: inout MediaDescription, caps: AudioCapabilities, codecs: [AudioCodec], payloadTypes: [UInt8]? = nil,
        telephoneEvent: UInt8?, ptime: Int, direction: MediaDirection, rtcpMux: Bool, setup: SetupRole?
    ) {
        for (i, codec) in codecs.enumerated() {
            var map = codec.rtpMap
            if let pts = payloadTypes { map.payloadType = pts[i] }
            m.attributes.append(SDPAttribute("rtpmap", map.value))
        }
        if let te = telephoneEvent {
            m.attributes.append(SDPAttribute("rtpmap", "\(te) telephone-event/8000"))
            m.attributes.append(SDPAttribute("fmtp", "\(te) 0-15"))
        }
        m.attributes.append(SDPAttribute("ptime", String(ptime)))
        m.attributes.append(SDPAttribute(direction.rawValue))
        if rtcpMux { m.attributes.append(SDPAttribute("rtcp-mux")) }
        if !rtcpMux, let rtcp = caps.rtcpPort { m.attributes.append(SDPAttribute("rtcp", String(rtcp))) }
        if let mid = caps.mid { m.attributes.append(SDPAttribute("mid", mid)) }
        if let ice = caps.ice {
            m.attributes.append(SDPAttribute("ice-ufrag", ice.ufrag))
            m.attributes.append(SDPAttribute("ice-pwd", ice.pwd))
            if !ice.options.isEmpty {
                m.attributes.append(SDPAttribute("ice-options", ice.options.joined(separator: " ")))
            }
            for c in ice.candidates { m.attributes.append(SDPAttribute("candidate", c.value)) }
        }
        if let fp = caps.fingerprint, let setup {
            m.attributes.append(SDPAttribute("fingerprint", fp.value))
            m.attributes.append(SDPAttribute("setup", setup.rawValue))
        }
    }

    /// Our `a=setup` for an offered one: RFC 5763 §5 (`actpass` → `active`), unless we pin the
    /// role of an existing association (``AudioCapabilities/setup`` `active`/`passive`).
    private static func answerSetup(_ offered: SetupRole?, _ ours: SetupRole) -> SetupRole {
        let offered = offered ?? .actpass
        if offered == .actpass && (ours == .active || ours == .passive) { return ours }
        return offered.answer
    }

    private static func ice(_ m: MediaDescription) -> ICEParameters? {
        guard let ufrag = m.iceUfrag, let pwd = m.icePwd else { return nil }
        return ICEParameters(ufrag: ufrag, pwd: pwd, candidates: m.candidates, options: m.iceOptions)
    }
}

extension String {
    fileprivate func caseInsensitiveCompare(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
