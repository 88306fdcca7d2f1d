import Testing
@testable import CallSession
