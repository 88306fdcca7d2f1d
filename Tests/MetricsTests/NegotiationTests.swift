import Testing

@testable import Metrics

/// The format chosen from `Accept` (RFC 9110 §12.5.1 q-values): what Prometheus, curl and
/// browsers send, and what falls back to text 0.0.4.
@Suite struct NegotiationTests {
    /// What Prometheus 2.x sends on every scrape.
    static let prometheus =
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

    @Test func prometheusGetsOpenMetrics() {
        #expect(ExpositionFormat.negotiate(accept: Self.prometheus) == .openMetrics)
    }

    @Test func defaultsAreText() {
        #expect(ExpositionFormat.negotiate(accept: nil) == .text)
        #expect(ExpositionFormat.negotiate(accept: "") == .text)
        #expect(ExpositionFormat.negotiate(accept: "*/*") == .text)
        #expect(ExpositionFormat.negotiate(accept: "text/html,application/xhtml+xml,*/*;q=0.8") == .text)
        #expect(ExpositionFormat.negotiate(accept: "application/json") == .text)
        #expect(ExpositionFormat.negotiate(accept: "text/plain;version=0.0.4") == .text)
    }

    @Test func qValuesDecide() {
        #expect(ExpositionFormat.negotiate(accept: "text/plain;q=0.9, application/openmetrics-text") == .openMetrics)
        #expect(ExpositionFormat.negotiate(accept: "text/plain, application/openmetrics-text;q=0.9") == .text)
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text;q=0") == .text)
        #expect(ExpositionFormat.negotiate(accept: "*/*;q=1, application/openmetrics-text;q=0.5") == .text)
        #expect(ExpositionFormat.negotiate(accept: "application/OpenMetrics-Text ; Q=0.5, */*;q=0.1") == .openMetrics)
        // Equal q: the named type beats the wildcard, whichever comes first.
        #expect(ExpositionFormat.negotiate(accept: "*/*, application/openmetrics-text") == .openMetrics)
        #expect(ExpositionFormat.negotiate(accept: #"application/openmetrics-text; version="1.0.0""#) == .openMetrics)
    }

    @Test func unknownVersionsAreNotOffered() {
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text;version=2.0.0") == .text)
        #expect(ExpositionFormat.negotiate(accept: "application/openmetrics-text;version=2.0.0,text/plain;q=0.1") == .text)
        #expect(ExpositionFormat.negotiate(accept: "text/plain;version=1.0.0,application/openmetrics-text;q=0.2") == .openMetrics)
    }

    @Test func contentTypes() {
        #expect(ExpositionFormat.text.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(ExpositionFormat.openMetrics.contentType == "application/openmetrics-text; version=1.0.0; charset=utf-8")
    }
}
