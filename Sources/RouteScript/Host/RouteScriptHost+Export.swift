import RouteCore

extension RouteScriptHost {
    /// The presenter name of each node that has one: the name a script gave
    /// (`presenter = "Name"`), or `NODE-ID#presenter` for Lua hooks (the app supplies its own).
    public var presenterNames: [Int: String] {
        guard let script else { return [:] }
        var names: [Int: String] = [:]
        for (index, choice) in script.presenters.enumerated() {
            switch choice {
            case .host(let name)?: names[index] = name
            case .hooks?: names[index] = script.tree.nodes[index].id + "#presenter"
            case .headless?, nil: break
            }
        }
        return names
    }

    /// The compiled tree as `luna export json` writes it (`RouteTree/exportJSON(source:presenters:)`).
    public func exportJSON() throws -> String {
        let (script, _) = try loaded()
        // The file's name only: the export ships inside the app, and a folder of the
        // developer's machine has no business there.
        let source = path.map(ScriptFile.name(of:)) ?? self.source?.name
        return script.tree.exportJSON(source: source, presenters: presenterNames)
    }

    /// The hooks an app must supply to load the exported tree (`RouteTree/requiredHooks(presenters:)`).
    public func requiredHooks() throws -> RequiredHooks {
        let (script, _) = try loaded()
        return script.tree.requiredHooks(presenters: presenterNames)
    }
}
