// The example handler with one classic field bug (a second CallKit call for the INVITE):
//   astra-pushsim check --client-cmd .build/debug/buggy-client   → exit 1, R5 duplicate_session
import ExampleClient
import ExampleSealing
import PushKitEmu

ClientProtocolServer(name: "swift-example-buggy", sealing: OpenSSLSealOpener()) { AppCallHandler(settings: $0, bug: .secondCallForInvite) }
    .serveAndExit()
