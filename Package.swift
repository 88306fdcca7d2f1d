// swift-tools-version:6.0
// AstraSIP — a GPL-free SIP/VoIP toolkit in Swift on Linux.
// Layers (dependencies point down only; see docs/architecture.md):
//   Tools → ToolSupport → CallSession / Provisioning / PushKitEmu → SIPDialog / Media → SIPTransport → SIPCore → C libraries
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
    targets: [
        // C libraries from Debian packages (header-only shims wrap macros and variadic functions).
        systemLibrary("COpenSSL", pkgConfig: "openssl", apt: "libssl-dev"),
        systemLibrary("CSRTP", pkgConfig: "libsrtp2", apt: "libsrtp2-dev"),
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        systemLibrary("CQRencode", pkgConfig: "libqrencode", apt: "libqrencode-dev"),
        systemLibrary("CZBar", pkgConfig: "zbar", apt: "libzbar-dev"),
        .systemLibrary(name: "CLinux", path: "Modules/CLinux"),

        // Pure core: SIP message model, parser, serializer, framer, URIs, digest math, IDs.
        module("SIPCore", ["COpenSSL"]),
        module("AstraTestSupport", ["SIPCore"]),
        module("Media", ["SIPCore", "COpenSSL", "CSRTP", "CALSA", "CLinux"]),
        module("PushKitEmu", ["SIPCore"]),
        module("ToolSupport", ["SIPCore"]),

        // One test target per module.
        tests("SystemLibrariesTests", ["COpenSSL", "CSRTP", "CALSA", "CCurl", "CQRencode", "CZBar"]),
        tests("SIPCoreTests", ["SIPCore", "AstraTestSupport"], resources: [.copy("Vectors")]),
        tests("AstraTestSupportTests", ["AstraTestSupport"]),
        tests("MediaTests", ["Media", "AstraTestSupport", "COpenSSL"], resources: [.copy("Vectors")]),
        tests("PushKitEmuTests", ["PushKitEmu", "AstraTestSupport"]),
        tests("ToolSupportTests", ["ToolSupport", "AstraTestSupport"]),
        tests("ToolsTests", ["ToolSupport"], resources: [.copy("Golden")]),

        // Command-line tools: thin mains over ToolSupport (docs/tools.md).
        tool("astra-register", ["ToolSupport"]),
        tool("astra-call", ["ToolSupport"]),
        tool("astra-qr", ["ToolSupport"]),
        tool("astra-pushsim", ["ToolSupport", "PushKitEmu"]),

        // Benchmarks: release builds, one JSON object each (scripts/bench.sh).
        bench("bench-sip", ["SIPCore"]),
        bench("bench-media", ["Media"]),
        bench("bench-webrtc", ["Media"]),
        bench("bench-pushsim", ["PushKitEmu"]),
    ]
)
