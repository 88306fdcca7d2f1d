import Foundation
import SIPCore
import Testing

@testable import SIPTransport

/// Test-only text helpers (not a SIP parser): full header lines named `name`, in order.
func headerLines(_ name: String, in text: String) -> [String] {
    var lines: [String] = []
    for raw in Array(text.utf8).split(separator: 10).map({ String(decoding: $0, as: UTF8.self) }) {
        let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
        if line.isEmpty { break }
        guard let colon = line.firstIndex(of: ":") else { continue }
        if line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name.lowercased() { lines.append(line) }
    }
    return lines
}

/// The URI inside `<…>` of a name-addr header value.
func angleURI(_ value: String) -> String? {
    guard let open = value.firstIndex(of: "<"), let close = value[open...].firstIndex(of: ">") else { return nil }
    return String(value[value.index(after: open)..<close])
}

/// A response to `request` echoing Via, Record-Route, From, To (+ tag), Call-ID, CSeq (RFC 3261 §8.2.6).
func response(_ status: String, to request: String, toTag: String, contact: String?) -> [UInt8] {
    var text = "SIP/2.0 \(status)\r\n"
    for name in ["Via", "Record-Route", "From"] { for line in headerLines(name, in: request) { text += line + "\r\n" } }
    let to = headerLines("To", in: request).first ?? "To: <sip:unknown>"
    text += to.contains(";tag=") ? to + "\r\n" : to + ";tag=\(toTag)\r\n"
    for name in ["Call-ID", "CSeq"] { for line in headerLines(name, in: request) { text += line + "\r\n" } }
    if let contact { text += "Contact: <\(contact)>\r\n" }
    return Array((text + "Content-Length: 0\r\n\r\n").utf8)
}

struct Party {
    let flow: SIPFlow
    let events: EventLog
    let user: String
    var info: FlowInfo

    static func register(_ server: KamailioServer, user: String, transport: TransportKind) async throws -> Party {
        let flow = SIPFlow(
            target: FlowTarget(host: "127.0.0.1", port: server.port(for: transport), transport: transport),
            options: options(for: server))
        let events = EventLog(flow.events)
        await flow.start()
        _ = await events.next(timeout: .seconds(30), isConnected)
        let info = try #require(await flow.info)
        var client = Registrar(flow: flow, events: events, user: user, port: server.port(for: transport))
        var auth = DigestClientState(credentials: DigestCredentials(username: user, password: "astra" + user))
        let challenge = try #require(try await client.register(expires: 120, auth: &auth))
        _ = auth.receive(
            challenges: headerLines("WWW-Authenticate", in: challenge).map { String($0.dropFirst(17)) }, kind: .server)
        let ok = try #require(try await client.register(expires: 120, auth: &auth))
        #expect(ok.hasPrefix("SIP/2.0 200"))
        return Party(flow: flow, events: events, user: user, info: info)
    }

    var contact: String { "sip:\(user)@\(info.contactHost);transport=\(info.transport.uriParameter)" }

    func next(_ prefix: String, cseq: String? = nil) async -> ReceivedMessage? {
        let event = await events.next(timeout: .seconds(20)) {
            guard case .message(let m) = $0 else { return false }
            return m.text.hasPrefix(prefix) && (cseq.map { m.text.contains("CSeq: \($0)") } ?? true)
        }
        if case .message(let m)? = event { return m }
        return nil
    }
}

extension KamailioPeer {
    @Suite("Real Kamailio: proxying between registered users", .serialized)
    struct KamailioCallTests {
        @Test(
            "UDP user calls a WSS user: double Record-Route, callee reached over its WebSocket flow, in-dialog ACK/BYE")
        func udpCallsWebSocket() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await Party.register(server, user: "1001", transport: .wss)
            let caller = try await Party.register(server, user: "1002", transport: .udp)
            let callID = "call-\(UInt32.random(in: 0...UInt32.max))"
            func invite(cseq: Int, auth: String?) -> [UInt8] {
                var text =
                    "INVITE sip:1001@127.0.0.1 SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP \(caller.info.viaSentBy);branch=z9hG4bK-inv-\(callID)-\(cseq);rport\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:1002@127.0.0.1>;tag=caller\r\nTo: <sip:1001@127.0.0.1>\r\n"
                    + "Call-ID: \(callID)\r\nCSeq: \(cseq) INVITE\r\nContact: <\(caller.contact)>\r\n"
                if let auth { text += "Proxy-Authorization: \(auth)\r\n" }
                return Array((text + "Content-Length: 0\r\n\r\n").utf8)
            }
            // 407, ACK it, answer the challenge (RFC 3261 §22.3).
            try await caller.flow.send(invite(cseq: 1, auth: nil))
            let challenge = try #require(await caller.next("SIP/2.0 407", cseq: "1 INVITE"))
            let to407 = try #require(headerLines("To", in: challenge.text).first)
            try await caller.flow.send(
                Array(
                    ("ACK sip:1001@127.0.0.1 SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP \(caller.info.viaSentBy);branch=z9hG4bK-inv-\(callID)-1;rport\r\nMax-Forwards: 70\r\n"
                        + "From: <sip:1002@127.0.0.1>;tag=caller\r\n\(to407)\r\nCall-ID: \(callID)\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n")
                        .utf8))
            var auth = DigestClientState(credentials: DigestCredentials(username: "1002", password: "astra1002"))
            let proxyAuth = headerLines("Proxy-Authenticate", in: challenge.text).map {
                String($0.dropFirst("Proxy-Authenticate:".count)).trimmingCharacters(in: .whitespaces)
            }
            #expect(auth.receive(challenges: proxyAuth, kind: .proxy) == .retry)
            let credentials = try #require(
                try auth.authorizationHeaders(
                    method: "INVITE", uri: "sip:1001@127.0.0.1")
                .first)
            try await caller.flow.send(invite(cseq: 2, auth: credentials.value))

            // The callee gets the INVITE over its own WSS connection, with two Record-Route
            // entries (transport changes UDP → WSS) and its registered contact as Request-URI.
            let incoming = try #require(await callee.next("INVITE ", cseq: "2 INVITE"))
            #expect(incoming.remote.port == server.wssPort)
            let recordRoutes = headerLines("Record-Route", in: incoming.text)
            #expect(recordRoutes.count == 2, "\(recordRoutes)")
            #expect(incoming.text.hasPrefix("INVITE sip:1001@\(callee.info.contactHost)"))
            #expect(headerLines("Proxy-Authorization", in: incoming.text).isEmpty)
            try await callee.flow.send(response("200 OK", to: incoming.text, toTag: "callee", contact: callee.contact))

            // The caller gets the 200 with the route set; ACK and BYE follow it back to the callee.
            let answer = try #require(await caller.next("SIP/2.0 200", cseq: "2 INVITE"))
            let routeSet = headerLines("Record-Route", in: answer.text).flatMap { line in
                line.dropFirst("Record-Route:".count).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            }.reversed()
            #expect(routeSet.count == 2)
            let remoteTarget = try #require(headerLines("Contact", in: answer.text).first.flatMap(angleURI))
            #expect(
                remoteTarget.contains(";alias="), "Kamailio marks the WebSocket contact with its flow: \(remoteTarget)")
            let to200 = try #require(headerLines("To", in: answer.text).first)
            func inDialog(_ method: String, cseq: Int, branch: String) -> [UInt8] {
                Array(
                    ("\(method) \(remoteTarget) SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP \(caller.info.viaSentBy);branch=z9hG4bK-\(branch);rport\r\nMax-Forwards: 70\r\n"
                        + "Route: \(routeSet.joined(separator: ", "))\r\n"
                        + "From: <sip:1002@127.0.0.1>;tag=caller\r\n\(to200)\r\nCall-ID: \(callID)\r\nCSeq: \(cseq) \(method)\r\n"
                        + "Content-Length: 0\r\n\r\n").utf8)
            }
            try await caller.flow.send(inDialog("ACK", cseq: 2, branch: "ack-\(callID)"))
            #expect(await callee.next("ACK ", cseq: "2 ACK") != nil)
            try await caller.flow.send(inDialog("BYE", cseq: 3, branch: "bye-\(callID)"))
            let bye = try #require(await callee.next("BYE ", cseq: "3 BYE"))
            try await callee.flow.send(response("200 OK", to: bye.text, toTag: "callee", contact: nil))
            #expect(await caller.next("SIP/2.0 200", cseq: "3 BYE") != nil)
            await caller.flow.stop()
            await callee.flow.stop()
        }
    }
}
