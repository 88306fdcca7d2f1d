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
        let contacts: [SIPContact]
        do {
            contacts = try response.headers.contacts()
        } catch {
            return fail(.invalidResponse("Contact: \(error)"))
        }
        let ours = contacts.first(where: isOurs) ?? (contacts.count == 1 ? contacts.first : nil)
        let headerExpires = (try? response.headers.expires()) ?? nil
        let granted = ours?.expires ?? headerExpires ?? currentExpires
        if granted == 0 {
            // The registrar removed our binding although we asked for one (§10.3 step 7).
            return fail(.rejected(status: response.statusCode, reason: "binding granted with expiry 0"))
        }
        let result = RegistrationResult(
            grantedExpires: granted, bindings: response.headers.commaSeparatedValues(.contact),
            authAlgorithm: currentAlgorithm,
            isRefresh: wasRegistered, contactMatched: contacts.contains(where: isOurs))
        markRegistered(expires: granted)
        return [.cancelTimer(.retry), .startTimer(.refresh, settings.refreshDelay(granted: granted)),
                .event(.registered(result))]
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
    /// (RFC 5626 §6), else by user, host and port.
    private func isOurs(_ contact: SIPContact) -> Bool {
        guard let address = contact.address else { return false }
        if let instance = settings.instanceID, let theirs = contact.instance {
            return theirs.trimmingQuotesAndBrackets == instance
        }
        guard let binding = currentBinding else { return false }
        let uri = address.uri
        return uri.user == builderUser && uri.host?.address.lowercased() == binding.host.lowercased()
            && (uri.port ?? defaultPort(binding.transport)) == (binding.port ?? defaultPort(binding.transport))
    }

    private func defaultPort(_ transport: SIPTransportProtocol) -> UInt16 {
        switch transport {
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        default: 5060
        }
    }
}

extension String {
    /// `"<urn:uuid:…>"` → `urn:uuid:…`.
    fileprivate var trimmingQuotesAndBrackets: String {
        var s = Substring(self)
        if s.hasPrefix("\""), s.hasSuffix("\""), s.count >= 2 { s = s.dropFirst().dropLast() }
        if s.hasPrefix("<"), s.hasSuffix(">"), s.count >= 2 { s = s.dropFirst().dropLast() }
        return String(s)
    }
}
