extension HeadlessPresentable {
    /// The tree as `--json` prints it: one line of JSON (sorted keys, no escaped slashes).
    ///
    /// ```json
    /// {"attributes":{},"children":[],"id":"stack:books","kind":"stack","title":"Books"}
    /// ```
    public var json: String { json(adding: { _ in nil }) }

    /// The JSON with one more field on the presentables `adding` gives one for (by id: a
    /// field's name and its encoded value) — an exported prototype's controls.
    package func json(adding extra: (String) -> (name: String, value: String)?) -> String {
        var fields: [String: String] = [
            "kind": JSONWriter.quoted(kind.rawValue),
            "id": JSONWriter.quoted(id),
            "title": JSONWriter.quoted(title),
            "attributes": JSONWriter.object(attributes.mapValues(\.json)),
        ]
        switch kind {
        case .screen:
            fields["route"] = JSONWriter.quoted(route ?? id)
            fields["params"] = JSONWriter.stringObject(activation?.params ?? [:])
            fields["query"] = JSONWriter.stringObject(activation?.query ?? [:])
            // Everything the text shows: the fragment too.
            fields["fragment"] = activation?.fragment.map(JSONWriter.quoted) ?? "null"
            if let result = activation?.result { fields["result"] = PlanOperation.json(result) }
            fields["modal"] = modal?.json(adding: extra) ?? "null"
        case .junction:
            fields["selected"] = selected.map(String.init) ?? "null"
            fields["children"] = JSONWriter.array(children.map { $0.json(adding: extra) })
        case .switcher:
            // One model: `selected` indexes `children`, which hold only the active section;
            // `section` is that section's place among the declared ones.
            fields["selected"] = children.isEmpty ? "null" : "0"
            fields["section"] = selected.map(String.init) ?? "null"
            fields["children"] = JSONWriter.array(children.map { $0.json(adding: extra) })
        case .stack:
            fields["children"] = JSONWriter.array(children.map { $0.json(adding: extra) })
        }
        if let (name, value) = extra(id) { fields[name] = value }
        return JSONWriter.object(fields)
    }

    /// The tree drawn with box-drawing characters (or ASCII), one presentable per line.
    ///
    /// ```text
    /// junction junction:today "Main"
    /// ├── stack stack:today "Today"
    /// └── stack stack:books "Books" (selected)
    ///     ├── screen books "Books"
    ///     └── screen books/:id "Book 42" id=42
    /// ```
    public func rendered(ascii: Bool = false) -> String {
        var lines: [String] = [line(isSelected: false)]
        appendChildren(to: &lines, prefix: "", ascii: ascii)
        return lines.joined(separator: "\n")
    }

    private func appendChildren(to lines: inout [String], prefix: String, ascii: Bool) {
        var entries: [(HeadlessPresentable, Bool, String)] = children.enumerated().map { index, child in
            let isSelected = kind == .junction && selected == index
            return (child, isSelected, "")
        }
        if let modal { entries.append((modal, false, "modal ")) }
        for (offset, entry) in entries.enumerated() {
            let isLast = offset == entries.count - 1
            let branch = ascii ? (isLast ? "`-- " : "|-- ") : (isLast ? "└── " : "├── ")
            let continuation = ascii ? (isLast ? "    " : "|   ") : (isLast ? "    " : "│   ")
            lines.append(prefix + branch + entry.2 + entry.0.line(isSelected: entry.1))
            entry.0.appendChildren(to: &lines, prefix: prefix + continuation, ascii: ascii)
        }
    }

    private func line(isSelected: Bool) -> String {
        var text = "\(kind.rawValue) \(id)"
        if title != id { text += " " + JSONWriter.quoted(title) }
        if isSelected { text += " (selected)" }
        if let activation {
            let params = activation.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            if !params.isEmpty { text += " " + params.joined(separator: " ") }
            let query = activation.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            if !query.isEmpty { text += " ?" + query.joined(separator: "&") }
            if let fragment = activation.fragment { text += " #" + fragment }
            if let result = activation.result { text += " result=" + PlanOperation.text(result) }
        }
        if !attributes.isEmpty {
            let list = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            text += " [" + list.joined(separator: " ") + "]"
        }
        return text
    }
}
