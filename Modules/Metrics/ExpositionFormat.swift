/// The two exposition formats a `/metrics` endpoint speaks, and the choice between them from a
/// request's `Accept` header (RFC 9110 §12.5.1).
public enum ExpositionFormat: Sendable, Equatable, CaseIterable {
    /// Prometheus text format 0.0.4, the default.
    case text
    /// OpenMetrics 1.0 text, when the scraper asks for it (Prometheus does, first).
    case openMetrics

    /// The response's `Content-Type`.
    public var contentType: String {
        switch self {
        case .text: "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// The format to answer a request with `accept` (nil: no header).
    ///
    /// Each media range with `q` > 0 that names a format this side writes competes:
    /// `application/openmetrics-text` without a version or with 1.0.0 (or 0.0.1, the draft
    /// Prometheus still lists; the reply is 1.0.0 either way), `text/plain` without a version or
    /// with 0.0.4, and `text/*` or `*/*` for text. The highest `q` wins; on equal `q` a named
    /// type beats a wildcard, then the first listed wins. When nothing matches — no header, an
    /// unknown type, an OpenMetrics version this side does not write — the answer is text
    /// 0.0.4 rather than a 406: a scraper always reads text 0.0.4, and an empty scrape would
    /// only hide the targets.
    public static func negotiate(accept: String?) -> ExpositionFormat {
        guard let accept else { return .text }
        var best: (format: ExpositionFormat, q: Double, specific: Bool)?
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingSpaces() }
            guard let type = parts.first?.lowercased(), !type.isEmpty else { continue }
            var q = 1.0
            var version: String?
            for parameter in parts.dropFirst() {
                let kv = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
                guard kv.count == 2 else { continue }
                let value = kv[1].count >= 2 && kv[1].hasPrefix("\"") && kv[1].hasSuffix("\"") ? String(kv[1].dropFirst().dropLast()) : kv[1]
                switch kv[0].lowercased() {
                case "q": q = Double(value).map { min(max($0, 0), 1) } ?? 0
                case "version": version = value
                default: break
                }
            }
            let candidate: (ExpositionFormat, Bool)?
            switch type {
            case "application/openmetrics-text" where version == nil || version == "1.0.0" || version == "0.0.1":
                candidate = (.openMetrics, true)
            case "text/plain" where version == nil || version == "0.0.4": candidate = (.text, true)
            case "text/*", "*/*": candidate = (.text, false)
            default: candidate = nil
            }
            guard let (format, specific) = candidate, q > 0 else { continue }
            if let current = best, current.q > q || (current.q == q && (current.specific || !specific)) { continue }
            best = (format, q, specific)
        }
        return best?.format ?? .text
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
