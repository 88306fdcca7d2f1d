import Foundation
import Testing
import ToolSupport

@Suite struct InputReaderTests {
    private func temporaryFile(_ contents: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("astra-input-\(UInt64.random(in: 0...UInt64.max)).txt").path
        try Data(contents).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func readsAFile() throws {
        let path = try temporaryFile(Array(#"{"v":1}"#.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try InputReader.readText(path) == #"{"v":1}"#)
        #expect(try InputReader.read(path) == Array(#"{"v":1}"#.utf8))
    }

    @Test func dashAndNilMeanStandardInput() {
        #expect(InputReader.isStandardInput(nil))
        #expect(InputReader.isStandardInput("-"))
        #expect(!InputReader.isStandardInput("./-"))
    }

    @Test func missingFileIsAUsageError() {
        do {
            _ = try InputReader.read("/nonexistent/line.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableInput)
            #expect(error.exitCode == .usage)
            #expect(error.message == "cannot read '/nonexistent/line.json': No such file or directory")
        }
    }

    @Test func directoryIsAUsageError() {
        do {
            _ = try InputReader.read("/")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.message == "cannot read '/': Is a directory")
        }
    }

    @Test func invalidUTF8IsAUsageError() throws {
        let path = try temporaryFile([0x66, 0xFF, 0xFE])
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try InputReader.readText(path)
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.message == "cannot read '\(path)': not UTF-8 text")
        }
    }
}
