import Media

/// The SRTP / SRTCP unprotect path (RFC 3711, RFC 7714) over libsrtp2, as a hostile peer
/// reaches it: raw datagrams into a receiving context, and packets we protected with one bit
/// flipped. The first byte is `profile | protect << 2 | rtcp << 3 | flip << 4` (profiles:
/// AES-CM HMAC-SHA1-80, -32, AEAD AES-128-GCM); the next two pick the bit to flip. Seeds: RTP and RTCP packets, plain and protected.
///
/// Invariants: protect → unprotect gives the packet back; a protected packet with any bit
/// flipped is refused (authentication, RFC 3711 §3.4, RFC 7714 §9.3); what unprotect hands
/// back is never longer than what came in.
enum SRTPTarget {
    static let keys = SRTPProfile.allCases.map { profile in
        try! SRTPKeyMaterial(profile: profile, keyAndSalt: (0..<profile.keyAndSaltLength).map { UInt8($0 &* 7 &+ 1) })
    }

    static let target = FuzzTarget(
        name: "srtp",
        summary:
            "SRTP/SRTCP unprotect of hostile and tampered packets through libsrtp2, three profiles (RFC 3711, RFC 7714)",
        maxLength: 2048, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let flip = Int(input.uint16())
        let key = keys[Int(control & 3) % keys.count]
        let packet = input.rest()
        guard let sender = try? SRTPContext(key: key, direction: .outbound),
            let receiver = try? SRTPContext(key: key, direction: .inbound)
        else { fatalError("invariant broken: SRTP contexts with a valid key could not be created") }
        let rtcp = control & 8 != 0
        switch control & 4 {
        case 0:
            // Hostile bytes straight into the receiving context.
            if let clear = try? (rtcp ? receiver.unprotectRTCP(packet) : receiver.unprotect(packet)) {
                invariant(clear.count <= packet.count, "unprotect grew the packet")
            }
        default:
            // Ours, protected, maybe with one bit flipped.
            guard let secured = try? (rtcp ? sender.protectRTCP(packet) : sender.protect(packet)) else { return }
            var tampered = secured
            let flipped = control & 16 != 0
            if flipped { tampered[flip % tampered.count] ^= UInt8(1 << (flip >> 13)) }
            let clear = try? (rtcp ? receiver.unprotectRTCP(tampered) : receiver.unprotect(tampered))
            if flipped {
                invariant(
                    clear == nil, "a tampered SRTP\(rtcp ? "C" : "") packet was accepted (\(key.profile.sdesName))")
            } else {
                invariant(clear == packet, "protect → unprotect changed the packet (\(key.profile.sdesName))")
            }
        }
    }

    static func seeds() -> [[UInt8]] {
        let rtp = RTPTarget.seeds().compactMap { seed -> [UInt8]? in
            var input = FuzzInput(seed)
            _ = input.byte()
            let packet = input.framed()
            return packet.isEmpty || !input.isAtEnd ? nil : packet
        }
        let rtcp = RTCPTarget.seeds()
        var seeds: [[UInt8]] = []
        for profile: UInt8 in [0, 1, 2] {
            for p in rtp.prefix(3) {
                seeds.append([profile, 0, 40] + p)  // clear RTP, raw into the receiver
                seeds.append([profile | 4, 0, 40] + p)  // protected, intact
                seeds.append([profile | 4 | 16, 0x20, 0x11] + p)  // protected, one bit flipped
                if let secured = try? SRTPContext(key: keys[Int(profile)], direction: .outbound).protect(p) {
                    seeds.append([profile, 0, 0] + secured)  // genuine SRTP, raw into the receiver
                }
            }
            for p in rtcp.prefix(2) {
                seeds.append([profile | 4 | 8, 0, 9] + p)
                seeds.append([profile | 4 | 8 | 16, 0x40, 9] + p)
                if let secured = try? SRTPContext(key: keys[Int(profile)], direction: .outbound).protectRTCP(p) {
                    seeds.append([profile | 8, 0, 0] + secured)
                }
            }
        }
        return seeds
    }
}
