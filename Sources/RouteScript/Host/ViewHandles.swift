import LuaHost
import RouteCore

/// `view` handles: userdata onto headless presentables. `kind`, `id` and `route` are read
/// only; `title` and any other attribute (a string, number or boolean) can be read and set;
/// setting nil removes an attribute.
enum ViewHandles {
    /// `decorate` gets every write after the headless model took it (the app's presentables).
    static func register(
        in vm: LuaVM, decorate: @escaping (HeadlessPresentable, String, AttributeValue?) throws -> Void
    ) -> LuaClass {
        vm.registerClass(
            LuaClassDefinition(
                name: "luna.view",
                index: { object, key in
                    guard let view = object as? HeadlessPresentable, case .string(let name) = key else { return .nil }
                    switch name {
                    case "kind": return .string(view.kind.rawValue)
                    case "id": return .string(view.id)
                    case "title": return .string(view.title)
                    case "route": return view.route.map(LuaValue.string) ?? .nil
                    default: return view.attributes[name].map(luaValue) ?? .nil
                    }
                },
                newIndex: { object, key, value in
                    guard let view = object as? HeadlessPresentable else { return }
                    guard case .string(let name) = key else {
                        throw LuaArgumentError(message: "view attributes are named by strings, not \(key.typeName)")
                    }
                    switch name {
                    case "kind", "id", "route":
                        throw LuaArgumentError(message: "view.\(name) is read-only")
                    case "title":
                        guard case .string(let title) = value else {
                            throw LuaArgumentError(message: "view.title must be a string (got \(value.typeName))")
                        }
                        view.title = title
                        try decorate(view, name, .string(title))
                    default:
                        if value.isNil {
                            view.attributes[name] = nil
                            try decorate(view, name, nil)
                        } else if let attribute = attribute(value) {
                            view.attributes[name] = attribute
                            try decorate(view, name, attribute)
                        } else {
                            throw LuaArgumentError(
                                message: "view.\(name) must be a string, number or boolean (got \(value.typeName))")
                        }
                    }
                },
                toString: { object in
                    guard let view = object as? HeadlessPresentable else { return "view" }
                    return "view(\(view.kind.rawValue) \(view.id))"
                }))
    }

    static func luaValue(_ attribute: AttributeValue) -> LuaValue {
        switch attribute {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .number(let d): .number(d)
        case .boolean(let b): .boolean(b)
        }
    }

    static func attribute(_ value: LuaValue) -> AttributeValue? {
        switch value {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .number(let d): .number(d)
        case .boolean(let b): .boolean(b)
        default: nil
        }
    }
}
