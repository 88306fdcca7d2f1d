// swift-tools-version:6.0
// AstraSIP — a GPL-free SIP/VoIP toolkit in Swift on Linux.
// Layers (dependencies point down only; the whole picture is in docs/architecture.md):
//   Tools → RegisterCommand / CallCommand / PushSimCommand / WakeGatewayCommand / QRCommand / TraceCommand →
//   CallLoad / PushKitLive → CallSession / LineRunner / WakeGateway / Torture → SIPDialog / Capture →
//   SIPTransport / Media / Provisioning / JWT / HTTP2 / ToolSupport → SIPCore / PushKitEmu / HTTPLite / TLSMemory →
//   AstraJSON / Metrics → C libraries
import PackageDescription

/// Swift 6 language mode (strict concurrency) is the default for tools-version 6.0; stated for clarity.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Modules/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

func module(_ name: String, _ deps: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: deps, path: "Modules/\(name)",
            exclude: ["README.md"], resources: resources, swiftSettings: strict)
}

func tests(_ name: String, _ deps: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .testTarget(name: name, dependencies: deps, path: "Tests/\(name)", resources: resources, swiftSettings: strict)
}

func tool(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: deps, path: "Tools/\(name)", swiftSettings: strict)
}

func bench(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: deps, path: "Benchmarks/\(name)", swiftSettings: strict)
}

let package = Package(
    name: "AstraSIP",
    platforms: [.macOS(.v15)],
    // Library products for other Swift packages (Examples/ depend on this package by path; README
    // "Use it as a library"). One product per module a client imports; what a sibling module needs
    // and a client does not is `package` access. Not products: the tools' commands (RegisterCommand,
    // CallCommand, PushSimCommand, WakeGatewayCommand, QRCommand, TraceCommand), ToolSupport, LineRunner, CallLoad, Capture, Torture
    // (the tools' plumbing), AstraTestSupport (this package's test kit), TLSMemory, HTTPLite, HTTP2,
    // JWT, WakeGateway, PushKitLive (the gateway and live mode, shipped as tools), the C shims
    // (ADR 0037). AstraJSON is one because PushKitEmu's public API speaks its values.
    products: [
        .library(name: "SIPCore", targets: ["SIPCore"]),
        .library(name: "SIPTransport", targets: ["SIPTransport"]),
        .library(name: "SIPDialog", targets: ["SIPDialog"]),
        .library(name: "Media", targets: ["Media"]),
        .library(name: "CallSession", targets: ["CallSession"]),
        .library(name: "Provisioning", targets: ["Provisioning"]),
        // PushKitEmu: implement PushClientPolicy and run the built-in scenarios from your own
        // tests, or serve it to astra-pushsim over the client protocol (ClientProtocolServer).
        .library(name: "PushKitEmu", targets: ["PushKitEmu"]),
        .library(name: "AstraJSON", targets: ["AstraJSON"]),
        // Metrics: Prometheus text 0.0.4 / OpenMetrics 1.0 exposition of pure metric values.
        .library(name: "Metrics", targets: ["Metrics"]),
    ],
    targets: [
        // C libraries from Debian packages (header-only shims wrap macros and variadic functions).
        // No pkg-config for OpenSSL: its `-L/usr/lib/x86_64-linux-gnu -lssl` would come first on the
        // link line; the module map's `link` directives place -lssl/-lcrypto after the objects,
        // so release builds can link the static archives (scripts/release-flags.sh, decisions D7).
        .systemLibrary(name: "COpenSSL", path: "Modules/COpenSSL", providers: [.apt(["libssl-dev"])]),
        systemLibrary("CSRTP", pkgConfig: "libsrtp2", apt: "libsrtp2-dev"),
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        systemLibrary("CQRencode", pkgConfig: "libqrencode", apt: "libqrencode-dev"),
        systemLibrary("CZBar", pkgConfig: "zbar", apt: "libzbar-dev"),
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        systemLibrary("CNGHTTP2", pkgConfig: "libnghttp2", apt: "libnghttp2-dev"),
        // SQLite: astra-wakegw's durable state (push registrations, limits), WAL, one writer.
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        // libpq: astra-wakegw's state shared by N gateways (`--state postgresql://…`).
        systemLibrary("CPostgreSQL", pkgConfig: "libpq", apt: "libpq-dev"),
        // libre (Baresip's SIP stack): only bench-sip links it, as the parser SIPCore is measured against.
        systemLibrary("CLibre", pkgConfig: "libre", apt: "libre-dev"),
        .systemLibrary(name: "CLinux", path: "Modules/CLinux"),
        .systemLibrary(name: "CResolv", path: "Modules/CResolv"),
        // libFuzzer's driver entry points, declared weak (Fuzz/CFuzzer/shim.h).
        .systemLibrary(name: "CFuzzer", path: "Fuzz/CFuzzer"),

        // Pure core: SIP message model, parser, serializer, framer, URIs, digest math, line, IDs.
        module("AstraJSON", []),
        // Pure: counters, gauges, histograms rendered as Prometheus text 0.0.4 or OpenMetrics 1.0.
        module("Metrics", []),
        module("SIPCore", ["AstraJSON", "COpenSSL", "CLinux"]),
        // OpenSSL over memory BIOs, client or server: the one TLS step SIP over TLS and HTTP/2 share.
        module("TLSMemory", ["COpenSSL"]),
        module("SIPTransport", ["SIPCore", "TLSMemory", "COpenSSL", "CLinux", "CResolv"]),
        module("SIPDialog", ["SIPCore", "SIPTransport"]),
        module("Media", ["SIPCore", "COpenSSL", "CSRTP", "CALSA", "CLinux"]),
        // Pure: no dependency but AstraJSON (no Foundation, no SIP), so it ships as a library.
        module("PushKitEmu", ["AstraJSON"]),
        // JWS/JWT sign and verify (HS256, ES256, RS256) over OpenSSL: the gateway's bearer auth, provider tokens.
        module("JWT", ["AstraJSON", "SIPCore", "COpenSSL"]),
        // Minimal HTTP/1.1 server (pure parser + listener/actor shells) for loopback control APIs.
        module("HTTPLite", ["CLinux"]),
        // HTTP/2 over TLS: a server (OpenSSL + libnghttp2, ALPN h2) and a client (libcurl's multi
        // handle, one multiplexed connection) — the push provider APIs, APNs and FCM.
        module("HTTP2", ["HTTPLite", "TLSMemory", "COpenSSL", "CNGHTTP2", "CCurl"]),
        // The wake gateway beside Kamailio: one HeldCallMachine per call (PushKitEmu's WakeDecision), the
        // token API, the push providers (APNs, FCM) and their emulator.
        module("WakeGateway", ["AstraJSON", "SIPCore", "SIPTransport", "SIPDialog", "PushKitEmu", "HTTPLite", "HTTP2", "JWT", "COpenSSL", "CLinux", "CSQLite", "CPostgreSQL", "Metrics"]),
        module("Provisioning", ["AstraJSON", "SIPCore", "COpenSSL", "CCurl", "CQRencode", "CZBar", "CPNG"]),
        module("CallSession", ["SIPDialog", "Media"]),
        module("ToolSupport", ["AstraJSON", "SIPCore", "CLinux"]),
        // What a tool saw, for people and their tools: ladder, JSON trace file, pcap, HEP.
        module("Capture", ["SIPCore", "SIPTransport", "ToolSupport"]),
        // The line → flow + endpoint + registration wiring that astra-register and astra-call share.
        module("LineRunner", ["ToolSupport", "SIPDialog", "SIPTransport", "AstraJSON", "Metrics"]),
        // Many calls with media over many lines on the one-call engine: astra-call load, answer --load.
        module("CallLoad", ["ToolSupport", "LineRunner", "CallSession", "Capture", "Media", "SIPCore", "SIPDialog", "SIPTransport", "AstraJSON"]),
        // astra-register's command (one line, monitor, load, merge) as a library: the tool's main only calls it.
        module("RegisterCommand", ["ToolSupport", "SIPDialog", "SIPTransport", "LineRunner", "Capture", "HTTPLite", "Metrics", "AstraJSON", "SIPCore", "CLinux"]),
        // astra-call's command (one call, load, answer --load) as a library.
        module("CallCommand", ["ToolSupport", "LineRunner", "CallSession", "CallLoad", "Capture", "Media", "SIPCore", "SIPDialog", "SIPTransport", "AstraJSON"]),
        // astra-pushsim's command: run/check/fuzz in virtual time over PushKitEmu, live mode over PushKitLive.
        module("PushSimCommand", ["PushKitEmu", "PushKitLive", "ToolSupport", "AstraJSON", "SIPCore"]),
        // astra-wakegw's command: flags → WakeGatewayConfiguration, the state store, stats, heap trims, drain.
        module("WakeGatewayCommand", ["WakeGateway", "ToolSupport", "JWT", "PushKitEmu", "SIPCore", "SIPTransport", "AstraJSON", "CLinux"]),
        // astra-qr's command: encode/decode/lines flags → the Provisioning commands.
        module("QRCommand", ["ToolSupport", "Provisioning", "SIPCore"]),
        // astra-trace's command: a --sip-trace-file read back as a ladder, SVG, full messages or pcap.
        module("TraceCommand", ["ToolSupport", "Capture", "SIPCore", "SIPTransport"]),
        module("AstraTestSupport", ["SIPCore", "SIPTransport", "SIPDialog", "ToolSupport"]),
        // RFC 4475/5118 torture messages against a live server: oracle, corpus, judging, run machine.
        module("Torture", ["AstraJSON", "SIPCore", "SIPTransport", "ToolSupport", "Capture"]),
        // Live mode of PushKitEmu: a real SIP phone judged by the emulator's rules.
        module("PushKitLive", ["AstraJSON", "PushKitEmu", "LineRunner", "CallSession", "SIPDialog", "SIPTransport", "Media", "ToolSupport", "JWT", "HTTPLite"]),

        // One test target per module; KamailioTests starts a real Kamailio on 127.0.0.1.
        tests("SystemLibrariesTests", ["COpenSSL", "CSRTP", "CALSA", "CCurl", "CQRencode", "CZBar"]),
        tests("SIPCoreTests", ["SIPCore", "AstraTestSupport"], resources: [.copy("Vectors")]),
        tests(
            "SIPTransportTests", ["SIPTransport", "TLSMemory", "AstraTestSupport", "COpenSSL", "ToolSupport", "HTTPLite", "Media"],
            resources: [.copy("Vectors")]),
        tests("KamailioTests", ["SIPTransport", "AstraTestSupport", "ToolSupport", "CLinux", "Media", "HTTPLite", "HTTP2", "WakeGateway", "PushKitLive", "PushKitEmu", "JWT", "AstraJSON"]),
        tests("SIPDialogTests", ["SIPDialog", "AstraTestSupport"]),
        tests("CallSessionTests", ["CallSession", "AstraTestSupport"]),
        tests("MediaTests", ["Media", "AstraTestSupport", "COpenSSL"], resources: [.copy("Vectors")]),
        tests("PushKitEmuTests", ["PushKitEmu", "AstraTestSupport"]),
        tests("PushKitLiveTests", ["PushKitLive", "PushSimCommand", "AstraTestSupport"]),
        tests("HTTPLiteTests", ["HTTPLite", "AstraTestSupport"]),
        tests("HTTP2Tests", ["HTTP2", "AstraTestSupport"]),
        tests("TLSMemoryTests", ["TLSMemory", "HTTP2", "COpenSSL"]),
        tests("JWTTests", ["JWT", "AstraTestSupport"], resources: [.copy("Vectors")]),
        tests("WakeGatewayTests", ["WakeGateway", "HTTPLite", "SIPTransport", "HTTP2", "JWT", "AstraTestSupport"]),
        tests("ProvisioningTests", ["Provisioning", "AstraTestSupport"], resources: [.copy("Fixtures")]),
        tests("AstraJSONTests", ["AstraJSON"]),
        tests("MetricsTests", ["Metrics", "AstraTestSupport"]),
        tests("ToolSupportTests", ["ToolSupport", "SIPCore", "AstraTestSupport"]),
        tests("CaptureTests", ["Capture", "AstraTestSupport"]),
        tests("TortureTests", ["Torture", "SIPCore", "SIPTransport", "ToolSupport", "AstraTestSupport"]),
        tests("LineRunnerTests", ["LineRunner", "SIPCore", "SIPTransport", "SIPDialog", "Metrics", "AstraTestSupport"]),
        tests("CallLoadTests", ["CallLoad", "CallSession", "SIPDialog", "AstraJSON", "LineRunner"]),
        tests("RegisterCommandTests", ["RegisterCommand", "ToolSupport", "LineRunner", "SIPCore"]),
        tests("CallCommandTests", ["CallCommand", "CallSession", "Media", "ToolSupport"]),
        tests("PushSimCommandTests", ["PushSimCommand", "PushKitEmu", "AstraJSON"]),
        tests("WakeGatewayCommandTests", ["WakeGatewayCommand", "WakeGateway", "SIPTransport", "ToolSupport", "JWT", "AstraJSON"]),
        tests("QRCommandTests", ["QRCommand", "Provisioning", "ToolSupport"]),
        tests("TraceCommandTests", ["TraceCommand", "Capture", "SIPTransport", "ToolSupport"]),
        tests("AstraTestSupportTests", ["AstraTestSupport"]),
        tests("ToolsTests", ["ToolSupport", "SIPCore", "AstraTestSupport"], resources: [.copy("Golden")]),

        // Command-line tools: thin mains over their command modules (docs/tools.md, ADR 0190).
        tool("astra-register", ["RegisterCommand"]),
        tool("astra-call", ["CallCommand"]),
        tool("astra-qr", ["QRCommand"]),
        tool("astra-pushsim", ["PushSimCommand"]),
        tool("astra-wakegw", ["WakeGatewayCommand"]),
        tool("astra-trace", ["TraceCommand"]),
        tool("astra-torture", ["ToolSupport", "Torture"]),

        // Fuzz targets for every parser that takes outside bytes (docs/fuzzing.md, scripts/fuzz.sh):
        // libFuzzer in the fuzz build, a replayer of inputs in any other build.
        .executableTarget(
            name: "astra-fuzz",
            dependencies: [
                "CFuzzer", "COpenSSL", "AstraJSON", "SIPCore", "SIPTransport", "Media", "HTTPLite", "JWT", "WakeGateway", "Provisioning",
                "PushKitEmu", "Capture", "Torture",
            ],
            path: "Fuzz/astra-fuzz", swiftSettings: strict),

        // Benchmarks: release builds, one JSON object each (scripts/bench.sh).
        bench("bench-sip", ["SIPCore", "CLibre", "AstraTestSupport"]),  // against libre's sip_msg_decode (libre-dev), on the tests' corpus
        bench("bench-transport", ["SIPTransport"]),
        bench("bench-media", ["Media"]),
        bench("bench-webrtc", ["Media"]),
        bench("bench-pushsim", ["PushKitEmu"]),
        bench("bench-qr", ["Provisioning"]),
        bench("bench-call", []),  // drives the release astra-call through Kamailio
        bench("bench-wake", ["PushKitLive", "PushKitEmu"]),  // drives astra-wakegw + Kamailio with the live phone
        bench("bench-wakegw-state", ["WakeGateway", "PushKitEmu", "AstraTestSupport"]),  // state writes/s: SQLite, PostgreSQL
        bench("bench-wakegw-soak", ["PushKitLive", "SIPCore", "SIPTransport", "HTTPLite"]),  // ≥ 5 min soak of astra-wakegw
        bench("bench-sealed-push", ["WakeGateway", "JWT", "SIPCore", "SIPTransport", "HTTPLite", "AstraJSON"]),  // sealing cost, push-to-ring sealed vs clear
    ]
)
