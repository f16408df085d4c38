import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import RouteScript
import Testing

/// On a fixed port the token outlives the server (kept owner-only under the cache folder), so
/// a page or a linked app reconnects to a restarted `luna serve`.
@Suite(.serialized) struct TokenFileTests {
    static func session() throws -> LiveSession {
        LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua"))
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func aRestartedServerOnTheSamePortKeepsItsTokenAndThePageGetsBackIn() throws {
        let folder = ScriptFolder()
        var configuration = Inspector.Configuration()
        configuration.tokenFile = folder.path + "/cache/luna/token-127.0.0.1-0"
        let first = Inspector(session: try Self.session(), scriptName: "books.lua", configuration: configuration)
        try first.start()
        let port = first.port
        let token = first.token
        #expect(try Self.mode(configuration.tokenFile ?? "") == 0o600)
        #expect(try String(contentsOfFile: configuration.tokenFile ?? "", encoding: .utf8) == token)
        first.stop()

        configuration.port = port
        let second = Inspector(session: try Self.session(), scriptName: "books.lua", configuration: configuration)
        try second.start()
        defer { second.stop() }
        #expect(second.token == token)
        let page = try PageClient.connect(port: port, token: token)
        defer { page.close() }
        #expect(try page.next(containing: #""type":"snapshot""#).contains("books.lua"))
    }

    @Test func aFileOthersCanReadOrALinkIsNotTrusted() throws {
        let folder = ScriptFolder()
        let path = folder.path + "/token"
        var configuration = Inspector.Configuration()
        configuration.tokenFile = path
        // Readable by others: replaced by a new token, owner-only.
        let known = String(repeating: "a", count: 32)
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(known.utf8), attributes: [.posixPermissions: 0o644])
        let fresh = Inspector(session: try Self.session(), scriptName: "books.lua", configuration: configuration)
        #expect(fresh.token != known)
        #expect(try Self.mode(path) == 0o600)
        // A link in its place: not followed, not written through.
        try FileManager.default.removeItem(atPath: path)
        let target = folder.path + "/elsewhere"
        _ = FileManager.default.createFile(
            atPath: target, contents: Data(known.utf8), attributes: [.posixPermissions: 0o600])
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let linked = Inspector(session: try Self.session(), scriptName: "books.lua", configuration: configuration)
        #expect(linked.token != known)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == known)
        // Not a token at all.
        try FileManager.default.removeItem(atPath: path)
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(String(repeating: "Z", count: 32).utf8), attributes: [.posixPermissions: 0o600]
        )
        #expect(
            Inspector(session: try Self.session(), scriptName: "books.lua", configuration: configuration).token
                != String(repeating: "Z", count: 32))
    }
}
