import RouteCore

/// The Lua test API's `luna.App` actions as `types/luna.lua` declares them for editors,
/// written from the command table (``CommandSpec``), as the prelude's methods are: the block
/// between `-- BEGIN app actions` and `-- END app actions` is this text.
package enum TestAPITypes {
    package static let begin = "-- BEGIN app actions (written from the command table; see docs/architecture.md)"
    package static let end = "-- END app actions"

    /// The declarations, one method per command the test API has.
    package static var block: String {
        var lines = [begin]
        for spec in CommandSpec.all where spec.surfaces.contains(.test) {
            guard let method = spec.lua else { continue }
            let help = spec.luaHelp ?? spec.help
            lines.append("---" + help.prefix(1).uppercased() + help.dropFirst() + ".")
            var names: [String] = []
            for argument in spec.arguments where argument.kind != .option {
                switch argument.kind {
                case .assignment(let value):
                    lines.append("---@param \(argument.key) string")
                    lines.append("---@param \(value) string? nil (or \"\") clears it")
                    names += [argument.key, value]
                default:
                    lines.append("---@param \(argument.key)\(argument.optional ? "?" : "") \(type(argument.kind))")
                    names.append(argument.key)
                }
            }
            let options = spec.arguments.filter { $0.kind == .option }
            if !options.isEmpty {
                lines.append(
                    "---@param options { " + options.map { "\($0.key): boolean" }.joined(separator: ", ") + " }?")
                names.append("options")
            }
            lines.append("---@return luna.App")
            lines.append("function App:\(method)(\(names.joined(separator: ", "))) end")
        }
        lines.append(end)
        return lines.joined(separator: "\n")
    }

    private static func type(_ kind: CommandArgument.Kind) -> String {
        switch kind {
        case .integer: "integer"
        case .seconds: "number"
        case .pairs: "table<string, string>"
        case .choice(let names): names.map { "\"\($0)\"" }.joined(separator: "|")
        default: "string"
        }
    }
}
