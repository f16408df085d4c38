import Foundation
import LunaTestSupport
import Testing

/// The public surface is what docs/public-api.md lists: every public type of the library
/// products is there, and the command's own modules declare nothing public.
@Suite struct PublicAPITests {
    static func swiftFiles(_ module: String) throws -> [String] {
        let folder = repositoryRoot + "/Sources/" + module
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.map {
            try String(contentsOfFile: folder + "/" + $0, encoding: .utf8)
        }
    }

    @Test(arguments: ["RouteCore", "RouteScript", "LuaHost", "LunaLink"])
    func everyPublicTypeIsListed(module: String) throws {
        let listed = try String(contentsOfFile: repositoryRoot + "/docs/public-api.md", encoding: .utf8)
        let declaration = /^(?:@\w+(?:\([^)]*\))? )*public (?:final )?(?:class|struct|enum|protocol|typealias) (\w+)/
            .anchorsMatchLineEndings()
        var names: [String] = []
        for text in try Self.swiftFiles(module) {
            names += text.matches(of: declaration).map { String($0.output.1) }
        }
        #expect(names.count >= (module == "LunaLink" ? 2 : 6), "the declaration pattern found too few types")
        for name in names {
            #expect(listed.contains("| `\(name)` |"), "\(module).\(name) is not in docs/public-api.md")
        }
    }

    @Test(arguments: ["LunaLive", "LunaTest", "LunaInspector", "LunaConsole", "RouteCoreOracle"])
    func theCommandsModulesDeclareNothingPublic(module: String) throws {
        let declaration = /^\s*(?:@[\w()]+ )*public\b/.anchorsMatchLineEndings()
        let count = try Self.swiftFiles(module).reduce(0) { $0 + $1.matches(of: declaration).count }
        #expect(count == 0, "\(module) declares \(count) public things: make them package")
    }
}
