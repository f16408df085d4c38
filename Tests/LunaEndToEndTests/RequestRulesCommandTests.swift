import Foundation
import LunaTestSupport
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

    /// Query schemas, `:id?` and `:path+` through `luna dispatch --json`, `luna path` and
    /// `luna routes` on examples/catalog.lua.
    @Test func typedRoutesHoldThroughTheCommand() throws {
        let path = example("catalog.lua")
        let filled = try Self.dispatch(path, "products?page=abc&tags=a&tags=b")
        #expect(filled["query"] as? [String: String] == ["page": "1", "sort": "new", "tags": "b"])
        #expect(filled["request"] as? String == "products?page=abc&tags=a&tags=b")
        let next = try Self.dispatch(path, "orders?status=lost")
        #expect(next["route"] as? String == "orders" && next["name"] is NSNull, "\(next)")
        #expect((try Self.dispatch(path, "orders?status=open"))["name"] as? String == "orders")
        #expect((try Self.dispatch(path, "product/42/reviews"))["params"] as? [String: String] == ["id": "42"])
        let docs = try Self.dispatch(path, "docs")
        let error = docs["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "noMatch")
        #expect(
            (error?["message"] as? String)?.contains(
                "docs/:path+ (segment 2: the request ends where ':path+' was expected)")
                == true, "\(docs)")
        #expect(
            try luna(["path", path, "products", "page=2", "tags=a", "tags=b c"]).stdout
                == "products?page=2&tags=a&tags=b%20c\n")
        let bad = try luna(["path", path, "products", "page=two"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("query 'page' = 'two' is not an int"), "\(bad.stderr)")
        #expect(try luna(["path", path, "reviews", "id=42"]).stdout == "product/42/reviews\n")
        let routes = try luna(["routes", path, "--json"])
        #expect(routes.stdout.contains(#""optional":"page""#), "\(routes.stdout.prefix(600))")
        #expect(routes.stdout.contains(#"{"name":"sort","type":"enum","values":["new","price"],"default":"new""#))
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
