import AstraTestSupport
import Foundation
import Provisioning

/// Starts Fixtures/platform_contract_server.py on 127.0.0.1 (an ephemeral port) and stops it
/// (by its own PID) when released.
final class ContractServer {
    /// Through ``ChildProcess`` (the tests' one launcher): its output goes to files, not our
    /// pipes (a server holding the test runner's stderr open would keep `swift test` waiting),
    /// and it is reaped by a polled `waitpid`.
    let process: ChildProcess.Running
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("astra-contract-\(UUID()).port")
        process = try ChildProcess.start(
            command: "python3", [Support.fixture("platform_contract_server.py"), portFile.path])
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
            if let status = process.exitStatus {
                throw ContractServerError(
                    "platform_contract_server.py exited (status \(status)) before listening: \(process.stderrSoFar)")
            }
            guard ContinuousClock.now < deadline else {
                process.signal(SIGKILL)
                throw ContractServerError("platform_contract_server.py did not listen within 60 s")
            }
            usleep(25_000)  // poll interval of a bounded wait
        }
        guard let port, port > 0 else {
            process.signal(SIGKILL)
            throw ContractServerError("platform_contract_server.py wrote no port")
        }
        self.port = port
    }

    /// `GET /__stats` → logins and requests seen by the server.
    func stats() async throws -> [String: Int] {
        let response = try await CurlHTTPTransport().send(HTTPRequest(method: "GET", url: baseURL + "/__stats"))
        return try JSONDecoder().decode([String: Int].self, from: Data(response.body))
    }

    /// SIGKILL to the server's own PID; ChildProcess's poll reaps it (we do not wait here: a
    /// deinit cannot).
    deinit {
        process.signal(SIGKILL)
    }
}

struct ContractServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
