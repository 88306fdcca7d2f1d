// The example handler served over the client protocol (stdin/stdout):
//   astra-pushsim check --client-cmd .build/debug/correct-client
import ExampleClient
import ExampleSealing
import PushKitEmu

ClientProtocolServer(name: "swift-example", sealing: OpenSSLSealOpener()) { AppCallHandler(settings: $0) }.serveAndExit()
