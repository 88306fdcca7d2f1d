import Media

/// DTLS 1.2 records handed to OpenSSL by ``DTLSTransport`` (RFC 6347, DTLS-SRTP RFC 5763 /
/// RFC 5764): a hostile peer's flights to a fresh server or to a client that sent its
/// ClientHello, and records after a completed handshake (alerts, retransmissions, data,
/// renegotiation). Byte 0 is `role | afterHandshake << 1`; then steps of a control byte and a
/// framed datagram (`c % 4`: 0–1 receive it, 2 the retransmission timer fires, 3 close).
/// Seeds: the flights of a real handshake between two transports.
///
/// The certificates are made once per process. OpenSSL itself is the Debian library, not
/// instrumented: the fuzzer steers by our glue's coverage, ASan watches our buffers.
///
/// Invariants: every datagram we send is at most the MTU; nothing comes out after `.failed`;
/// a transport never connects to a peer whose certificate does not match the fingerprint.
enum DTLSTarget {
    static let mtu = 1200
    static let certificates: (DTLSCertificate, DTLSCertificate) = {
        guard let a = try? DTLSCertificate(commonName: "fuzz-client"),
            let b = try? DTLSCertificate(commonName: "fuzz-server")
        else { fatalError("invariant broken: DTLS certificates could not be made") }
        return (a, b)
    }()

    /// OpenSSL keeps its own retransmission timer on the wall clock and retransmits by itself
    /// when a read finds it run out: with the default 100 ms, a process the scheduler starves
    /// (a campaign at nice 19 on a loaded machine) resent flights mid-handshake, and the same
    /// input completed its handshake or not ("did not complete", seen at load 25). A minute
    /// keeps every input deterministic; the retransmission schedule itself is tested in virtual
    /// time by MediaTests.
    static let retransmission = DTLSTransport.Retransmission(initial: .seconds(60), maximum: .seconds(60))

    static let target = FuzzTarget(
        name: "dtls",
        summary:
            "DTLS 1.2 records into OpenSSL through DTLSTransport: fresh and after a handshake (RFC 6347, RFC 5764)",
        maxLength: 16_384, seeds: seeds, run: run)

    static func makePair() -> (client: DTLSTransport, server: DTLSTransport) {
        let (a, b) = certificates
        guard
            let client = try? DTLSTransport(
                role: .client, certificate: a, expectedFingerprint: b.fingerprint, mtu: mtu,
                retransmission: retransmission),
            let server = try? DTLSTransport(
                role: .server, certificate: b, expectedFingerprint: a.fingerprint, mtu: mtu,
                retransmission: retransmission)
        else { fatalError("invariant broken: DTLS transports could not be made") }
        return (client, server)
    }

    /// Runs a handshake in memory; returns the datagrams each side sent, in order.
    @discardableResult
    static func handshake(_ client: DTLSTransport, _ server: DTLSTransport) -> (
        fromClient: [[UInt8]], fromServer: [[UInt8]]
    ) {
        var fromClient: [[UInt8]] = []
        var fromServer: [[UInt8]] = []
        var toServer = sent(client.start())
        _ = server.start()
        for _ in 0..<10 where !(client.isConnected && server.isConnected) {
            fromClient += toServer
            let toClient = toServer.flatMap { sent(server.receive($0)) }
            fromServer += toClient
            toServer = toClient.flatMap { sent(client.receive($0)) }
        }
        return (fromClient, fromServer)
    }

    static func sent(_ actions: [DTLSTransport.Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let b) = $0 { b } else { nil } }
    }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let setup = input.byte()
        let (client, server) = makePair()
        let transport = setup & 1 == 0 ? server : client
        if setup & 2 != 0 {
            handshake(client, server)
            invariant(client.isConnected && server.isConnected, "an in-memory DTLS handshake did not complete")
        } else if transport === client {
            check(client.start())
        }
        var failed = false
        var steps = 0
        while !input.isAtEnd && steps < 64 {
            let control = input.byte()
            let datagram = input.framed()
            steps += 1
            let actions: [DTLSTransport.Action]
            switch control % 4 {
            case 2: actions = transport.handleTimeout()
            case 3: actions = transport.close()
            default: actions = transport.receive(datagram)
            }
            if failed { invariant(actions.isEmpty, "DTLS actions after .failed") }
            failed = failed || check(actions)
        }
    }

    /// Checks one batch of actions; true when it ends in `.failed`.
    @discardableResult
    static func check(_ actions: [DTLSTransport.Action]) -> Bool {
        var failed = false
        for action in actions {
            switch action {
            case .send(let datagram):
                invariant(datagram.count <= mtu, "DTLS datagram of \(datagram.count) octets over the MTU")
            case .connected: fatalError("invariant broken: DTLS connected to a peer that never had the certificate")
            case .failed: failed = true
            case .startTimer: break
            }
        }
        return failed
    }

    static func seeds() -> [[UInt8]] {
        let (client, server) = makePair()
        let flights = handshake(client, server)
        func steps(_ datagrams: [[UInt8]]) -> [UInt8] { datagrams.flatMap { [0] + FuzzInput.framed([$0]) } }
        // An alert record in epoch 1 whose "encrypted" body is garbage.
        let alert: [UInt8] = [21, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 2, 1, 0]
        return [
            [0] + steps(flights.fromClient),  // a server receiving a client's flights
            [1] + steps(flights.fromServer),  // a client receiving a server's flights
            [0] + steps(Array(flights.fromClient.prefix(1))) + [2] + FuzzInput.framed([[]]),
            [2] + steps(flights.fromClient.suffix(1)) + steps([alert]),  // a connected server, a retransmitted flight
            [3] + steps(flights.fromServer.suffix(1)) + [3] + FuzzInput.framed([[]]),
        ]
    }
}
