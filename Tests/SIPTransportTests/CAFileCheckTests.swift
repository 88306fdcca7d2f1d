import Foundation
import Testing

@testable import SIPTransport

/// `TLSOptions.checkCAFile` loads a file once while it stays the same file (docs/decisions.md
/// D48); a file changed in place is loaded, and judged, again.
@Suite struct CAFileCheckTests {
    @Test func aChangedFileIsCheckedAgain() throws {
        let certificate = try TestCertificate.make()
        defer { certificate.remove() }
        let path = certificate.directory + "/ca.pem"
        let pem = try String(contentsOfFile: certificate.certFile, encoding: .utf8)
        try pem.write(toFile: path, atomically: false, encoding: .utf8)
        try TLSOptions.checkCAFile(path)
        try TLSOptions.checkCAFile(path)  // remembered
        try "not a certificate\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: TransportError.self) { try TLSOptions.checkCAFile(path) }
        try pem.write(toFile: path, atomically: false, encoding: .utf8)
        try TLSOptions.checkCAFile(path)
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: TransportError.self) { try TLSOptions.checkCAFile(path) }
    }
}
