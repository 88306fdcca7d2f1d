import AstraJSON
import HTTPLite
import PushKitLive
import SIPCore
import SIPTransport
import Synchronization

/// A calling line (1001–1019): INVITE, the 407 challenge answered, then 200 + ACK + BYE, or the
/// 480/487 ACKed; CANCEL when asked.
final class SoakCaller: Sendable {
    let user: String
    let socket: SoakSocket

    init(user: String, kamailio: SocketAddress) throws {
        self.user = user
        socket = try SoakSocket(kamailio: kamailio) { socket, request in
            if request.method == .options || request.method == .bye { await socket.reply(request, 200) }
        }
    }

    /// One call to `callee`; the caller's final INVITE status (-1: none in time).
    func call(_ callee: String, cancelAfterMs: Int?, talkMs: Int) async -> Int {
        let callID = "soak-" + KeyMaterial.token(length: 16)
        defer { socket.forget(callID) }
        let fromTag = SoakMessages.tag()
        let uri = "sip:\(callee)@127.0.0.1"
        let first = SoakMessages.branch()
        func invite(_ cseq: Int, _ branch: String, _ auth: [String]) -> [UInt8] {
            SoakMessages.request(
                "INVITE", uri: uri, from: user, fromTag: fromTag, to: callee, callID: callID, cseq: cseq,
                port: socket.port, branch: branch, extra: auth)
        }
        await socket.send(invite(1, first, []))
        guard let challenge = await socket.final(callID, .invite, timeoutMs: 5_000), challenge.statusCode == 407 else {
            return -1
        }
        await socket.send(
            SoakMessages.request(
                "ACK", uri: uri, from: user, fromTag: fromTag, to: callee, toTag: (try? challenge.headers.to())??.tag,
                callID: callID, cseq: 1, port: socket.port, branch: first, contact: false))
        let branch = SoakMessages.branch()
        await socket.send(invite(2, branch, SoakMessages.authorization(challenge, user: user, method: "INVITE", uri: uri)))
        if let cancelAfterMs {
            try? await Task.sleep(for: .milliseconds(cancelAfterMs))
            await socket.send(
                SoakMessages.request(
                    "CANCEL", uri: uri, from: user, fromTag: fromTag, to: callee, callID: callID, cseq: 2,
                    port: socket.port, branch: branch, contact: false))
        }
        guard let final = await socket.final(callID, .invite, timeoutMs: 10_000) else { return -1 }
        let toTag = (try? final.headers.to())??.tag
        if final.statusCode >= 300 {
            await socket.send(
                SoakMessages.request(
                    "ACK", uri: uri, from: user, fromTag: fromTag, to: callee, toTag: toTag, callID: callID, cseq: 2,
                    port: socket.port, branch: branch, contact: false))
            return final.statusCode
        }
        // 2xx: ACK and BYE end to end, through the Record-Route set (RFC 3261 §12.1.2, §13.2.2.4).
        let routes = ((try? final.headers.recordRoutes()) ?? []).reversed().map(\.description)
        let target = (try? final.headers.contacts())?.first?.address?.uri.description ?? uri
        await socket.send(
            SoakMessages.request(
                "ACK", uri: target, from: user, fromTag: fromTag, to: callee, toTag: toTag, callID: callID, cseq: 2,
                port: socket.port, branch: SoakMessages.branch(), routes: routes, contact: false))
        try? await Task.sleep(for: .milliseconds(talkMs))
        await socket.send(
            SoakMessages.request(
                "BYE", uri: target, from: user, fromTag: fromTag, to: callee, toTag: toTag, callID: callID, cseq: 3,
                port: socket.port, branch: SoakMessages.branch(), routes: routes, contact: false))
        let bye = await socket.final(callID, .bye, timeoutMs: 5_000)
        return bye?.statusCode == 200 ? final.statusCode : -2
    }
}

/// A phone line: answers INVITE (180, then 200 after 20 ms), OPTIONS and BYE. A `woken` phone is
/// unregistered between calls: its APNs device connection gets the push, it acks, REGISTERs, is
/// rung, and unregisters after the BYE. A `deaf` phone (no-ack and cancelled calls) holds its
/// device connection and never acks.
final class SoakPhone: Sendable {
    enum Kind: Sendable { case registered, woken, deaf }
    let user: String
    let kind: Kind
    let token: String
    let socket: SoakSocket
    let gateway: GatewayClient
    private let device = Mutex<TCPConnection?>(nil)
    let busy = Mutex(false)

    init(user: String, kind: Kind, kamailio: SocketAddress, gateway: GatewayClient) throws {
        self.user = user
        self.kind = kind
        token = String(repeating: "a", count: 60) + user
        self.gateway = gateway
        socket = try SoakSocket(kamailio: kamailio) { socket, request in
            switch request.method {
            case .options, .bye: await socket.reply(request, 200)
            case .invite:
                let tag = SoakMessages.tag()
                await socket.reply(request, 180, toTag: tag, contact: true)
                try? await Task.sleep(for: .milliseconds(20))
                await socket.reply(request, 200, toTag: tag, contact: true)
            case .cancel: await socket.reply(request, 200)
            default: break
            }
        }
    }

    /// REGISTER (401 answered) with `expires`; true on 200.
    func register(expires: Int) async -> Bool {
        let callID = "soak-reg-\(user)-" + KeyMaterial.token(length: 8)
        defer { socket.forget(callID) }
        let tag = SoakMessages.tag()
        let uri = "sip:127.0.0.1"
        func message(_ cseq: Int, _ auth: [String]) -> [UInt8] {
            SoakMessages.request(
                "REGISTER", uri: uri, from: user, fromTag: tag, to: user, callID: callID, cseq: cseq,
                port: socket.port, branch: SoakMessages.branch(), extra: ["Expires: \(expires)"] + auth)
        }
        await socket.send(message(1, []))
        guard let challenge = await socket.final(callID, .register, timeoutMs: 5_000) else {
            log("REGISTER \(user): no answer")
            return false
        }
        if challenge.statusCode == 200 { return true }
        let auth = SoakMessages.authorization(challenge, user: user, method: "REGISTER", uri: uri)
        await socket.send(message(2, auth))
        let final = await socket.final(callID, .register, timeoutMs: 5_000)
        if final?.statusCode != 200 { log("REGISTER \(user): \(challenge.statusCode) then \(final?.statusCode ?? -1), auth \(auth.first?.prefix(60) ?? "")") }
        return final?.statusCode == 200
    }

    /// The token on the gateway (the phone's own bearer token) and the device connection.
    func connectDevice(apnsPort: UInt16) async throws {
        let response = try await gateway.registerToken(
            endpoint: user, token: token, environment: "sandbox", bundleID: "com.example.astra")
        guard response.status == 200 else { throw SoakError("token for \(user): HTTP \(response.status)") }
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: apnsPort)
        let hello = #"{"token":"\#(token)","topic":"com.example.astra.voip","environment":"sandbox"}"# + "\n"
        _ = await connection.write(Array(hello.utf8))
        device.withLock { $0 = connection }
        guard kind == .woken else { return }
        Task { await self.readPushes(connection) }
    }

    private func readPushes(_ connection: TCPConnection) async {
        var buffer: [UInt8] = []
        for await event in connection.events {
            guard case .data(let bytes) = event else { return }
            buffer += bytes
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                guard let json = try? JSONValue.parse(line), case .string(let pushID)? = json["payload"]?["push_id"]
                else { continue }
                Task { await self.woken(pushID) }
            }
        }
    }

    /// Ack, register; the INVITE follows (answered by the socket handler).
    private func woken(_ pushID: String) async {
        _ = try? await gateway.ack(pushID: pushID)
        _ = await register(expires: 60)
    }

    func close() { device.withLock { $0?.close() } }
}

struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
