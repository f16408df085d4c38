import Foundation
import RouteCore
import Testing

@testable import RouteScript

/// docs/dsl.md's reference, `types/luna.lua` and the loader's own list (``DSLSchema``) name the
/// same builders, fields, hooks and context fields; the context's fields are those a hook
/// really receives.
@Suite struct ReferenceTests {
    /// The names in each table under `### Heading` of the guide's "## Reference": each row's
    /// first backquoted text, up to a parenthesis or space (`create(ctx)` → `create`).
    static func reference() throws -> [String: Set<String>] {
        let text = try ScriptFile.read(repositoryRoot + "/docs/dsl.md")
        guard let start = text.range(of: "\n## Reference\n") else { return [:] }
        var tables: [String: Set<String>] = [:]
        var heading = ""
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("### ") {
                heading = String(line.dropFirst(4))
                continue
            }
            guard line.hasPrefix("| `"), let close = line.dropFirst(3).firstIndex(of: "`") else { continue }
            let cell = line[line.index(line.startIndex, offsetBy: 3)..<close]
            let name = cell.prefix { $0 != "(" && $0 != " " }
            tables[heading, default: []].insert(String(name))
        }
        return tables
    }

    /// The fields of `---@class NAME` in `types/luna.lua` (`create?` → `create`).
    static func definedFields(_ className: String) throws -> Set<String> {
        let text = try ScriptFile.read(repositoryRoot + "/types/luna.lua")
        var fields: Set<String> = []
        var inside = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("---@class ") {
                inside = line.dropFirst("---@class ".count).split(separator: " ").first.map(String.init) == className
                continue
            }
            guard inside else { continue }
            guard line.hasPrefix("---@field ") else {
                inside = false
                continue
            }
            let name = line.dropFirst("---@field ".count).prefix { $0 != " " }
            fields.insert(String(name.hasSuffix("?") ? name.dropLast() : name))
        }
        return fields
    }

    @Test func buildersAndFieldsAgreeEverywhere() throws {
        let reference = try Self.reference()
        let builders = Set(DSLSchema.builders.map(\.name))
        #expect(reference["Builders"] == builders)
        let endpoint = Set(DSLSchema.endpointFields.keys).union(["[1]"])
        #expect(reference["Endpoint fields"] == endpoint)
        #expect(try Self.definedFields("luna.EndpointSpec") == endpoint)
        let container = Set(DSLSchema.containerFields.keys)
        #expect(reference["Container fields"] == container)
        #expect(try Self.definedFields("luna.ContainerSpec") == container.union(["[integer]"]))
        #expect(reference["Links"] == (try Self.definedFields("luna.Links")))
        #expect(reference["Links"] == ["schemes", "hosts", "http"])
        // A query key's options: the reference's table, the editor's class and the loader's list.
        #expect(reference["Query keys"] == Set(DSLSchema.queryOptions))
        #expect(try Self.definedFields("luna.QueryKey") == Set(DSLSchema.queryOptions).union(["[integer]"]))
    }

    @Test func hooksViewsAndGlobalsAgreeEverywhere() throws {
        let reference = try Self.reference()
        let hooks = Set(DSLSchema.hooks.keys)
        #expect(reference["Presenter hooks"] == hooks)
        #expect(try Self.definedFields("luna.Presenter") == hooks)
        #expect(reference["The context (`ctx`)"] == (try Self.definedFields("luna.Context")))
        #expect(try Self.definedFields("luna.View") == (reference["A view (in hooks)"] ?? []).union(["[string]"]))
        let types = try ScriptFile.read(repositoryRoot + "/types/luna.lua")
        #expect(reference["Globals"] == ["device", "flags", "luna.path", "pending", "require"])
        for global in ["device = {}", "flags = {}", "function luna.path(", "function pending("] {
            #expect(types.contains(global), "\(global)")
        }
    }

    /// The context's fields as a hook sees them (a redirected request with a name, a query and
    /// a fragment, so that none is nil), against the reference.
    @Test func theContextIsWhatAHookReceives() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack {
                  endpoint { "old", redirect = function(ctx) return "a/1?x=1#f" end },
                  endpoint { "a/:id", name = "a", presenter = function(ctx)
                    local keys = {}
                    for key in pairs(ctx) do keys[#keys + 1] = key end
                    table.sort(keys)
                    return { keys = table.concat(keys, ",") }
                  end },
                }
                """, name: "ctx.lua")
        _ = try host.dispatch("old")
        let keys = host.tree?.children.first?.attributes["keys"]
        guard case .string(let text)? = keys else {
            Issue.record("no keys attribute: \(String(describing: keys))")
            return
        }
        // `result` is there only for a screen a value was handed back to.
        #expect(
            Set(text.split(separator: ",").map(String.init))
                == (try Self.reference())["The context (`ctx`)"]?.subtracting(["result"]))
    }
}
