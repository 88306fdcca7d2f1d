// swift-tools-version:6.0
// AstraSIP used as a library: three small programs over its library products, the way a Swift
// package of yours would depend on it (here by path; from your own repository by URL):
//   verify-line      register with digest authentication, report, unregister (SIPDialog)
//   call-and-record  place a call and record the far end's audio to a WAV file (CallSession)
//   sip-message      parse a SIP message, print it byte-exact, edit it (SIPCore)
// One package with three executables rather than three packages: the AstraSIP modules they
// share are then built once (docs/decisions.md D37).
import PackageDescription

let astra = "AstraSIP"
let package = Package(
    name: "LibraryExamples",
    platforms: [.macOS(.v15)],
    // `name:` keeps the product references stable whatever the checkout's folder is called.
    dependencies: [.package(name: astra, path: "../..")],
    targets: [
        .executableTarget(
            name: "verify-line",
            dependencies: [
                .product(name: "SIPCore", package: astra), .product(name: "SIPTransport", package: astra),
                .product(name: "SIPDialog", package: astra),
            ]),
        .executableTarget(
            name: "call-and-record",
            dependencies: [
                .product(name: "SIPCore", package: astra), .product(name: "SIPTransport", package: astra),
                .product(name: "SIPDialog", package: astra), .product(name: "Media", package: astra),
                .product(name: "CallSession", package: astra),
            ]),
        .executableTarget(name: "sip-message", dependencies: [.product(name: "SIPCore", package: astra)]),
    ]
)
