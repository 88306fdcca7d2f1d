import AstraJSON
import Dispatch
import Provisioning
import SIPCore
import Synchronization

/// The platform API client (docs/provisioning.md "Platform API contract") fed a hostile
/// server's answers: the login response (JWT `exp` read without verification, `expires_at`),
/// the user list and each user's SIP credentials, with their status codes, through
/// ``PlatformClient/lines()``. The input is three framed bodies, each after a status byte.
/// Seeds: the contract's example answers.
///
/// Invariants: the session token never appears in an error; a line handed back never shows its
/// password when printed.
enum PlatformResponseTarget {
    static let target = FuzzTarget(
        name: "platform-api",
        summary: "platform API answers (login JWT, user list, SIP credentials) through PlatformClient.lines()",
        maxLength: 8192, dictionary: "json",
        // The client is an actor: the concurrency runtime frees task memory on its own threads
        // after the input returns, so every input looks like a possible leak and LeakSanitizer
        // would scan the heap each time (~8 ms). Leaks are still checked by the other targets.
        flags: ["-detect_leaks=0"],
        seeds: seeds, run: run)

    /// Answers each request with the fuzzed body for its endpoint.
    struct Answers: HTTPTransport {
        let login: HTTPResponse
        let users: HTTPResponse
        let credentials: HTTPResponse

        func send(_ request: Provisioning.HTTPRequest) async throws(PlatformError) -> HTTPResponse {
            if request.url.hasSuffix("/auth/user-login") { return login }
            if request.url.hasSuffix("/sip-credentials") { return credentials }
            return users
        }
    }

    static let statuses = [200, 200, 200, 200, 401, 403, 404, 500, 201, 302]

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        func answer() -> HTTPResponse {
            let status = statuses[Int(input.byte()) % statuses.count]
            return HTTPResponse(status: status, body: input.framed())
        }
        let answers = Answers(login: answer(), users: answer(), credentials: answer())
        let token = (try? JSONValue.parse(answers.login.body))?["token"].flatMap {
            if case .string(let s) = $0 { s } else { nil }
        }
        let result = wait {
            guard
                let client = try? PlatformClient(
                    baseURL: "http://platform.invalid", firebaseToken: "firebase-id-token", transport: answers,
                    now: { 1_700_000_000 })
            else { return [String]() }
            do {
                return try await client.lines().map { entry -> String in
                    switch entry.line {
                    case .success(let line):
                        if let password = line.password, password.count >= 6 {
                            invariant(!line.description.contains(password), "a platform line shows its password")
                        }
                        return line.description
                    case .failure(let error): return error.description
                    }
                }
            } catch {
                return ["\(error)"]
            }
        }
        if let token, token.count >= 12 {
            for text in result { invariant(!text.contains(token), "a platform error shows the session token") }
        }
    }

    /// Runs `body` on the concurrency runtime and blocks this (libFuzzer's) thread until it ends.
    static func wait(_ body: @escaping @Sendable () async -> [String]) -> [String] {
        let box = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await body()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0 }
    }

    static func seeds() -> [[UInt8]] {
        let jwtPayload = "eyJzdWIiOiJ1MSIsImV4cCI6MTcwMDA4NjQwMH0"  // base64url of {"sub":"u1","exp":1700086400}
        let login = #"{"token":"eyJhbGciOiJIUzI1NiJ9.\#(jwtPayload).c2lnbmF0dXJl","user":{"id":"u1"}}"#
        let login2 = #"{"token":"opaque-session-token-123","user":{"id":7},"expires_at":"2023-11-15T22:13:20.000Z"}"#
        let users =
            #"[{"id":"u1","name":"Alice","email":"a@example.com","sip_port":"wss","asterisk_endpoint":"1001","created_at":"2023-11-01T10:00:00Z"},{"id":2,"sip_port":"udp"}]"#
        let users2 = #"{"users":[{"id":"u2","sip_port":"WSS","asterisk_endpoint":"1002"}]}"#
        let credentials =
            #"{"username":"1001","password":"pw-Platform-1","domain":"example.com","host":"pbx.example.com","port":8089,"transport":"wss","ws_path":"/ws"}"#
        let credentials2 = #"{"v":1,"user":"1002","password":"pw-Platform-2","domain":"example.com","transport":"wss"}"#
        func seed(_ parts: [(UInt8, String)]) -> [UInt8] {
            parts.flatMap { [$0.0] + FuzzInput.framed([Array($0.1.utf8)]) }
        }
        return [
            seed([(0, login), (0, users), (0, credentials)]),
            seed([(0, login2), (0, users2), (0, credentials2)]),
            seed([(0, login), (0, users), (6, #"{"error":"boom"}"#)]),
            seed([(4, #"{"error":"bad firebase token"}"#), (0, "[]"), (0, "{}")]),
        ]
    }
}
