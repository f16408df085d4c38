import Foundation
import Testing

/// The request rules of docs/dsl.md ("Requests and parameters") through `luna dispatch --json`
/// and `luna path`, on a script that declares its link host and, in a second copy, `http = true`.
@Suite struct RequestRulesCommandTests {
    static func script(http: Bool) -> String {
        """
        return stack {
          links = { schemes = { "myapp" }, hosts = { "app.example" }\(http ? ", http = true" : "") },
          endpoint { "search", name = "search" },
          endpoint { "files/...rest", name = "files" },
          endpoint { "items/:id", name = "item" },
        }
        """
    }

    static func dispatch(_ path: String, _ request: String) throws -> [String: Any] {
        let result = try luna(["dispatch", path, request, "--json"])
        let line = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func theRulesHoldThroughTheCommand() throws {
        let folder = ScriptFolder()
        let path = folder.write("rules.lua", Self.script(http: false))
        let search = try Self.dispatch(path, "search?q=a+b&tag=x&tag=y&flag")
        #expect(search["query"] as? [String: String] == ["q": "a b", "tag": "y", "flag": ""])
        #expect((try Self.dispatch(path, "items/a+b"))["params"] as? [String: String] == ["id": "a+b"])
        #expect((try Self.dispatch(path, "files"))["params"] as? [String: String] == ["rest": ""])
        #expect((try Self.dispatch(path, "https://app.example/search"))["route"] as? String == "search")
        let http = try Self.dispatch(path, "http://app.example/search")
        let error = http["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "invalidRequest")
        #expect((error?["message"] as? String)?.contains("https links only") == true, "\(http)")
        let encoded = try luna(["path", path, "item", "id=a&b+c@d/e"])
        #expect(encoded.stdout == "items/a%26b%2Bc@d%2Fe\n")
    }

    @Test func httpIsTakenWhereTheScriptSaysSoAndTheExportKeepsIt() throws {
        let folder = ScriptFolder()
        let path = folder.write("rules.lua", Self.script(http: true))
        #expect((try Self.dispatch(path, "http://app.example/search"))["route"] as? String == "search")
        let export = try luna(["export", "json", path])
        #expect(export.stdout.contains(#""http": true"#), "\(export.stdout.prefix(400))")
        let broken = folder.write("broken.lua", "return stack { links = { http = 'yes' }, endpoint { 'a' } }")
        let refused = try luna(["check", broken])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("links.http must be a boolean"), "\(refused.stderr)")
    }
}
