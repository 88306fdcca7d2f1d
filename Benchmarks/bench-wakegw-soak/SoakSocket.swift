import SIPCore
import SIPTransport
import Synchronization

/// One UDP socket of a soak user agent: sends to Kamailio, hands responses to whoever waits for
/// them (by Call-ID + CSeq method) and requests to the owner's handler. Loopback only.
final class SoakSocket: Sendable {
    let udp: UDPTransport
    let kamailio: SocketAddress
    /// Waiters and responses nobody waited for yet, under one lock (a response and its waiter
    /// can never pass each other).
    private struct Mail {
        var waiters: [String: CheckedContinuation<SIPResponse?, Never>] = [:]
        var early: [String: [SIPResponse]] = [:]
    }
    private let mail = Mutex(Mail())
    let reader: Task<Void, Never>

    init(kamailio: SocketAddress, onRequest: @escaping @Sendable (SoakSocket, SIPRequest) async -> Void) throws {
        udp = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard)
        self.kamailio = kamailio
        let udp = udp
        let box = WeakBox()
        reader = Task {
            for await received in udp.events {
                guard let socket = box.socket else { return }
                switch received.message {
                case .request(let request): await onRequest(socket, request)
                case .response(let response): socket.deliver(response)
                }
            }
        }
        box.socket = self
    }

    final class WeakBox: @unchecked Sendable { weak var socket: SoakSocket? }

    var port: UInt16 { udp.local.port }

    static func key(_ callID: String, _ method: SIPMethod) -> String { callID + " " + method.rawValue }

    private func deliver(_ response: SIPResponse) {
        guard let callID = response.headers.callID, let method = (try? response.headers.cseq())?.method else { return }
        let key = Self.key(callID, method)
        let waiter = mail.withLock { mail -> CheckedContinuation<SIPResponse?, Never>? in
            if let waiter = mail.waiters.removeValue(forKey: key) { return waiter }
            mail.early[key, default: []].append(response)
            return nil
        }
        waiter?.resume(returning: response)
    }

    /// The next response for (Call-ID, method) within `timeoutMs`, or nil.
    func response(_ callID: String, _ method: SIPMethod, timeoutMs: Int) async -> SIPResponse? {
        let key = Self.key(callID, method)
        let timer = Task {
            // Cancelled (the answer came): return without touching a later waiter of the same key.
            do { try await Task.sleep(for: .milliseconds(timeoutMs)) } catch { return }
            if let waiter = mail.withLock({ $0.waiters.removeValue(forKey: key) }) { waiter.resume(returning: nil) }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let queued = mail.withLock { mail -> SIPResponse? in
                if var q = mail.early[key], !q.isEmpty {
                    let first = q.removeFirst()
                    mail.early[key] = q.isEmpty ? nil : q
                    return first
                }
                mail.waiters[key] = continuation
                return nil
            }
            if let queued { continuation.resume(returning: queued) }
        }
    }

    /// A final (≥ 200) response for (Call-ID, method), skipping provisionals.
    func final(_ callID: String, _ method: SIPMethod, timeoutMs: Int, provisional: (SIPResponse) -> Void = { _ in })
        async -> SIPResponse?
    {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(timeoutMs))
        while ContinuousClock.now < deadline {
            let rest = ContinuousClock.now.duration(to: deadline).components
            let left = Int(rest.seconds * 1_000 + rest.attoseconds / 1_000_000_000_000_000) + 1
            guard let response = await response(callID, method, timeoutMs: left) else { return nil }
            if response.statusCode >= 200 { return response }
            provisional(response)
        }
        return nil
    }

    func forget(_ callID: String) {
        mail.withLock { mail in for key in mail.early.keys where key.hasPrefix(callID + " ") { mail.early[key] = nil } }
    }

    func send(_ message: [UInt8], to remote: SocketAddress? = nil) async {
        do { try await udp.send(message, to: remote ?? kamailio) } catch { log("send failed: \(error)") }
    }

    func reply(_ request: SIPRequest, _ status: Int, toTag: String? = nil, contact: Bool = false, to remote: SocketAddress? = nil) async {
        var headers = SIPHeaders()
        if contact { headers.add(.contact, "<sip:\(request.uri.user ?? "u")@127.0.0.1:\(port)>") }
        let response = SIPResponse(to: request, statusCode: status, reasonPhrase: nil, toTag: toTag, headers: headers)
        await send(response.serialized(), to: remote)
    }
}
