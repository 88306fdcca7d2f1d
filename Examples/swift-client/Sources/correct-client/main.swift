// The example handler served over the client protocol (stdin/stdout):
//   astra-pushsim check --client-cmd .build/debug/correct-client
import ExampleClient
import PushKitEmu

ClientProtocolServer(name: "swift-example") { AppCallHandler(settings: $0) }.serveAndExit()
