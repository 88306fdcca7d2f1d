import AstraJSON
import Glibc
import HTTP2
import SIPCore

/// `--provider-capture FILE`: every push request the provider emulator accepted, as Apple or
/// Google would have received it, one JSON Lines object each — `{"provider":"apns"|"fcm","path",
/// "headers":{…},"body":"<text>","bytes":N}` (`bytes`: the body's length as sent, before any
/// redaction: what the provider could read from the length alone) — so a test or an operator can show what the providers see
/// (docs/wake-gateway.md "Sealed push"). Only the secrets of the transport are taken out, by the
/// one redactor (``Redaction``): the `authorization` header's provider token, the device token of
/// the APNs path (``TokenText/redact(_:)``) and of the FCM body's `"token"`. The caller, sealed or
/// clear, is left exactly as it was sent: that is what the capture is for.
///
/// The file is created (truncated) mode 0600; lines are appended in the order the emulator
/// accepted the requests. Used from the emulator's actor only.
public final class ProviderCapture: @unchecked Sendable {
    public let path: String
    private var fd: Int32
    public private(set) var lines = 0

    /// Opens `path` for writing (created 0600, truncated).
    public init(path: String) throws(WakeGatewayError) {
        self.path = path
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw WakeGatewayError("--provider-capture \(path): cannot open (\(String(cString: strerror(errno))))")
        }
    }

    deinit { close() }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// The capture line of one accepted request.
    static func line(provider: String, _ request: HTTP2Request) -> String {
        var headers = JSONObject()
        for field in request.headers {
            let value = field.name.lowercased() == "authorization" ? redactedCredential(field.value) : Redaction.redact(field.value)
            headers.append(field.name, .string(value))
        }
        var path = request.path
        let device = "/3/device/"
        if path.hasPrefix(device) { path = device + TokenText.redact(String(path.dropFirst(device.count))) }
        let object: JSONObject = [
            "provider": .string(provider), "path": .string(path), "headers": .object(headers),
            "body": .string(Redaction.redact(String(decoding: request.body, as: UTF8.self))),
            "bytes": .int(Int64(request.body.count)),
        ]
        return object.jsonText + "\n"
    }

    /// An `authorization` value through the redactor; a credential it does not recognise is
    /// replaced whole (a provider token must never reach the file).
    static func redactedCredential(_ value: String) -> String {
        let redacted = Redaction.redact(value)
        return redacted == value ? Redaction.placeholder : redacted
    }

    /// Appends the line of an accepted request (a failed write is dropped: the capture must not
    /// change what the emulator answers).
    func record(provider: String, _ request: HTTP2Request) {
        guard fd >= 0 else { return }
        let bytes = Array(Self.line(provider: provider, request).utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
        lines += 1
    }
}
