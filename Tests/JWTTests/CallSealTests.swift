import AstraJSON
import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import JWT

/// The sealed caller (AES-256-GCM, call ID as associated data, one padded size) and call grants
/// (JWS ES256 by the device key): the published vectors (Vectors/sealed-push.json, made by
/// scripts/interop/sealed_push.py on Python `cryptography`), every tampering refused, and both
/// ways round with that independent implementation when its Python is there.
@Suite struct CallSealTests {
    static func vectors() throws -> JSONValue {
        let url = try #require(Bundle.module.url(forResource: "sealed-push", withExtension: "json", subdirectory: "Vectors"))
        return try JSONValue.parse(Array(try Data(contentsOf: url)))
    }

    struct Missing: Error { let what: String }
    static func text(_ value: JSONValue?, _ what: String) throws -> String {
        guard let text = value?.stringValue else { throw Missing(what: what) }
        return text
    }
    static func bytes(_ value: JSONValue?, _ what: String, hex: Bool = false) throws -> [UInt8] {
        let text = try text(value, what)
        guard let bytes = hex ? SecureBytes.bytes(hex: text) : Base64URL.decode(text) else { throw Missing(what: what) }
        return bytes
    }

    /// Checks a vectors document (ours or Python's): every blob opens to its caller, refuses a
    /// changed call ID, reseals to itself with its nonce; every grant gets its verdict.
    static func checkVectors(_ doc: JSONValue) throws {
        let gateway = try text(doc["gateway"], "gateway")
        for seal in doc["seal"]?.arrayValue ?? [] {
            let key = try bytes(seal["key"], "key", hex: true)
            let callID = try text(seal["call_id"], "call_id")
            let blob = try bytes(seal["blob"], "blob")
            let caller = Array(try text(seal["caller"], "caller").utf8)
            #expect(blob.count == CallSeal.blobBytes)
            #expect(try CallSeal.open(blob, key: key, callID: callID) == caller)
            #expect(throws: CallSealError.unopenable) { try CallSeal.open(blob, key: key, callID: callID + "x") }
            if let nonce = seal["nonce"]?.stringValue.flatMap(SecureBytes.bytes(hex:)) {
                #expect(try CallSeal.seal(caller, key: key, callID: callID, nonce: nonce) == blob)
            }
            if let hash = seal["gateway_hash"]?.stringValue {
                #expect(CallSeal.gatewayHash(key: key, gatewayID: gateway) == hash)
            }
            #expect(SealedCaller(plaintext: caller) != nil)
        }
        let der = try bytes(doc["device_key"], "device_key")
        let endpoint = try text(doc["endpoint"], "endpoint")
        let checker = try CallGrantChecker(
            deviceKey: try JWTKey.publicKey(spkiDER: der), gatewayID: gateway, endpoint: endpoint)
        let now = try #require(doc["now"]?.int64Value)
        let grants = doc["grant"]?.arrayValue ?? []
        #expect(grants.count >= 8)
        for (index, item) in grants.enumerated() {
            let expected = try text(item["verdict"], "verdict")
            let verdict = checker.check(try text(item["grant"], "grant"), now: now)
            let got = verdict.refusal?.rawValue ?? "valid"
            #expect(got == expected, "grant \(index)")
        }
    }

    @Test func publishedVectors() throws {
        let doc = try Self.vectors()
        try Self.checkVectors(doc)
        let verdicts = Set((doc["grant"]?.arrayValue ?? []).compactMap { $0["verdict"]?.stringValue })
        for reason in ["valid", "expired", "too_long", "other_gateway", "other_endpoint", "other_device_key", "bad_signature", "alg_not_es256"] {
            #expect(verdicts.contains(reason), "no vector for \(reason)")
        }
    }

    @Test func everyChangeFailsToOpen() throws {
        let key = KeyMaterial.bytes(32)
        let callID = "a84b4c76e66710@pc33.clinic.example"
        let caller = SealedCaller(uri: "sip:+4930555000001@clinic.example", user: "+4930555000001", name: "Ward 7", endMs: 1)
        let blob = try caller.sealed(key: key, callID: callID)
        #expect(SealedCaller(plaintext: try CallSeal.open(blob, key: key, callID: callID)) == caller)
        // A fresh CSPRNG nonce per seal: the same caller never seals to the same blob.
        #expect(try caller.sealed(key: key, callID: callID) != blob)
        var wrongKey = key
        wrongKey[0] ^= 1
        #expect(throws: CallSealError.unopenable) { try CallSeal.open(blob, key: wrongKey, callID: callID) }
        #expect(throws: CallSealError.unopenable) { try CallSeal.open(blob, key: key, callID: "other@clinic.example") }
        for index in [0, CallSeal.nonceBytes, CallSeal.nonceBytes + 200, CallSeal.blobBytes - 1] {
            var changed = blob
            changed[index] ^= 0x40
            #expect(throws: CallSealError.unopenable) { try CallSeal.open(changed, key: key, callID: callID) }
        }
        #expect(throws: CallSealError.unopenable) { try CallSeal.open(Array(blob.dropLast()), key: key, callID: callID) }
        #expect(throws: CallSealError.badKey) { try CallSeal.open(blob, key: Array(key.prefix(16)), callID: callID) }
    }

    @Test func everyBlobHasOneLength() throws {
        let key = KeyMaterial.bytes(32)
        for length in [0, 1, 40, 200, 2_000] {
            let text = String(repeating: "é", count: length)
            let caller = SealedCaller(uri: "sip:" + text + "@x", user: text, name: text, endMs: 1_780_000_000_000)
            #expect(caller.plaintext.count < CallSeal.paddedBytes)
            let blob = try caller.sealed(key: key, callID: "c\(length)")
            #expect(blob.count == CallSeal.blobBytes)
            #expect(SealedCaller(plaintext: try CallSeal.open(blob, key: key, callID: "c\(length)")) != nil)
        }
    }

    /// Ours: a vectors document minted by this implementation, one grant per verdict.
    static func ourVectors() throws -> JSONValue {
        let now: Int64 = 1_780_000_000
        let gateway = "wakegw.clinic.example"
        let device = try JWTKey.generate(.es256)
        let other = try JWTKey.generate(.es256)
        let day: Int64 = 86_400
        let endpoint = "+4930555000001"
        func mint(_ key: JWTKey = device, _ gw: String = gateway, _ iat: Int64, _ exp: Int64, endpoint: String = endpoint)
            throws -> String
        {
            try CallGrantChecker.mint(deviceKey: key, gatewayID: gw, endpoint: endpoint, issuedAt: iat, expiresAt: exp)
        }
        let good = try mint(device, gateway, now - 100, now + 14 * day)
        var parts = good.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[5] ^= 1
        parts[2] = Base64URL.encode(signature)
        let hs = try JWTSigner(
            key: try JWTKey.hmac(secret: KeyMaterial.bytes(32)), headerExtras: ["kid": .string(try device.spkiThumbprint())]
        ).sign(["aud": .string(gateway), "iat": .int(now), "exp": .int(now + day)])
        let grants: [(String, String)] = [
            ("valid", good), ("expired", try mint(device, gateway, now - 3 * day, now - 61)),
            ("too_long", try mint(device, gateway, now, now + 15 * day + 1)),
            ("other_gateway", try mint(device, "wakegw.elsewhere.example", now, now + day)),
            ("other_endpoint", try mint(device, gateway, now, now + day, endpoint: "+4930555000002")),
            ("other_device_key", try mint(other, gateway, now, now + day)), ("bad_signature", parts.joined(separator: ".")),
            ("alg_not_es256", hs),
        ]
        var seals: [JSONValue] = []
        for i in 0..<3 {
            let key = KeyMaterial.bytes(32)
            let callID = "c\(i)-\(SecureBytes.hex(KeyMaterial.bytes(4)))@clinic.example"
            let caller = SealedCaller(uri: "sip:+493055500000\(i)@clinic.example", user: "+493055500000\(i)", name: "Bett \(i) – Zürich", endMs: now * 1_000)
            let blob = try CallSeal.seal(caller.plaintext, key: key, callID: callID)
            seals.append([
                "key": .string(SecureBytes.hex(key)), "call_id": .string(callID),
                "caller": .string(String(decoding: caller.plaintext, as: UTF8.self)), "blob": .string(Base64URL.encode(blob)),
                "gateway_hash": .string(CallSeal.gatewayHash(key: key, gatewayID: gateway)),
            ])
        }
        return [
            "gateway": .string(gateway), "endpoint": .string(endpoint), "now": .int(now), "device_key": .string(Base64URL.encode(try device.spkiDER())),
            "seal": .array(seals), "grant": .array(grants.map { ["grant": .string($0.1), "verdict": .string($0.0)] }),
        ]
    }

    @Test func ourVectorsPassOurChecks() throws { try Self.checkVectors(try Self.ourVectors()) }

    /// The interop venv's Python (`cryptography`, scripts/install-interop.sh), or nil.
    static let python: String? = {
        let env = ProcessInfo.processInfo.environment
        for candidate in [env["ASTRA_AIORTC_PYTHON"], "/opt/astra-interop/bin/python"].compactMap({ $0 }) {
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()
    static let script = RepositoryRoot.appending("scripts/interop/sealed_push.py").path

    @Test(.enabled(if: python != nil, "no interop venv with cryptography (scripts/install-interop.sh)"))
    func pythonVerifiesOurs() async throws {
        let doc = try Self.ourVectors()
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: Self.python!), [Self.script, "verify", "-"], stdin: Data(doc.jsonText.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let verdict = try JSONValue.parse(Array(result.stdout))
        #expect(verdict["seal_ok"]?.int64Value == 3)
        #expect(verdict["grant_ok"]?.int64Value == 8, "\(verdict["grant_failed"]?.jsonText ?? "")")
    }

    @Test(.enabled(if: python != nil, "no interop venv with cryptography (scripts/install-interop.sh)"))
    func weVerifyPythons() async throws {
        let result = try await ChildProcess.run(URL(fileURLWithPath: Self.python!), [Self.script, "produce"])
        #expect(result.status == 0, "\(result.stderr)")
        try Self.checkVectors(try JSONValue.parse(Array(result.stdout)))
    }

    /// CI must run the interop.
    @Test func pythonIsThereInCI() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(Self.python != nil, "CI=true: no interop venv with cryptography")
    }
}
