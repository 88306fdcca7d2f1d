/// The registrar's expiry clamp (docs/push-wake-rules.md: capped at 300 s, floored at 30 s).
///
/// RFC 3261 §10.3 step 7 lets a registrar shorten an expiry, and answer 423 with Min-Expires when
/// it is too brief; the product instead raises short requests to the floor (the app offers a
/// picker), so the result is always a granted value.
public struct ExpiryPolicy: Sendable, Hashable {
    /// Smallest expiry granted, seconds.
    public var floorSeconds: Int
    /// Largest expiry granted, seconds.
    public var capSeconds: Int

    public init(floorSeconds: Int = 30, capSeconds: Int = 300) {
        self.floorSeconds = floorSeconds
        self.capSeconds = capSeconds
    }

    /// The expiry granted for a REGISTER asking for `requested` seconds (0 = unregister).
    public func grant(_ requested: Int) -> Int {
        if requested == 0 { return 0 }
        return min(capSeconds, max(floorSeconds, requested))
    }
}
