import RouteCore
import RouteScript

/// Route coverage over a test run: which endpoints were reached, which containers shown,
/// which modals presented — per script, each with the file:line of its declaration.
package final class Coverage {
    package enum Kind: String, Sendable { case endpoint, container, modal, guardBranch = "guard branch", hook }

    package struct Item: Sendable, Equatable {
        package var kind: Kind
        package var id: String
        /// The declaration, its file relative to the script's folder (as Lua names it).
        package var location: SourceLocation?
        package var hits: Int
    }

    /// Items by script path, then by kind and id.
    private(set) var scripts: [String: [String: Item]] = [:]

    package init() {}

    static func key(_ kind: Kind, _ id: String) -> String { kind.rawValue + "|" + id }

    /// Records every node of the host's tree (hits start at 0; a reload keeps earlier hits).
    func declare(_ host: RouteScriptHost) {
        guard let path = host.path, let tree = host.routeTree else { return }
        var items = scripts[path] ?? [:]
        for node in tree.nodes {
            let kind: Kind =
                node.relation == .modal ? .modal : node.kind == .endpoint ? .endpoint : .container
            let key = Self.key(kind, node.id)
            if items[key] == nil { items[key] = Item(kind: kind, id: node.id, location: node.location, hits: 0) }
            // An endpoint that is also a modal counts as both.
            if kind == .modal, node.kind == .endpoint, items[Self.key(.endpoint, node.id)] == nil {
                items[Self.key(.endpoint, node.id)] = Item(
                    kind: .endpoint, id: node.id, location: node.location, hits: 0)
            }
        }
        // Each guard's two branches.
        for endpoint in tree.endpoints {
            for guardian in endpoint.guards {
                let node = tree.nodes[guardian.node]
                var branches: [String] = []
                if guardian.enabled != nil { branches += ["enabled: allowed", "enabled: refused"] }
                if guardian.redirect != nil { branches += ["redirect: redirected", "redirect: stayed"] }
                for branch in branches {
                    let id = node.id + " " + branch
                    if items[Self.key(.guardBranch, id)] == nil {
                        items[Self.key(.guardBranch, id)] = Item(
                            kind: .guardBranch, id: id, location: node.location, hits: 0)
                    }
                }
            }
        }
        // Each Lua presenter hook.
        for (index, hooks) in host.declaredHooks where index < tree.nodes.count {
            let node = tree.nodes[index]
            for hook in hooks where items[Self.key(.hook, node.id + " " + hook)] == nil {
                items[Self.key(.hook, node.id + " " + hook)] = Item(
                    kind: .hook, id: node.id + " " + hook, location: node.location, hits: 0)
            }
        }
        scripts[path] = items
    }

    func guardRan(_ host: RouteScriptHost, node: Int, kind: String, outcome: String) {
        guard let path = host.path, let tree = host.routeTree, node < tree.nodes.count else { return }
        scripts[path]?[Self.key(.guardBranch, tree.nodes[node].id + " " + kind + ": " + outcome)]?.hits += 1
    }

    func hookRan(_ host: RouteScriptHost, node: Int, hook: String) {
        guard let path = host.path, let tree = host.routeTree, node < tree.nodes.count else { return }
        scripts[path]?[Self.key(.hook, tree.nodes[node].id + " " + hook)]?.hits += 1
    }

    func reached(_ outcome: RouteScriptHost.Outcome, host: RouteScriptHost) {
        guard let path = host.path, let tree = host.routeTree else { return }
        func hit(_ kind: Kind, _ id: String) { scripts[path]?[Self.key(kind, id)]?.hits += 1 }
        hit(.endpoint, tree.nodes[tree[outcome.resolution.route].node].id)
        for operation in outcome.plan.operations {
            switch operation {
            case .create(let id):
                if let index = tree.index(of: id), tree.nodes[index].kind != .endpoint { hit(.container, id) }
            case .presentModal(_, let modal): hit(.modal, modal)
            default: break
            }
        }
    }

    /// What the app shows or keeps after an action (the start at `initial` included): every
    /// container and screen in its presentable tree, and every modal presented. A container
    /// counts once per action that shows it.
    func shown(_ host: RouteScriptHost) {
        guard let path = host.path, let root = host.tree else { return }
        func hit(_ kind: Kind, _ id: String) { scripts[path]?[Self.key(kind, id)]?.hits += 1 }
        func walk(_ presentable: HeadlessPresentable) {
            if presentable.kind != .screen { hit(.container, presentable.id) }
            for child in presentable.children { walk(child) }
            if let modal = presentable.modal {
                hit(.modal, modal.id)
                walk(modal)
            }
        }
        walk(root)
    }

    /// Percentages and the uncovered items, per script.
    package func report(display: (String) -> String) -> [String] {
        var lines: [String] = []
        for path in scripts.keys.sorted() {
            let items = scripts[path]?.values.sorted { ($0.kind.rawValue, $0.id) < ($1.kind.rawValue, $1.id) } ?? []
            lines.append("coverage of \(display(path)):")
            for kind in [Kind.endpoint, .container, .modal, .guardBranch, .hook] {
                let all = items.filter { $0.kind == kind }
                guard !all.isEmpty else { continue }
                let covered = all.filter { $0.hits > 0 }.count
                let percent = (Double(covered) * 1000 / Double(all.count)).rounded() / 10
                let label = kind == .guardBranch ? "guard branches" : kind.rawValue + "s"
                lines.append("  \(label): \(covered)/\(all.count) (\(percent)%)")
                for item in all where item.hits == 0 {
                    lines.append("    not covered: \(item.id)" + (item.location.map { "  (\($0))" } ?? ""))
                }
            }
        }
        return lines
    }

    /// LCOV: one record per file that declares nodes, a `DA` line per declaration line.
    package func lcov(resolve: (_ script: String, _ file: String) -> String) -> String {
        var perFile: [String: [Int: Int]] = [:]
        for (script, items) in scripts {
            for item in items.values {
                guard let location = item.location else { continue }
                let file = resolve(script, location.file)
                perFile[file, default: [:]][location.line, default: 0] += item.hits
            }
        }
        var text = ""
        for file in perFile.keys.sorted() {
            let lines = perFile[file] ?? [:]
            text += "TN:luna\nSF:\(file)\n"
            for line in lines.keys.sorted() { text += "DA:\(line),\(lines[line] ?? 0)\n" }
            text += "LF:\(lines.count)\nLH:\(lines.values.filter { $0 > 0 }.count)\nend_of_record\n"
        }
        return text
    }
}
