import Foundation
import Media
import SIPCore
import Testing

extension KamailioPeer {
    /// The pure ``TURNClient`` over a real socket against Debian's coturn (an independent TURN
    /// server, RFC 8656): the 401 round, the relayed address, permissions, Send indications,
    /// Data indications, ChannelBind + ChannelData both ways, and deallocation.
    @Suite struct TURNCoturnTests {
        /// Runs a client on a socket: executes its actions, feeds it what arrives, ticks it.
        final class Driver: @unchecked Sendable {
            let socket: UDPSocket
            var client: TURNClient
            var events: [TURNClient.Event] = []
            let start = ContinuousClock.now
            var now: Duration { ContinuousClock.now - start }

            init(server: UDPSocket.Address, password: String) throws {
                socket = try UDPSocket(bindHost: "127.0.0.1")
                client = TURNClient(
                    configuration: TURNClient.Configuration(server: server, username: "u", password: password),
                    ids: SystemIdentifierSource())
            }

            func execute(_ actions: [TURNClient.Action]) {
                for a in actions {
                    switch a {
                    case .send(let bytes): _ = socket.send(bytes, to: client.configuration.server)
                    case .event(let e): events.append(e)
                    }
                }
            }

            /// Polls until `done` or `timeout`.
            func run(for timeout: Duration, until done: (Driver) -> Bool) {
                var buffer = [UInt8](repeating: 0, count: 2048)
                while now < timeout && !done(self) {
                    if let (n, _) = buffer.withUnsafeMutableBytes({ socket.receive(into: $0) }), n > 0 {
                        execute(client.receive(Array(buffer[0..<n]), now: now))
                        continue
                    }
                    if let d = client.nextDeadline, d <= now { execute(client.tick(now: now)) }
                    usleep(500)  // poll interval of a bounded wait
                }
            }
        }

        @Test func allocatePermissionDataAndChannelsAgainstCoturn() async throws {
            let coturn = try await CoturnServer.start(turn: .init())
            defer { coturn.stop() }
            let d = try Driver(server: coturn.address, password: "p")
            let began = d.now
            d.execute(d.client.allocate(now: d.now))
            d.run(for: .seconds(5)) { $0.client.state != .allocating }
            let allocationTime = d.now - began
            #expect(d.client.state == .allocated, "\(d.events) \(coturn.process.stdout)")
            let relayed = try #require(d.client.relayedAddress)
            #expect(relayed.host == "127.0.0.1")
            #expect(d.client.mappedAddress == d.socket.localAddress)
            print("TURN allocation against coturn (401 round included): \(allocationTime)")
            #expect(allocationTime < .milliseconds(500))

            // A peer on loopback: our datagram reaches it from the relayed address…
            let peer = try UDPSocket(bindHost: "127.0.0.1")
            d.execute(d.client.send([0x80, 1, 2, 3], to: peer.localAddress, now: d.now))
            var buffer = [UInt8](repeating: 0, count: 2048)
            var got: (Int, UDPSocket.Address?)?
            d.run(for: .seconds(3)) { _ in
                got = buffer.withUnsafeMutableBytes { peer.receive(into: $0) }
                return got != nil
            }
            #expect(got?.1 == relayed)
            #expect(got.map { Array(buffer[0..<$0.0]) } == [0x80, 1, 2, 3])
            // … and its answer comes back through the server.
            _ = peer.send([0x80, 9], to: relayed)
            d.run(for: .seconds(3)) { $0.events.contains { if case .data = $0 { true } else { false } } }
            #expect(d.events.contains(.data([0x80, 9], from: peer.localAddress)), "\(d.events)")
            // The channel is bound by now (ChannelBind after the first Send indication): ChannelData.
            d.run(for: .seconds(3)) { $0.events.contains { if case .channelBound = $0 { true } else { false } } }
            #expect(d.events.contains(.channelBound(peer.localAddress, channel: 0x4000)), "\(d.events)")
            _ = peer.send([0x80, 10], to: relayed)
            d.run(for: .seconds(3)) { $0.events.contains(.data([0x80, 10], from: peer.localAddress)) }
            #expect(d.events.contains(.data([0x80, 10], from: peer.localAddress)))
            d.execute(d.client.send([0x80, 11], to: peer.localAddress, now: d.now))
            got = nil
            d.run(for: .seconds(3)) { _ in
                got = buffer.withUnsafeMutableBytes { peer.receive(into: $0) }
                return got != nil
            }
            #expect(got.map { Array(buffer[0..<$0.0]) } == [0x80, 11])
            d.execute(d.client.close(now: d.now))
            #expect(d.client.state == .closed)
        }

        @Test func wrongPasswordIsAClearError() async throws {
            let coturn = try await CoturnServer.start(turn: .init())
            defer { coturn.stop() }
            let d = try Driver(server: coturn.address, password: "not-the-password")
            d.execute(d.client.allocate(now: d.now))
            d.run(for: .seconds(5)) { $0.client.state != .allocating }
            guard case .failed(let error) = d.events.last else {
                Issue.record("no failure: \(d.events)")
                return
            }
            #expect(error.code == .unauthorized, "\(error)")
            #expect(!error.description.contains("not-the-password"))
            print("wrong TURN password: \(error)")
        }
    }
}
