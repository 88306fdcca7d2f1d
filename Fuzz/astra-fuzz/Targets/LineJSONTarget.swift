import AstraJSON
import SIPCore

/// AstraJSON's one parser (``JSONValue/parse(_:limits:)``) and the line model on top of it (docs/line.md):
/// every tool reads a line from a file, stdin or a QR code, the gateway reads its API bodies and
/// device hellos with the same reader. Seeds: the lines of docs/line.md, the test lines and the
/// JSON vector files.
///
/// Invariants: JSON serialize → parse gives the same value; a line re-written as JSON reads back
/// as itself; the redacted JSON and the printed line never show the password or the push token.
enum LineJSONTarget {
    static let target = FuzzTarget(
        name: "line-json",
        summary: "JSON reader round trip and the line model: validation, JSON round trip, redaction (docs/line.md)",
        maxLength: 8192, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        guard let json = try? JSONValue.parse(bytes) else { return }
        let again = try? JSONValue.parse(json.jsonText)
        invariant(again == json, "JSON does not survive serialize → parse")
        _ = json.typeName
        guard let line = try? Line(jsonValue: json) else { return }
        checkLine(line)
    }

    static func checkLine(_ line: Line) {
        let reread = try? Line(json: line.jsonString())
        invariant(reread == line, "a line does not survive JSON write → read")
        _ = (
            line.addressOfRecord.description, line.effectiveServer.description, line.effectiveWSPath,
            line.effectiveAuthUser
        )
        var bare = line
        bare.password = nil
        bare.pushToken = nil
        let baseline = bare.description + bare.jsonString(redacted: true)
        let printed = line.description + line.jsonString(redacted: true) + "\(line)"
        for secret in [line.password, line.pushToken].compactMap({ $0 })
        where secret.count >= 6 && !baseline.contains(secret) {
            invariant(!printed.contains(secret), "a printed or redacted line shows a secret")
        }
    }

    static func seeds() -> [[UInt8]] {
        let lines = [
            #"{"v":1,"display_name":"Alice","user":"1001","password":"s3cret","domain":"example.com","transport":"wss","server":"pbx.example.com:8089","ws_path":"/ws","expires":600}"#,
            #"{"v":1,"display_name":"Alice","user":"1001","auth_user":"a1001","password":"s3cr3t-PW","domain":"example.com","transport":"tls","server":"[2001:db8::1]:5061","outbound_proxy":"proxy.example.com","tls_verify":false,"tls_server_name":"pbx","ca_file":"/etc/ssl/ca.pem"}"#,
            #"{"v":1,"user":"alice","domain":"example.com","transport":"udp","push_provider":"apns","push_token":"00112233445566778899aabbccddeeff","push_topic":"com.example.astra.voip"}"#,
            #"{"v":1,"user":"1001","password_sealed":"$s1$hkdf-sha256$-$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA","domain":"example.com"}"#,
            #"{"v":2,"user":"x","domain":"y"}"#,
            #"[1,-2.5e+10,"\u00e9\ud83d\ude00\\\"",true,false,null,{"a":{}}]"#,
        ]
        return lines.map { Array($0.utf8) } + SeedFiles.all(in: "Tests/SIPTransportTests/Vectors", suffix: ".json")
            + [SeedFiles.read("Tests/MediaTests/Vectors/turn_coturn.json")]
    }
}
