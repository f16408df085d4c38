import RouteCoreOracle
import Testing

@testable import RouteCore

/// A tree patched from the one before for a few changed strings (``RouteTree/patching(_:changes:)``)
/// is the tree the whole build makes from the same declarations, part for part; where the
/// whole build fails, the patch declines (and the whole build says why).
@Suite struct TreePatchTests {
    struct World {
        var generator: SeededGenerator
        var next = 0

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        /// A pattern; one with children or modals (their base) does not end in `...`.
        mutating func pattern(relative: Bool, base isBase: Bool) -> String {
            next += 1
            let base = relative && chance(2) ? "./r\(next)" : "e\(next)"
            if chance(12) { return ":k\(next)" }
            let n = next
            return pick([base, base + "/:id\(n)", base + "/:a\(n)/x/:b\(n)"] + (isBase ? [] : [base + "/...rest"]))
        }

        mutating func endpoint(depth: Int, relative: Bool, inStack: Bool = true) -> NodeSpec {
            var children: [NodeSpec] = []
            var modals: [NodeSpec] = []
            if depth < 3, inStack, chance(3) {
                for _ in 0..<int(1...2) { children.append(endpoint(depth: depth + 1, relative: true)) }
            }
            if depth < 3, chance(5) { modals.append(stack(depth: depth + 1, relative: true)) }
            let text = pattern(relative: relative, base: !children.isEmpty || !modals.isEmpty)
            var spec = NodeSpec.endpoint(
                text, id: chance(3) ? "id\(next)" : nil, title: chance(2) ? "T\(next)" : nil,
                name: chance(3) ? "name\(next)" : nil, children: children, modals: modals)
            if chance(8), children.isEmpty, modals.isEmpty { spec.endpoint = EndpointSpec(regex: "^rx\(next)/[0-9]+$") }
            return spec
        }

        mutating func stack(depth: Int, relative: Bool = false) -> NodeSpec {
            .stack(
                (0..<int(1...3)).map { _ in endpoint(depth: depth + 1, relative: relative) },
                id: chance(3) ? "s\(next)" : nil, title: chance(2) ? "Stack \(next)" : nil)
        }

        mutating func root() -> NodeSpec {
            let tabs = (0..<int(2...4)).map { _ in
                chance(4) ? endpoint(depth: 1, relative: false, inStack: false) : stack(depth: 1)
            }
            return chance(2)
                ? .junction(tabs, id: chance(2) ? "main" : nil, title: "Main")
                : .switcher(tabs, title: chance(2) ? "App" : nil)
        }
    }

    /// Every declaration with the ones above it, numbered as the tree numbers nodes.
    static func places(_ root: Declaration) -> [RouteTree.ChangedDeclaration] {
        var places: [RouteTree.ChangedDeclaration] = []
        var above: [Declaration] = []
        func walk(_ declaration: Declaration) {
            places.append(.init(index: places.count, declaration: declaration, ancestors: above))
            above.append(declaration)
            for child in declaration.children { walk(child) }
            for modal in declaration.modals { walk(modal) }
            above.removeLast()
        }
        walk(root)
        return places
    }

    /// Everything a tree holds, as text, node by node and route by route.
    static func parts(_ tree: RouteTree) -> [String] {
        tree.nodes.map { node in
            "\(node.index) \(node.kind) \(node.id) [\(node.title)] \(node.parent ?? -1) \(node.relation) "
                + "\(node.children) \(node.modals) \(node.route?.index ?? -1) \(node.routeText ?? "-") "
                + "\(node.presenter ?? "-") \(node.nodeID == NodeID(node.id))"
        }
            + tree.endpoints.map { endpoint in
                "route \(endpoint.node) \(endpoint.definition.displayText) \(endpoint.name ?? "-") "
                    + "\(endpoint.linkable) \(endpoint.definition.validators.keys.sorted())"
            }
            + tree.nodeIndex.sorted { $0.key < $1.key }.map { "index \($0.key) \($0.value)" }
            + tree.routeNames.sorted { $0.key < $1.key }.map { "name \($0.key) \($0.value.index)" }
            + ["initial \(tree.initial ?? "-")", "tabs \(tree.tabInitials.keys.sorted())"]
    }

    /// Where the app and its tabs start is checked again when a route changes.
    @Test func initialLocationsAreCheckedOrLeftToTheBuild() throws {
        func tree(tabInitial: Bool) -> Declaration {
            var books = NodeSpec.stack([.endpoint("books"), .endpoint("authors")], id: "books-tab")
            if tabInitial { books.initial = "authors" }
            var root = NodeSpec.junction([books, .stack([.endpoint("help")], id: "help-tab")], id: "main")
            root.initial = "books"
            return Declaration(root)
        }
        let root = tree(tabInitial: false)
        let before = try RouteTree(declaration: root, reusing: nil)
        let places = Self.places(root)
        func place(_ pattern: String) throws -> RouteTree.ChangedDeclaration {
            try #require(places.first { $0.declaration.pattern == pattern })
        }
        // Another route renamed: the root's initial still matches.
        let help = try place("help")
        help.declaration.pattern = "support"
        let patched = try #require(RouteTree.patching(before, changes: [help]))
        #expect(Self.parts(patched) == Self.parts(try RouteTree(declaration: root, reusing: before)))
        #expect(patched.initial == "books")
        // The initial's route renamed: no longer matching, the build says so.
        let books = try place("books")
        books.declaration.pattern = "library"
        #expect(RouteTree.patching(before, changes: [books]) == nil)
        #expect(throws: RouteDefinitionError.self) { try RouteTree(declaration: root, reusing: before) }
        // A tab's initial: a route change is left to the build, which resolves it again.
        let tabbed = tree(tabInitial: true)
        let withTab = try RouteTree(declaration: tabbed, reusing: nil)
        let other = try #require(Self.places(tabbed).first { $0.declaration.pattern == "help" })
        other.declaration.pattern = "support"
        #expect(RouteTree.patching(withTab, changes: [other]) == nil)
        // A title there is patched: no route changed.
        other.declaration.pattern = "help"
        other.declaration.title = "Help"
        let titled = try #require(RouteTree.patching(withTab, changes: [other]))
        #expect(Self.parts(titled) == Self.parts(try RouteTree(declaration: tabbed, reusing: withTab)))
        #expect(titled.tabInitials.keys.sorted() == withTab.tabInitials.keys.sorted())
    }

    @Test func aPatchedTreeIsTheWholeBuild() throws {
        var generator = SeededGenerator(seed: 2_026_112_7)
        var patched = 0
        var declined = 0
        var failed = 0
        var skipped = 0
        for round in 0..<1000 {
            var world = World(generator: SeededGenerator(seed: UInt64.random(in: 0...UInt64.max, using: &generator)))
            let root = Declaration(world.root())
            let before: RouteTree
            do { before = try RouteTree(declaration: root, reusing: nil) } catch {
                skipped += 1
                continue
            }
            let places = Self.places(root)
            let place = world.pick(places)
            let declaration = place.declaration
            // One string, as a save changes it: to something new or to what another node has.
            let other = world.pick(places).declaration
            switch world.int(0...4) {
            case 0: declaration.title = world.chance(3) ? other.title ?? "x" : "New \(round)"
            case 1 where declaration.id != nil:
                declaration.id =
                    world.chance(3) ? before.nodes[world.int(0...(before.nodes.count - 1))].id : "new\(round)"
            case 2 where declaration.name != nil:
                declaration.name = world.chance(3) ? other.name ?? "n" : "renamed\(round)"
            case 3 where declaration.pattern != nil:
                declaration.pattern = world.pick([
                    "new\(round)/:id", other.pattern ?? "x", "./rel\(round)", "bad/:a/:a", "", "new\(round)/...",
                ])
            case 4 where declaration.regex != nil:
                declaration.regex = world.pick(["^other\(round)$", "(unclosed", other.regex ?? "^x$"])
            default: declaration.title = "Edited \(round)"
            }
            let whole: RouteTree?
            do { whole = try RouteTree(declaration: root, reusing: before) } catch { whole = nil }
            guard let tree = RouteTree.patching(before, changes: [place]) else {
                if whole == nil { failed += 1 } else { declined += 1 }
                continue
            }
            patched += 1
            let expected = try #require(whole, "round \(round): patched where the whole build fails")
            #expect(Self.parts(tree) == Self.parts(expected), "round \(round)")
            for endpoint in expected.endpoints {
                let text = expected.nodes[endpoint.node].routeText ?? ""
                let request = text.split(separator: "/", omittingEmptySubsequences: false).map { part in
                    part.hasPrefix(":") ? "v" : part.hasPrefix("...") ? "a/b" : String(part)
                }
                .joined(separator: "/")
                let a = try? tree.matcher.match(request).map(\.route)
                let b = try? expected.matcher.match(request).map(\.route)
                #expect(a == b, "round \(round): \(request)")
            }
        }
        // Most changes are patched; the rest are the shapes the patch leaves to the build.
        #expect(patched > 600, "patched \(patched), declined \(declined), failed \(failed), skipped \(skipped)")
        #expect(failed > 40)
    }
}
