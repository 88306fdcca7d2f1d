import Foundation
import Provisioning
import SIPCore
import Synchronization
import Testing

extension Tag {
    /// Tests run against a server the test starts that implements the documented API contract.
    @Tag static var contract: Self
}

/// CONTRACT TEST — the platform API client against Fixtures/platform_contract_server.py, which
/// implements exactly the contract in docs/provisioning.md on 127.0.0.1.
@Suite("Contract: platform API", .tags(.contract), .serialized) struct PlatformContractTests {
    let server: ContractServer

    init() throws { server = try ContractServer() }

    func client(
        _ firebase: String, timeoutMs: Int = 5000, now: @escaping @Sendable () -> Double = PlatformClient.wallClock
    )
        throws -> PlatformClient
    {
        try PlatformClient(
            baseURL: server.baseURL, firebaseToken: firebase,
            transport: CurlHTTPTransport(timeoutMilliseconds: timeoutMs), now: now)
    }

    @Test func linesAreTheWSSUsersWithAnEndpoint() async throws {
        let result = await LinesCommand.run(client: try client("fb-good"))
        #expect(result.exit == .ok, "\(result.diagnostics)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"v":1,"display_name":"Alice","user":"1001","password":"alice-secret","domain":"pbx.example.com","#
                    + #""server":"pbx.example.com:8089","transport":"wss","ws_path":"/ws"}"#,
                #"{"v":1,"display_name":"Dave","user":"1004","auth_user":"dave4","password":"dave-secret","#
                    + #""domain":"pbx.example.com","server":"edge.example.com:443","transport":"wss"}"#,
            ])
        for line in lines { _ = try Line(json: line) }
    }

    @Test func usersAndDatesInBothForms() async throws {
        let users = try await client("fb-fraction").users()
        #expect(users.map(\.id) == ["u1", "u2", "u3", "4", "u5"])
        #expect(users.filter(\.hasUsableWSSLine).map(\.id) == ["u1", "4"])
        #expect(users[0].createdAt == 1_709_271_000)  // 2024-03-01T05:30:00Z
        #expect(users[1].createdAt == 1_709_271_000)  // …00.000Z
        #expect(users[2].createdAt == 1_709_271_000.123)
        #expect(users[3].createdAt == 1_709_366_400)  // 2024-03-02T10:00:00+02:00
        let wrapped = try await client("fb-users-shape").users()
        #expect(wrapped.count == 5)
    }

    @Test func tokenIsCachedUntilItExpires() async throws {
        let clock = Mutex(PlatformClient.wallClock())
        let api = try client("fb-fraction", now: { clock.withLock { $0 } })
        _ = try await api.users()
        let session = try await api.session()
        _ = try await api.lines()
        #expect(await api.loginCount == 1)
        #expect(try await server.stats()["logins"] == 1)
        #expect(session.expiresAt > PlatformClient.wallClock() + 23 * 3600)
        clock.withLock { $0 = session.expiresAt - 30 }  // inside the 60 s skew: sign in again
        _ = try await api.users()
        #expect(await api.loginCount == 2)
        #expect(try await server.stats()["logins"] == 2)
    }

    @Test(arguments: [
        (
            "fb-unauthorized", PlatformError.Code.unauthorized, QRCommandResult.Exit.invalidLine,
            "astra-qr: POST /api/v1/auth/user-login: HTTP 401, the Firebase token was refused"
        ),
        (
            "fb-500", .serverError, .invalidLine,
            "astra-qr: POST /api/v1/auth/user-login: HTTP 500 from the API: internal"
        ),
        (
            "fb-badjson", .badResponse, .invalidLine,
            "astra-qr: user-login: response is not JSON (invalid JSON at byte 0: unexpected character '<')"
        ),
        (
            "fb-users-500", .serverError, .invalidLine,
            "astra-qr: GET /api/v1/users: HTTP 503 from the API: maintenance"
        ),
    ])
    func apiErrorsAreClear(firebase: String, code: PlatformError.Code, exit: QRCommandResult.Exit, message: String)
        async throws
    {
        await #expect {
            _ = try await client(firebase).lines()
        } throws: { ($0 as? PlatformError)?.code == code }
        let result = await LinesCommand.run(client: try client(firebase))
        #expect(result.exit == exit)
        #expect(result.diagnostics == [message])
        #expect(result.stdout.isEmpty)
    }

    @Test func tokenCacheFileIsReusedAcrossClients() async throws {
        let path = try Support.tempDirectory().appendingPathComponent("token.json").path
        let store = FileSessionStore(path: path)
        let first = try PlatformClient(baseURL: server.baseURL, firebaseToken: "fb-good", store: store)
        _ = try await first.users()
        let second = try PlatformClient(baseURL: server.baseURL, firebaseToken: "fb-good", store: store)
        _ = try await second.lines()
        #expect(try await server.stats()["logins"] == 1)
        #expect(await second.loginCount == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // Another API URL does not reuse it; an expired one is replaced.
        #expect(store.load(api: "http://127.0.0.1:1") == nil)
        let late = try PlatformClient(
            baseURL: server.baseURL, firebaseToken: "fb-good", now: { PlatformClient.wallClock() + 2 * 86400 },
            store: store)
        _ = try await late.users()
        #expect(await late.loginCount == 1)
    }

    @Test func timeoutIsANetworkError() async throws {
        let result = await LinesCommand.run(client: try client("fb-slow", timeoutMs: 500))
        #expect(result.exit == .network)
        #expect(
            result.diagnostics == [
                "astra-qr: POST \(server.baseURL)/api/v1/auth/user-login: no answer within 500 ms"
            ])
    }

    @Test func refusedConnectionIsANetworkError() async throws {
        let api = try PlatformClient(baseURL: "http://127.0.0.1:1", firebaseToken: "fb-good")
        let result = await LinesCommand.run(client: api)
        #expect(result.exit == .network)
        #expect(result.diagnostics.count == 1 && result.diagnostics[0].contains("Could"))
    }

    @Test func badURLIsRefused() {
        #expect(throws: PlatformError(.badURL, "")) { try PlatformClient(baseURL: "ftp://x", firebaseToken: "t") }
    }

    /// One user's bad entry costs one error line; every other user's line is still printed.
    @Test func oneBadUserDoesNotDropTheOthers() async throws {
        let result = await LinesCommand.run(client: try client("fb-bad-date"))
        #expect(result.exit == .invalidLine)
        #expect(result.diagnostics == [#"astra-qr: user u1: users: user u1 created_at "yesterday" is not an ISO-8601 date"#])
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(#""user":"1004""#))
    }

    /// Text from the server is stripped of control characters and redacted before it is printed.
    @Test func serverTextIsSanitised() async throws {
        let result = await LinesCommand.run(client: try client("fb-hostile"))
        #expect(result.exit == .invalidLine)
        #expect(result.diagnostics == ["astra-qr: GET /api/v1/users: HTTP 500 from the API:  [2J down  Authorization: Bearer <redacted>"])
    }

    @Test func diagnosticsNeverShowTokensOrPasswords() async throws {
        for firebase in ["fb-unauthorized", "fb-500", "fb-users-500", "fb-good"] {
            let result = await LinesCommand.run(client: try client(firebase))
            for line in result.diagnostics {
                #expect(!line.contains(firebase) && !line.contains("secret") && !line.contains("eyJ"))
            }
        }
    }

    /// What the platform returns is input from outside, like a code: a line that weakens TLS
    /// is refused for its user (the other users' lines still printed) unless allowed, and then
    /// marked `insecure`; a body naming a member twice is a bad answer. No password in either.
    @Test func platformLinesCannotWeakenTLS() async throws {
        let refused = await LinesCommand.run(client: try client("fb-insecure"))
        #expect(refused.exit == .invalidLine)
        #expect(
            refused.diagnostics == [
                "astra-qr: user u1: refused: the platform's line names a local file as its CA (ca_file) and turns "
                    + "TLS certificate verification off (tls_verify); pass --allow-insecure to accept it (test rigs only)"
            ])
        let kept = String(decoding: refused.stdout, as: UTF8.self).split(separator: "\n")
        #expect(kept.count == 1 && kept[0].contains(#""user":"1004""#))
        let allowed = await LinesCommand.run(client: try client("fb-insecure"), allowInsecure: true)
        #expect(allowed.exit == .ok && allowed.diagnostics.isEmpty)
        let first = String(decoding: allowed.stdout, as: UTF8.self).split(separator: "\n").first ?? ""
        #expect(first.hasSuffix(#""ca_file":"/etc/shadow","tls_verify":false,"insecure":["ca_file","tls_verify"]}"#))
        let duplicate = await LinesCommand.run(client: try client("fb-duplicate"))
        #expect(duplicate.exit == .invalidLine)
        #expect(
            duplicate.diagnostics == [
                "astra-qr: user u1: sip-credentials for u1: response refused (invalid JSON at byte 72: member "
                    + "\"domain\" given twice)"
            ])
        for text in refused.diagnostics + duplicate.diagnostics { #expect(!text.contains("alice-secret")) }
}

/// Pure parts of the platform client: timestamps and the login response.
@Suite struct PlatformParsingTests {
    @Test(arguments: [
        ("2024-05-01T05:30:00Z", 1_714_541_400.0), ("2024-05-01T05:30:00.000Z", 1_714_541_400.0),
        ("2024-05-01T05:30:00.5Z", 1_714_541_400.5), ("2024-05-01T07:30:00+02:00", 1_714_541_400.0),
        ("1970-01-01T00:00:00Z", 0), ("2000-02-29T00:00:00Z", 951_782_400),
    ])
    func parsesTimestamps(text: String, seconds: Double) {
        #expect(ISO8601Timestamp.parse(text) == seconds)
    }

    @Test(arguments: ["2024-05-01", "2024-05-01T05:30:00", "2024-13-01T00:00:00Z", "2024-05-01T05:30:00.Z", "x"])
    func rejectsBadTimestamps(text: String) {
        #expect(ISO8601Timestamp.parse(text) == nil)
    }
    }
}
