import RouteCore

/// `luna graph`: the route tree as Graphviz DOT. Kinds are shapes (switcher: diamond,
/// junction: tab, stack: folder, endpoint: rounded box with its pattern), children edges
/// are solid, modal edges dashed.
package enum Graph {
    package static func dot(_ tree: RouteTree, title: String = "luna") -> String {
        var lines = [
            "digraph \(JSONWriter.quoted(title)) {",
            "  rankdir=LR;",
            "  node [fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        for node in tree.nodes {
            let shape: String
            var extra = ""
            switch node.kind {
            case .switcher: shape = "diamond"
            case .junction: shape = "tab"
            case .stack: shape = "folder"
            case .endpoint:
                shape = "box"
                extra = ", style=rounded"
            }
            var label = node.kind.rawValue + "\\n" + escape(node.id)
            if node.title != node.id { label += "\\n“" + escape(node.title) + "”" }
            if let route = node.route, let name = tree[route].name { label += "\\nname: " + escape(name) }
            lines.append("  \(JSONWriter.quoted(node.id)) [shape=\(shape)\(extra), label=\"\(label)\"];")
        }
        for node in tree.nodes {
            for child in node.children {
                let style = tree.nodes[child].relation == .child ? " [label=\"push\"]" : ""
                lines.append("  \(JSONWriter.quoted(node.id)) -> \(JSONWriter.quoted(tree.nodes[child].id))\(style);")
            }
            for modal in node.modals {
                lines.append(
                    "  \(JSONWriter.quoted(node.id)) -> \(JSONWriter.quoted(tree.nodes[modal].id)) [style=dashed, label=\"modal\"];"
                )
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.append(character)
            }
        }
        return result
    }
}
