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
        #expect(try InputReader.readText(path, limit: .line) == #"{"v":1}"#)
        #expect(try InputReader.read(path, limit: .line) == Array(#"{"v":1}"#.utf8))
    }

    @Test func dashAndNilMeanStandardInput() {
        #expect(InputReader.isStandardInput(nil))
        #expect(InputReader.isStandardInput("-"))
        #expect(!InputReader.isStandardInput("./-"))
    }

    @Test func missingFileIsAUsageError() {
        do {
            _ = try InputReader.read("/nonexistent/line.json", limit: .line)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableInput)
            #expect(error.exitCode == .usage)
            #expect(error.message == "cannot read '/nonexistent/line.json': No such file or directory")
        }
    }

    @Test func directoryIsAUsageError() {
        do {
            _ = try InputReader.read("/", limit: .line)
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
            _ = try InputReader.readText(path, limit: .line)
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .usage)
            #expect(error.message == "cannot read '\(path)': not UTF-8 text")
        }
    }

    /// Every read is bounded while it happens: /dev/zero stops at the limit, at once, naming it.
    @Test func devZeroStopsAtTheLimit() {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: ToolError(.unreadableInput, "")) { try InputReader.read("/dev/zero", limit: .line) }
        do {
            _ = try InputReader.read("/dev/zero", limit: .scenario)
        } catch {
            #expect(error.message == "'/dev/zero' is larger than the 1 MiB limit for a scenario file")
        }
        do {
            _ = try InputReader.firstLine("/dev/zero", limit: .password)
        } catch {
            #expect(error.message == "the first line of '/dev/zero' is longer than the 4 KiB limit for a password file")
        }
        do {
            try InputReader.forEachLine("/dev/zero", maxLine: .loadLine, maxLines: 10) { _, _ in }
        } catch {
            #expect(error.message == "'/dev/zero':1: line longer than the 64 KiB limit for a load file line")
        }
        #expect(clock.now - start < .seconds(2))
    }

    @Test func firstLineStopsAtTheFirstLineEnd() throws {
        let path = try temporaryFile(Array("hunter2\r\nsecond line\n".utf8) + [UInt8](repeating: 0x41, count: 100_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try InputReader.firstLine(path, limit: .password) == "hunter2")
        let empty = try temporaryFile([])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try InputReader.firstLine(empty, limit: .password) == "")
    }

    @Test func linesAreReadOneByOneWithTheirNumbers() throws {
        // Lines across chunk boundaries (64 KiB chunks), a last line without LF, CRLF kept for the caller.
        var text = ""
        for n in 1...5_000 { text += "{\"n\":\(n)}\(n % 2 == 0 ? "\r" : "")\n" }
        text += "last"
        let path = try temporaryFile(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var seen: [(String, Int)] = []
        try InputReader.forEachLine(path, maxLine: .loadLine, maxLines: 10_000) { line, number in
            seen.append((String(decoding: line, as: UTF8.self), number))
        }
        #expect(seen.count == 5_001)
        #expect(seen[0] == ("{\"n\":1}", 1))
        #expect(seen[1] == ("{\"n\":2}\r", 2))
        #expect(seen[4_999] == ("{\"n\":5000}\r", 5_000))
        #expect(seen[5_000] == ("last", 5_001))
        do {
            try InputReader.forEachLine(path, maxLine: .loadLine, maxLines: 100) { _, _ in }
            Issue.record("expected the line count limit")
        } catch {
            #expect(error.message == "'\(path)' has more than 100 lines (the limit)")
        }
    }
}
