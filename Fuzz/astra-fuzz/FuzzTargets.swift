/// Every fuzz target, in the order `make fuzz` runs them.
enum FuzzTargets {
    static let all: [FuzzTarget] = [
        SIPMessageTarget.target,
        SIPHeaderValueTarget.target,
        RedactionTarget.target,
        WebSocketTarget.target,
        WebSocketUpgradeTarget.target,
        STUNTarget.target,
        ICETarget.target,
        TURNTarget.target,
        SDPTarget.target,
        RTPTarget.target,
        RTCPTarget.target,
        SRTPTarget.target,
        DTLSTarget.target,
        HTTPRequestTarget.target,
        JWTTarget.target,
        LineJSONTarget.target,
        QRPayloadTarget.target,
        SealedCodeTarget.target,
        QRImageTarget.target,
        QREncodeTarget.target,
        ScenarioTarget.target,
        DeviceHelloTarget.target,
        PlatformResponseTarget.target,
        WAVTarget.target,
        DNSTarget.target,
        TraceFileTarget.target,
        TortureAnswerTarget.target,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}
