import AstraJSON
import JWT
import SIPCore

/// A Google service-account key file (the JSON the Firebase console downloads): what the gateway
/// signs its OAuth2 assertion with (RS256, `kid` = `private_key_id`), and what the emulator
/// verifies it against (the public half of the same key). Never printed: the private key and its
/// id stay inside ``signer``.
public struct FCMServiceAccount: Sendable {
    /// `project_id`: the FCM project (`/v1/projects/<id>/messages:send`).
    public var projectID: String
    /// `client_email`: the assertion's `iss`.
    public var clientEmail: String
    /// `token_uri`: where the assertion is exchanged (`aud`), `https://oauth2.googleapis.com/token`
    /// in production, the emulator's `/token` in tests.
    public var tokenURI: String
    /// The RS256 private key, identified by `private_key_id`.
    public var key: JWTKey

    /// The OAuth2 scope FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    public init(projectID: String, clientEmail: String, tokenURI: String, key: JWTKey) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.key = key
    }

    /// Reads a service-account file (at most 64 KiB; `type` must be `service_account`).
    public static func load(file path: String) throws(JWTError) -> FCMServiceAccount {
        try parse(try JWTKey.readKeyFile(path), source: path)
    }

    public static func parse(_ bytes: [UInt8], source: String = "service account") throws(JWTError) -> FCMServiceAccount {
        guard let json = try? JSONValue.parse(bytes), case .object = json else {
            throw JWTError(.badKey, "\(source): not a JSON object")
        }
        func field(_ name: String) throws(JWTError) -> String {
            guard case .string(let value)? = json[name], !value.isEmpty else {
                throw JWTError(.badKey, "\(source): missing \(name)")
            }
            return value
        }
        guard try field("type") == "service_account" else { throw JWTError(.badKey, "\(source): type is not service_account") }
        let project = try field("project_id")
        guard FCMTokenText.isName(project) else { throw JWTError(.badKey, "\(source): bad project_id") }
        let key = try JWTKey.privateKey(pem: Array(try field("private_key").utf8)).identified(as: try field("private_key_id"))
        guard key.algorithm == .rs256 else { throw JWTError(.badKey, "\(source): the private key is not RSA (RS256)") }
        let uri = try field("token_uri")
        guard uri.hasPrefix("https://") else { throw JWTError(.badKey, "\(source): token_uri must be https") }
        return FCMServiceAccount(projectID: project, clientEmail: try field("client_email"), tokenURI: uri, key: key)
    }

    /// The service-account JSON for `key` (tests, the dev emulator): the same shape Google issues.
    public static func json(projectID: String, clientEmail: String, tokenURI: String, keyID: String, privateKeyPEM: String)
        -> String
    {
        JSONValue.object([
            "type": .string("service_account"), "project_id": .string(projectID),
            "private_key_id": .string(keyID), "private_key": .string(privateKeyPEM),
            "client_email": .string(clientEmail), "client_id": .string("000000000000000000000"),
            "auth_uri": .string("https://accounts.google.com/o/oauth2/auth"), "token_uri": .string(tokenURI),
        ]).jsonText
    }
}
