// swift-tools-version:6.0
// An app's own push/CallKit handler, judged by AstraSIP's PushKitEmu — the way a Swift package
// of yours would do it: depend on the PushKitEmu library product (here by path; from your own
// repository by URL), implement PushClientPolicy, and
//   - run the built-in scenarios from your tests (Tests/ExampleClientTests), and
//   - serve the same type over the client protocol (opening sealed pushes with ExampleSealing's
//     AES-256-GCM), so `astra-pushsim check --client-cmd` and
//     `astra-pushsim live --client-cmd` judge it as a separate process (Sources/*-client).
import PackageDescription

let package = Package(
    name: "ExampleClient",
    platforms: [.macOS(.v15)],
    // `name:` keeps the product reference stable whatever the checkout's folder is called.
    dependencies: [.package(name: "AstraSIP", path: "../..")],
    targets: [
        .target(name: "ExampleClient", dependencies: [.product(name: "PushKitEmu", package: "AstraSIP")]),
        // The app's AES-256-GCM for sealed pushes (OpenSSL's libcrypto; CryptoKit on iOS).
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "ExampleSealing", dependencies: ["CCrypto", .product(name: "PushKitEmu", package: "AstraSIP")]),
        .executableTarget(name: "correct-client", dependencies: ["ExampleClient", "ExampleSealing"]),
        .executableTarget(name: "buggy-client", dependencies: ["ExampleClient", "ExampleSealing"]),
        .testTarget(name: "ExampleClientTests", dependencies: ["ExampleClient"]),
    ]
)
