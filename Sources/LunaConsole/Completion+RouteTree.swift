import RouteCore

extension RouteTree {
    /// Route patterns (as written) and route names, for tab completion.
    package var completionWords: [String] {
        var words = Set<String>()
        for endpoint in endpoints {
            if let pattern = endpoint.definition.pattern, !pattern.description.isEmpty {
                words.insert(pattern.description)
            }
            if let name = endpoint.name { words.insert(name + "|{") }
        }
        return Array(words)
    }
}
