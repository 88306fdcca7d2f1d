import Foundation
import SIPCore
import Testing

@testable import SIPTransport

/// Test-only: the value of the first header `name` in a message's text (not a SIP parser).
func headerValue(_ name: String, in text: String) -> String? {
    for line in Array(text.utf8).split(separator: 10).map({ String(decoding: $0, as: UTF8.self) }) {
        let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard let colon = trimmed.firstIndex(of: ":") else { continue }
        if trimmed[..<colon].lowercased() == name.lowercased() {
            return trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }
    return nil
}

/// A minimal REGISTER client for exercising the test server's registrar and auth.
struct Registrar {
    let flow: SIPFlow
    let events: EventLog
    let user: String
    let port: UInt16
    var callID = "reg-\(UInt32.random(in: 0...UInt32.max))"
    var seq = 0

    mutating func register(expires: Int, auth: inout DigestClientState) async throws -> String? {
        guard let info = await flow.info else { return nil }
        seq += 1
        var text =
            "REGISTER sip:127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/\(info.transport.viaToken) \(info.viaSentBy);branch=z9hG4bK-reg-\(callID)-\(seq)\(info.transport == .udp ? ";rport" : "")\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:\(user)@127.0.0.1>;tag=r\(callID)\r\nTo: <sip:\(user)@127.0.0.1>\r\n"
            + "Call-ID: \(callID)\r\nCSeq: \(seq) REGISTER\r\n"
            + "Contact: <sip:\(user)@\(info.contactHost);transport=\(info.transport.uriParameter)>\r\nExpires: \(expires)\r\n"
        for field in try auth.authorizationHeaders(
            method: "REGISTER", uri: "sip:127.0.0.1")
        {
            text += "\(field.name): \(field.value)\r\n"
        }
        text += "Content-Length: 0\r\n\r\n"
        try await flow.send(Array(text.utf8))
        let cseq = "CSeq: \(seq) REGISTER"
        let event = await events.next(timeout: .seconds(20)) {
            if case .message(let m) = $0 { return m.text.hasPrefix("SIP/2.0") && m.text.contains(cseq) }
            return false
        }
        guard case .message(let response)? = event else { return nil }
        return response.text
    }
}

extension KamailioPeer {
    @Suite("Real Kamailio: registrar, digest auth, OPTIONS keep-alive over the flow", .serialized)
    struct KamailioRegistrarTests {
        @Test(
            "REGISTER with digest, expiry bounds, wrong password, OPTIONS ping over the client's own flow",
            arguments: TransportKind.allCases)
        func register(transport: TransportKind) async throws {
            let server = try KamailioServer.start(natping: 1)
            defer { server.stop() }
            let flow = SIPFlow(
                target: FlowTarget(host: "127.0.0.1", port: server.port(for: transport), transport: transport),
                options: options(for: server))
            let events = EventLog(flow.events)
            await flow.start()
            #expect(await events.next(timeout: .seconds(30), isConnected) != nil)
            var client = Registrar(flow: flow, events: events, user: "1042", port: server.port(for: transport))
            var auth = DigestClientState(credentials: DigestCredentials(username: "1042", password: "astra1042"))

            let challenge = try #require(try await client.register(expires: 60, auth: &auth))
            #expect(challenge.hasPrefix("SIP/2.0 401"))
            let www = try #require(headerValue("WWW-Authenticate", in: challenge))
            #expect(www.contains("realm=\"127.0.0.1\"") && www.contains("qop=\"auth\""))
            #expect(auth.receive(challenges: [www], kind: .server) == .retry)
            let ok = try #require(try await client.register(expires: 60, auth: &auth))
            #expect(ok.hasPrefix("SIP/2.0 200"), "\(ok)")
            #expect(headerValue("Contact", in: ok)?.contains("expires=60") == true)

            // Below the 30 s floor: 423 with Min-Expires (registrar bounds 30..300).
            let brief = try #require(try await client.register(expires: 10, auth: &auth))
            #expect(brief.hasPrefix("SIP/2.0 423"))
            #expect(headerValue("Min-Expires", in: brief) == "30")
            let capped = try #require(try await client.register(expires: 3600, auth: &auth))
            #expect(headerValue("Contact", in: capped)?.contains("expires=300") == true)

            // Kamailio pings the registered contact with OPTIONS over this very flow (nathelper).
            let ping = await events.next(timeout: .seconds(15)) {
                if case .message(let m) = $0 { return m.text.hasPrefix("OPTIONS ") }
                return false
            }
            guard case .message(let options)? = ping else {
                Issue.record("no OPTIONS keep-alive from Kamailio")
                return
            }
            #expect(options.remote.port == server.port(for: transport))

            // A wrong password is challenged again and given up on.
            var wrong = DigestClientState(credentials: DigestCredentials(username: "1043", password: "nope"))
            var other = Registrar(flow: flow, events: events, user: "1043", port: server.port(for: transport))
            let first = try #require(try await other.register(expires: 60, auth: &wrong))
            #expect(wrong.receive(challenges: [headerValue("WWW-Authenticate", in: first)!], kind: .server) == .retry)
            let again = try #require(try await other.register(expires: 60, auth: &wrong))
            #expect(again.hasPrefix("SIP/2.0 401"))
            guard case .giveUp = wrong.receive(challenges: [headerValue("WWW-Authenticate", in: again)!], kind: .server)
            else {
                Issue.record("wrong password not given up")
                return
            }
            await flow.stop()
        }
    }
}
