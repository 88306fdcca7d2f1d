/// Polls `condition` until it holds or `timeout` passes on the wall clock; returns whether it
/// held.
///
/// For real IO and real processes only (a datagram on a socket, a line from a child process, a
/// TCP peer's hello): it waits for a positive condition and returns as soon as it holds, so the
/// timeout is a bound, not a delay. Protocol timers are never checked this way: they run on a
/// ``TestClock`` (D4). Negative assertions ("nothing was sent") need a positive event that
/// orders after the thing that did not happen, not a settle delay.
public func eventually(
    timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while clock.now < end {
        if try await condition() { return true }
        do { try await clock.sleep(for: interval) } catch { break }
    }
    return try await condition()
}

/// Polls `value` until it returns non-nil or `timeout` passes on the wall clock (same rules as
/// ``eventually(timeout:every:_:)``); returns the first non-nil value, or nil.
public func eventuallySome<T>(
    timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(5),
    _ value: () async throws -> T?
) async rethrows -> T? {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while clock.now < end {
        if let found = try await value() { return found }
        do { try await clock.sleep(for: interval) } catch { break }
    }
    return try await value()
}
