import Media

/// The keys of an interactive call (pjsua/baresip habits): digits, `*`, `#` and `A`–`D` send
/// RFC 4733 DTMF, `h` hangs up, `H` holds or resumes, `s` prints live statistics, `q` (or
/// Ctrl-D) quits, `?` shows the keys. Pure: a byte in, a command out.
enum CallKey: Equatable, Sendable {
    case dtmf(DTMFDigit)
    case hangUp
    case holdToggle
    case statistics
    case quit
    case help

    init?(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "h"): self = .hangUp
        case UInt8(ascii: "H"): self = .holdToggle
        case UInt8(ascii: "s"): self = .statistics
        case UInt8(ascii: "q"), 0x04: self = .quit
        case UInt8(ascii: "?"): self = .help
        default:
            // Upper-case A-D only: a stray lower-case letter is not a key press meant for the far end.
            guard Array("0123456789*#ABCD".utf8).contains(byte), let digit = DTMFDigit(Character(UnicodeScalar(byte)))
            else { return nil }
            self = .dtmf(digit)
        }
    }

    /// The key list `?` shows.
    static let keyList = "keys: 0-9 * # A-D send DTMF · h hang up · H hold/resume · s statistics · q quit · ? these keys"
}
