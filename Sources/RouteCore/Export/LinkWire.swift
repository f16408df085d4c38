/// The live-link protocol's values on the wire — a plan's operations, a screen's activation,
/// a presentable's attributes — written and read here, together, so the session (which
/// writes them) and `LunaLink` (which reads them) cannot drift apart. The page reads the same
/// JSON (docs/inspector.md and docs/live-link.md describe it).
extension PlanOperation {
    /// Reads an operation written by ``json``; nil when it is not one.
    package init?(json value: JSONValue) {
        guard let name = value["op"]?.string, let id = value["id"]?.string else { return nil }
        func strings(_ key: String) -> [String] {
            guard case .array(let items)? = value[key] else { return [] }
            return items.compactMap(\.string)
        }
        switch name {
        case "create": self = .create(id: id)
        case "update": self = .update(id: id)
        case "setStack": self = .setStack(id: id, items: strings("items"))
        case "setOptions": self = .setOptions(id: id, options: strings("options"))
        case "select":
            guard let index = value["index"]?.integer, let option = value["option"]?.string else { return nil }
            self = .select(id: id, index: index, option: option)
        case "presentModal":
            guard let modal = value["modal"]?.string else { return nil }
            self = .presentModal(id: id, modal: modal)
        case "dismissModal":
            guard let modal = value["modal"]?.string else { return nil }
            self = .dismissModal(id: id, modal: modal)
        case "unwind": self = .unwind(id: id)
        case "deliver":
            guard let result = value["result"].flatMap(AttributeValue.result(json:)) else { return nil }
            self = .deliver(id: id, result: result)
        default: return nil
        }
    }
}

extension Activation {
    /// `{"route":…,"params":{…},"query":{…},"fragment":…,"request":…,"from":…}` (`route`:
    /// the pattern of the screen's route, for whoever reads it).
    package func json(route: String?) -> String {
        func strings(_ map: [String: String]) -> String { JSONWriter.object(map.mapValues(JSONWriter.quoted)) }
        return JSONWriter.object([
            "route": route.map(JSONWriter.quoted) ?? "null", "params": strings(params), "query": strings(query),
            "fragment": fragment.map(JSONWriter.quoted) ?? "null",
            "request": request.map { JSONWriter.quoted($0.original) } ?? "null",
            "from": from.map(JSONWriter.quoted) ?? "null",
            "result": result.map(PlanOperation.json) ?? "null",
        ])
    }

    /// Reads an activation written by ``json(route:)``; nil for null or none.
    package init?(json value: JSONValue?) throws(RouteError) {
        guard let value, value != .null else { return nil }
        func strings(_ key: String) -> [String: String] {
            guard case .object(let members)? = value[key] else { return [:] }
            var map: [String: String] = [:]
            for (name, text) in members { if let text = text.string { map[name] = text } }
            return map
        }
        let request = try value["request"]?.string.map { text throws(RouteError) in try Request(parsing: text) }
        self.init(
            params: strings("params"), query: strings("query"), fragment: value["fragment"]?.string, request: request,
            from: value["from"]?.string)
        result = value["result"].flatMap(AttributeValue.result(json:))
    }
}

extension AttributeValue {
    /// Reads a result (an object of strings, numbers and booleans); nil for anything else.
    package static func result(json value: JSONValue) -> [String: AttributeValue]? {
        guard case .object(let members) = value else { return nil }
        var result: [String: AttributeValue] = [:]
        for (key, member) in members {
            guard let attribute = AttributeValue(json: member) else { return nil }
            result[key] = attribute
        }
        return result
    }

    /// Reads a value written by ``json``: a string, a boolean, an integer or another number.
    package init?(json value: JSONValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .bool(let flag): self = .boolean(flag)
        case .number(let text):
            if let integer = Int64(text) {
                self = .integer(integer)
            } else if let number = Double(text) {
                self = .number(number)
            } else {
                return nil
            }
        default: return nil
        }
    }
}
