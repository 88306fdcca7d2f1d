import Foundation
import Provisioning

/// Starts Fixtures/platform_contract_server.py on 127.0.0.1 (an ephemeral port) and stops it
/// (by its own PID) when released.
final class ContractServer {
    let process = Process()
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("astra-contract-\(UUID()).port")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Support.fixture("platform_contract_server.py"), portFile.path]
        // Not our pipes: a server holding the test runner's stderr open would keep `swift test` waiting.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { try? FileManager.default.removeItem(at: portFile) }
        // The server writes its port once it listens: wait for that (or for it to die), with a
        // bound generous enough for a Python start on two busy cores (5 s was not).
        let deadline = ContinuousClock.now + .seconds(60)
        var port: Int?
        while true {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), text.hasSuffix("\n") {
                port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
                break
            }
            guard process.isRunning else {
                throw ContractServerError(
                    "platform_contract_server.py exited (status \(process.terminationStatus)) before listening")
            }
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                throw ContractServerError("platform_contract_server.py did not listen within 60 s")
            }
            usleep(25_000)  // poll interval of a bounded wait
        }
        guard let port, port > 0 else {
            kill(process.processIdentifier, SIGKILL)
            throw ContractServerError("platform_contract_server.py wrote no port")
        }
        self.port = port
    }

    /// `GET /__stats` → logins and requests seen by the server.
    func stats() async throws -> [String: Int] {
        let response = try await CurlHTTPTransport().send(HTTPRequest(method: "GET", url: baseURL + "/__stats"))
        return try JSONDecoder().decode([String: Int].self, from: Data(response.body))
    }

    /// SIGKILL to the server's own PID (the runner may start children with SIGTERM blocked);
    /// Foundation reaps it. `waitUntilExit` from a Swift Testing task can spin, so we do not wait.
    deinit {
        kill(process.processIdentifier, SIGKILL)
    }
}

struct ContractServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
