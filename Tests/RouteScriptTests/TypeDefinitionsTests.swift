import Testing

@testable import RouteScript

/// `types/luna.lua` must describe every builder, field and hook of the DSL.
@Suite struct TypeDefinitionsTests {
    static func definitions() throws -> String { try ScriptFile.read(repositoryRoot + "/types/luna.lua") }

    @Test func everyBuilderIsDefined() throws {
        let text = try Self.definitions()
        for (name, _) in DSLSchema.builders {
            #expect(text.contains("function \(name)(spec) end"), "\(name)")
        }
    }

    @Test func everyFieldIsDefined() throws {
        let text = try Self.definitions()
        for field in DSLSchema.endpointFields.keys.sorted() {
            #expect(text.contains("---@field \(field) "), "endpoint field \(field)")
        }
        for field in DSLSchema.containerFields.keys.sorted() {
            #expect(text.contains("---@field \(field) "), "container field \(field)")
        }
    }

    @Test func everyHookAndContextFieldIsDefined() throws {
        let text = try Self.definitions()
        for hook in DSLSchema.hooks.keys.sorted() {
            #expect(text.contains("---@field \(hook)? fun("), "hook \(hook)")
        }
        for field in ["path", "params", "query", "fragment", "route", "name", "flags", "device"] {
            #expect(text.contains("---@field \(field) "), "ctx.\(field)")
        }
    }
}
