import AstraJSON
import Glibc
import Testing
import SIPTransport
import ToolSupport
import WakeGateway

@testable import WakeGatewayCommand

/// The flag mapping astra-wakegw's command owns: flags → ``WakeGatewayConfiguration``, and the
/// heap-trim fields of its `stats` event (the serving itself runs through the built tool:
/// KamailioTests.WakeGateway*).
@Suite struct WakeGatewayArgumentsTests {
    /// A 32-byte HS256 secret in a file of its own, removed when the test ends.
    final class SecretFile {
        let path: String
        init() {
            var template = Array("/tmp/wakegw-command-XXXXXX".utf8CString)
            let fd = mkstemp(&template)
            path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let secret = Array(repeating: UInt8(ascii: "k"), count: 32) + [10]
            _ = secret.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        deinit { unlink(path) }
    }

    static func configuration(_ arguments: [String]) throws -> WakeGatewayConfiguration {
        guard case .run(let parsed) = try CommandLineParser(ToolSpecs.wakegw).parse(arguments) else {
            throw ToolError(.internal, "expected a run")
        }
        return try WakeGatewayConfiguration(arguments: parsed)
    }

    @Test func defaultsNeedOnlyAJWTKey() throws {
        let secret = SecretFile()
        let configuration = try Self.configuration(["--jwt-hs256-secret-file", secret.path])
        #expect(configuration.sipHost == "127.0.0.1" && configuration.sipPort == 5070)
        #expect(configuration.kamailio == SocketAddress(ip: "127.0.0.1", port: 5060))
        // No --trust: the Kamailio address is the one trusted source.
        #expect(configuration.trustedSources == [TrustedSource(ip: "127.0.0.1", port: 5060)])
        #expect(configuration.auth != nil)
        #expect(configuration.gatewayID == nil && configuration.peers.isEmpty)
        #expect(configuration.apnsSandboxURL == nil && configuration.fcmURL == nil)
    }

    /// No key, no token API: the gateway refuses to start with an open door (exit 64).
    @Test func noJWTKeyIsAUsageError() {
        #expect(throws: ToolError(.usage, "")) { try Self.configuration([]) }
        do {
            _ = try Self.configuration([])
        } catch let error as ToolError {
            #expect(error.message.contains("no JWT verification key"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func addressesTrustAndPeers() throws {
        let secret = SecretFile()
        let configuration = try Self.configuration([
            "--jwt-hs256-secret-file", secret.path, "--sip", "127.0.0.2:5080", "--kamailio", "127.0.0.3:5061",
            "--trust", "127.0.0.4,127.0.0.5:5062", "--gateway-id", "gw_a", "--peer", "gw_b=127.0.0.6:8090",
        ])
        #expect(configuration.sipHost == "127.0.0.2" && configuration.sipPort == 5080)
        #expect(configuration.kamailio == SocketAddress(ip: "127.0.0.3", port: 5061))
        #expect(configuration.trusted == [TrustedSource(ip: "127.0.0.4", port: nil), TrustedSource(ip: "127.0.0.5", port: 5062)])
        #expect(configuration.gatewayID == "gw_a")
        #expect(configuration.peers == ["gw_b": SocketAddress(ip: "127.0.0.6", port: 8090)])
    }

    @Test(arguments: [
        ["--sip", "127.0.0.1"], ["--kamailio", "localhost:5060"], ["--trust", "::1"], ["--http-host", "example.com"],
        ["--gateway-id", "GW-1"], ["--gateway-id", "a", "--peer", "a=127.0.0.1:1"], ["--peer", "b"],
        ["--apns-url", "http://api.push.apple.com"], ["--apns-url", "https://api.push.apple.com/3/device"],
        ["--apns-url", "https://api.sandbox.push.apple.com"],  // without --apns-key-file
        ["--fcm-url", "https://fcm.googleapis.com"],  // without --fcm-service-account
        ["--emulator-cert-file", "/nonexistent"],  // without --emulator-key-file
    ])
    func badFlagsAreUsageErrors(_ flags: [String]) {
        let secret = SecretFile()
        #expect(throws: ToolError(.usage, ""), "\(flags)") {
            try Self.configuration(["--jwt-hs256-secret-file", secret.path] + flags)
        }
    }

    /// The `stats` event carries the trims since the previous one, then the count starts again.
    @Test func statsCarryTheTrimsSinceTheLastOne() {
        let trims = HeapTrims()
        trims.record(micros: 40)
        trims.record(micros: 900)
        trims.record(micros: 7)
        let first = trims.stats(WakeEvent("stats", ["calls": .int(2)]))
        #expect(first == ["calls": .int(2), "heap_trims": .int(3), "heap_trim_max_us": .int(900)])
        let second = trims.stats(WakeEvent("stats", [:]))
        #expect(second == ["heap_trims": .int(0), "heap_trim_max_us": .int(0)])
    }
}
