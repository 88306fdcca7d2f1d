import SIPCore

extension RegistrationClient {
    /// A final response to a REGISTER that asked for a binding.
    mutating func registeringReceived(_ response: SIPResponse) -> [Action] {
        switch response.statusCode {
        case 200...299:
            return registered(response)
        case 401, 407:
            return challenged(response)
        case 423:
            return intervalTooBrief(response)
        default:
            return fail(.rejected(status: response.statusCode, reason: response.reasonPhrase))
        }
    }

    /// §10.2.4: the granted expiry is the `expires` parameter of our Contact in the 2xx, else the
    /// Expires header, else what we asked for.
    private mutating func registered(_ response: SIPResponse) -> [Action] {
        // A registrar lists every binding of the AOR; only the values that can be ours are
        // parsed (a value naming another `+sip.instance` cannot be), the first match wins.
        let values = response.headers.commaSeparatedValues(.contact)
        var ours: SIPContact?
        do {
            for value in values where mayBeOurs(value) {
                if let contact = try Self.contact(value), isOurs(contact) {
                    ours = contact
                    break
                }
            }
        } catch {
            return fail(.invalidResponse("Contact: \(error)"))
        }
        let matched = ours != nil
        if ours == nil, values.count == 1 {
            do { ours = try Self.contact(values[0]) } catch { return fail(.invalidResponse("Contact: \(error)")) }
        }
        let headerExpires = (try? response.headers.expires()) ?? nil
        let granted = ours?.expires ?? headerExpires ?? currentExpires
        if granted == 0 {
            // The registrar removed our binding although we asked for one (§10.3 step 7).
            return fail(.rejected(status: response.statusCode, reason: "binding granted with expiry 0"))
        }
        let result = RegistrationResult(
            grantedExpires: granted, bindings: values,
            authAlgorithm: currentAlgorithm,
            isRefresh: wasRegistered, contactMatched: matched)
        markRegistered(expires: granted)
        return [.cancelTimer(.retry), .startTimer(.refresh, settings.refreshDelay(granted: granted)),
                .event(.registered(result))]
    }

    /// One Contact value (a single element of the list), parsed.
    private static func contact(_ value: String) throws(SIPParseError) -> SIPContact? {
        var headers = SIPHeaders()
        headers.add(.contact, value)
        return try headers.contacts().first
    }

    /// Cheap pre-check before parsing: with an instance ID, a value that carries a
    /// `+sip.instance` but not ours is not ours (``isOurs(_:)`` decides the rest).
    private func mayBeOurs(_ value: String) -> Bool {
        guard let instance = settings.instanceID else { return true }
        let bytes = value.utf8
        if bytes.containsASCIICaseInsensitive(instance.utf8) { return true }
        return !bytes.containsASCIICaseInsensitive("+sip.instance".utf8)
    }

    /// §22.2: answer a 401/407 once per fresh challenge.
    private mutating func challenged(_ response: SIPResponse) -> [Action] {
        let kind: DigestChallengeKind = response.statusCode == 407 ? .proxy : .server
        let values = response.headers.values(SIPHeaderName(kind.challengeHeaderName))
        guard hasCredentials else {
            return fail(.cannotAuthenticate(status: response.statusCode, reason: response.reasonPhrase,
                                            detail: "the line has no password"))
        }
        switch answer(challenges: values, kind: kind) {
        case .retry:
            let algorithm = digestAlgorithm
            noteAlgorithm(algorithm)
            var actions: [Action] = [.event(.challenged(status: response.statusCode, algorithm: algorithm ?? "?"))]
            actions += resend()
            return actions
        case .giveUp(let error):
            if error.code == .credentialsRejected {
                return fail(.authenticationFailed(status: response.statusCode, reason: response.reasonPhrase))
            }
            return fail(.cannotAuthenticate(status: response.statusCode, reason: response.reasonPhrase,
                                            detail: error.description))
        }
    }

    /// §10.2.8: retry with the registrar's Min-Expires, once per value.
    private mutating func intervalTooBrief(_ response: SIPResponse) -> [Action] {
        guard let minimum = (try? response.headers.minExpires()) ?? nil, minimum > currentExpires,
              !alreadyTried(minExpires: minimum) else {
            return fail(.rejected(status: response.statusCode, reason: response.reasonPhrase))
        }
        raiseExpires(to: minimum)
        var actions: [Action] = [.event(.intervalTooBrief(minExpires: minimum))]
        actions += resend()
        return actions
    }

    /// Records a failure: one-shot mode ends; keep mode schedules a jittered, doubling retry.
    mutating func fail(_ failure: RegistrationFailure) -> [Action] {
        var actions: [Action] = [.cancelTimer(.refresh), .event(.failed(failure))]
        guard settings.retryOnFailure else {
            enterFailed(failure)
            return actions
        }
        let delay = nextRetryDelay()
        enterWaitingToRetry()
        actions += [.startTimer(.retry, delay), .event(.retryScheduled(after: delay))]
        return actions
    }

    /// Does this Contact from a 2xx name our binding? By `+sip.instance` when we sent one
    /// (RFC 5626 §6), else by comparing its URI with the Contact URI we registered "using
    /// comparison rules in Section 19.1.4" (RFC 3261 §10.2.4): user case-sensitive, host
    /// case-insensitive, an explicit default port not equal to none, `transport` etc. significant.
    private func isOurs(_ contact: SIPContact) -> Bool {
        guard let address = contact.address else { return false }
        if let instance = settings.instanceID, let theirs = contact.instance {
            return theirs.trimmingQuotesAndBrackets == instance
        }
        guard let binding = currentBinding else { return false }
        let sent = builder.lastContactURI(for: binding) ?? builder.contact(binding: binding, expires: 0).uri
        return address.uri.isEquivalent(to: sent)
    }
}

extension String {
    /// `"<urn:uuid:…>"` → `urn:uuid:…` (ASCII delimiters, so compared as bytes).
    fileprivate var trimmingQuotesAndBrackets: String {
        var bytes = Substring(self).utf8[...]
        if bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") {
            bytes = bytes.dropFirst().dropLast()
        }
        if bytes.count >= 2, bytes.first == UInt8(ascii: "<"), bytes.last == UInt8(ascii: ">") {
            bytes = bytes.dropFirst().dropLast()
        }
        return String(Substring(bytes))
    }
}

extension String.UTF8View {
    /// Whether `needle` occurs, comparing ASCII letters case-insensitively.
    fileprivate func containsASCIICaseInsensitive(_ needle: String.UTF8View) -> Bool {
        if let found = withContiguousStorageIfAvailable({ hay in
            needle.withContiguousStorageIfAvailable { Self.contains(hay, $0) }
        }), let found { return found }
        return Self.contains(Array(self)[...], Array(needle)[...])
    }

    private static func contains<H: RandomAccessCollection<UInt8>, P: RandomAccessCollection<UInt8>>(
        _ hay: H, _ pattern: P
    ) -> Bool where H.Index == Int, P.Index == Int {
        guard !pattern.isEmpty else { return true }
        guard hay.count >= pattern.count else { return false }
        @inline(__always) func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
        let first = lower(pattern[0])
        for start in 0...(hay.count - pattern.count) where lower(hay[start]) == first {
            var k = 1
            while k < pattern.count && lower(hay[start + k]) == lower(pattern[k]) { k += 1 }
            if k == pattern.count { return true }
        }
        return false
    }
}
