import LineRunner
import Testing
import ToolSupport

@testable import RegisterCommand

/// The option parsing that astra-register's command owns (the runs themselves are exercised
/// through the built tool: ToolsTests, KamailioTests.AstraRegister*).
@Suite struct RegisterOptionsTests {
    @Test func expiresPolicyIsMinColonMaxSeconds() throws {
        #expect(try RegisterCommand.parseExpiresPolicy("30:300") == 30...300)
        #expect(try RegisterCommand.parseExpiresPolicy("1:2147483647") == 1...2_147_483_647)
        for bad in ["0:10", "10:5", "10", "a:b", "1:2147483648", "10:20:30", ""] {
            #expect(throws: ToolError(.usage, ""), "\(bad)") { try RegisterCommand.parseExpiresPolicy(bad) }
        }
    }

    @Test func shardIsIndexOverCountAndTakesEveryNthLine() throws {
        let shard = try LoadShard(parsing: "1/4")
        #expect(shard == LoadShard(index: 1, count: 4))
        #expect((0..<9).filter(shard.takes) == [1, 5])
        #expect(shard.description == "1/4")
        for bad in ["4/4", "-1/4", "0/0", "0/10001", "1", "x/2"] {
            #expect(throws: ToolError(.usage, ""), "\(bad)") { try LoadShard(parsing: bad) }
        }
    }
}
