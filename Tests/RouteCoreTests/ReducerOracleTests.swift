import Foundation
import RouteCoreOracle
import Testing

@testable import RouteCore

/// The reducer patches the plan along the matched chain when a dispatch keeps the shape of
/// what is on screen; the general planner compares the whole old and new presentations.
/// On seeded random trees (switchers, tab bars, stacks with pushed children and modals) and
/// random walks (parameters, queries, fragments, `keepStack`, reloads that rebase the state),
/// both give the same transition every time.
@Suite struct ReducerOracleTests {
    /// A random tree and the requests that reach its routes (parameters left as `:name`).
    struct World {
        var patterns: [String] = []
        var next = 0
        var generator: SeededGenerator
        /// Containers may declare modals (sheets over any screen).
        var sheets = false

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }

        mutating func endpoint(depth: Int, inStack: Bool = true) -> NodeSpec {
            next += 1
            let id = "n\(next)"
            let name = "e\(next)"
            let pattern = [name, "\(name)/:id", "\(name)/:a/x/:b", "\(name)/list"][int(0...3)]
            patterns.append(pattern)
            var children: [NodeSpec] = []
            var modals: [NodeSpec] = []
            if depth < 3 {
                for _ in 0..<int(0...2) where inStack && chance(2) { children.append(endpoint(depth: depth + 1)) }
                if chance(3) {
                    modals.append(chance(2) ? stack(depth: depth + 1) : endpoint(depth: depth + 1, inStack: false))
                }
            }
            return .endpoint(pattern, id: id, children: children, modals: modals)
        }

        mutating func stack(depth: Int) -> NodeSpec {
            next += 1
            let id = "s\(next)"
            var spec = NodeSpec.stack((0..<int(1...3)).map { _ in endpoint(depth: depth + 1) }, id: id)
            if sheets, chance(4) { spec.modals = [endpoint(depth: 3, inStack: false)] }
            return spec
        }

        mutating func option(depth: Int) -> NodeSpec {
            switch int(0...5) {
            case 0: return endpoint(depth: depth + 1, inStack: false)
            case 1 where depth < 2: return junction(depth: depth + 1)
            default: return stack(depth: depth + 1)
            }
        }

        mutating func junction(depth: Int) -> NodeSpec {
            next += 1
            let id = "j\(next)"
            var spec = NodeSpec.junction((0..<int(2...4)).map { _ in option(depth: depth) }, id: id)
            if sheets, chance(3) { spec.modals = [chance(2) ? stack(depth: 3) : endpoint(depth: 3, inStack: false)] }
            return spec
        }

        mutating func root() -> NodeSpec {
            switch int(0...3) {
            case 0:
                next += 1
                let id = "w\(next)"
                return .switcher((0..<int(2...3)).map { _ in option(depth: 1) }, id: id)
            case 1: return stack(depth: 0)
            default: return junction(depth: 0)
            }
        }

        var last: String?

        /// A request for a random route, or (as often) for the last one again.
        mutating func request() -> String {
            let pattern = chance(2) ? last ?? patterns[0] : patterns[int(0...(patterns.count - 1))]
            last = pattern
            var request = pattern.split(separator: "/").map { part in
                part.hasPrefix(":") ? String(["1", "2", "7"][int(0...2)]) : String(part)
            }
            .joined(separator: "/")
            if chance(4) { request += "?q=\(int(1...2))" }
            if chance(6) { request += "#f\(int(1...2))" }
            return request
        }
    }

    @Test func aPatchedPlanEqualsTheGeneralPlanner() throws {
        var generator = SeededGenerator(seed: 2_026_112_5)
        var compared = 0
        var patched = 0
        var patchedWithUpdates = 0
        var keptWhole = 0
        var general = 0
        for _ in 0..<300 {
            var world = World(generator: SeededGenerator(seed: UInt64.random(in: 0...UInt64.max, using: &generator)))
            let spec = world.root()
            guard var tree = try? RouteTree(root: spec) else { continue }
            var state = RouterState.initial
            // The same dispatches made without the match's placeholder: each screen holds its
            // activation, nothing is kept (what the states must equal).
            var plain = RouterState.initial
            var kept: PresentedIndex?
            for step in 0..<40 {
                if step % 13 == 12 {
                    // A reload: the same script compiled again, the state rebased on it.
                    tree = try RouteTree(root: spec)
                    state.presented = Reducer(tree: tree).rebase(state.presented)
                    plain.presented = Reducer(tree: tree).rebase(plain.presented)
                    kept = nil
                }
                guard let resolution = try? tree.resolve(world.request()) else { continue }
                let options = DispatchOptions(keepStack: world.chance(5))
                let reducer = Reducer(tree: tree)
                // As a router does: the index of the last presentation, when the planner made one.
                let fast = reducer.reduce(state, to: resolution, options: options, patching: true, oldIndex: kept)
                let slow = reducer.reduce(state, to: resolution, options: options, patching: false)
                let reference = reducer.reduce(plain, to: resolution, options: options, placeholders: false)
                #expect(slow.path == .planned)
                #expect(fast.transition == slow.transition, "\(resolution.request.original) from \(state)")
                #expect(
                    fast.transition.to.presented == reference.transition.to.presented
                        && fast.transition.plan == reference.transition.plan,
                    "\(resolution.request.original) from \(state)")
                #expect(reference.transition.to.match == nil)
                plain = reference.transition.to
                compared += 1
                switch fast.path {
                case .kept, .patched:
                    patched += 1
                    if fast.path == .kept { keptWhole += 1 }
                    if !fast.transition.plan.isEmpty { patchedWithUpdates += 1 }
                case .planned: general += 1
                }
                state = fast.transition.to
                kept = fast.transition.presentedIndex.isComplete ? fast.transition.presentedIndex : nil
            }
        }
        #expect(compared > 8_000)
        // Both paths are exercised, and patched plans are not just empty ones.
        #expect(patched > compared / 10, "\(patched) of \(compared) patched")
        #expect(patchedWithUpdates > patched / 2, "\(patchedWithUpdates) of \(patched) patched plans update")
        #expect(general > compared / 3, "\(general) of \(compared) planned whole")
        #expect(keptWhole > patched / 3, "\(keptWhole) of \(patched) kept the presentation")
    }

    /// Pushes, sheets over any screen, Back, close and results on seeded random trees: after
    /// every step the presentables the plans made equal a fresh build of the state, no
    /// presentable is named twice, the restoration string restores the same state, and a
    /// dispatch from there patches as the general planner plans.
    @Test func pushesSheetsAndResultsPlanAndRestoreExactly() throws {
        var generator = SeededGenerator(seed: 2_026_112_8)
        var (steps, pushed, sheeted, delivered, failed) = (0, 0, 0, 0, 0)
        for _ in 0..<250 {
            var world = World(generator: SeededGenerator(seed: UInt64.random(in: 0...UInt64.max, using: &generator)))
            world.sheets = true
            let spec = world.root()
            guard let tree = try? RouteTree(root: spec) else { continue }
            let router = Router(tree: tree, presenter: HeadlessPresenter())
            var journey: [String] = []
            for _ in 0..<30 {
                let request = world.request()
                let before = router.state
                do {
                    switch world.int(0...6) {
                    case 0, 1:
                        // (`keepStack` keeps a tab's stack as it was shown, which a restoration
                        // resolves again: the first test compares it.)
                        journey.append("go \(request)")
                        try router.dispatch(request)
                    case 2, 3:
                        journey.append("push \(request)")
                        try router.push(request)
                    case 4:
                        journey.append("back")
                        try router.back()
                    case 5:
                        journey.append("back step=\(steps)")
                        try router.back(result: ["step": .integer(Int64(steps))])
                    default:
                        journey.append("close")
                        try router.close()
                    }
                } catch {
                    journey[journey.count - 1] += " (failed)"
                    #expect(router.state == before, "a failed step changed the state: \(error)")
                    failed += 1
                    continue
                }
                steps += 1
                guard let presented = router.state.presented else { continue }
                var names = Set<NodeID>()
                presented.forEach { item in
                    #expect(
                        names.insert(item.node).inserted,
                        "\(item.node) twice: \(journey.joined(separator: " ; "))\n\(router.state.restorationString)")
                    if item.isPushed { pushed += 1 }
                    if case .screen(_, let activation?, _) = item, activation.result != nil { delivered += 1 }
                    if case .screen(_, _, let modal?) = item,
                        tree[modal.node].map({ tree.isContainerModal($0.index) }) == true
                    {
                        sheeted += 1
                    }
                }
                let fresh = Router(tree: tree, presenter: HeadlessPresenter())
                try fresh.restore(router.state)
                #expect(fresh.rootPresentable?.rendered() == router.rootPresentable?.rendered())
                let restored = try tree.restoredState(router.state.restorationString)
                #expect(restored.warning == nil, "\(restored.warning ?? "")")
                #expect(
                    restored.state.presented?.restorationSignature == router.state.presented?.restorationSignature
                        && restored.state.request == router.state.request,
                    "\(journey.joined(separator: " ; "))\nsaved    \(router.state.restorationString)\nrestored \(restored.state.restorationString)"
                )
                // A hostile copy of the string (a pushed screen's name or flag moved, an item
                // dropped): it restores to a state without two screens of one name, or is
                // refused with a reason.
                let mutated = Self.mutate(router.state.restorationString, &world)
                if let hostile = try? tree.restoredState(mutated) {
                    var seen = Set<NodeID>()
                    hostile.state.presented?.forEach { item in
                        #expect(seen.insert(item.node).inserted, "\(item.node) twice restoring \(mutated)")
                    }
                    let rebuilt = Router(tree: tree, presenter: HeadlessPresenter())
                    #expect(throws: Never.self, "restoring \(mutated)") { try rebuilt.restore(hostile.state) }
                }
                let next = world.request()
                if let resolution = try? tree.resolve(next) {
                    let reducer = Reducer(tree: tree)
                    let fast = reducer.reduce(router.state, to: resolution, options: .init(), patching: true)
                    let slow = reducer.reduce(router.state, to: resolution, options: .init(), patching: false)
                    #expect(fast.transition == slow.transition, "\(next) from \(router.state)")
                }
            }
        }
        #expect(steps > 2_000, "\(steps) steps")
        #expect(
            pushed > 500 && sheeted > 100 && delivered > 100,
            "\(pushed) pushed, \(sheeted) sheets, \(delivered) results")
        #expect(failed > 100, "refusals are exercised too: \(failed)")
    }

    /// A restoration string changed the way a hostile or stale one would be: an instance
    /// name given to another screen, a screen marked pushed, a pushed mark dropped, a number
    /// out of range, or a stack item removed.
    static func mutate(_ text: String, _ world: inout World) -> String {
        var text = text
        switch world.int(0...4) {
        case 0:
            if let range = text.range(of: #"["s",""#) {
                let number = ["2", "3", "64", "65", "02"][world.int(0...4)]
                if let end = text[range.upperBound...].firstIndex(of: "\"") {
                    text.insert(contentsOf: "#" + number, at: end)
                }
            }
        case 1: text = text.replacingOccurrences(of: #""r":"#, with: #""u":true,"r":"#)
        case 2: text = text.replacingOccurrences(of: #","u":true"#, with: "")
        case 3: text = text.replacingOccurrences(of: "#2", with: "#3")
        default:
            if let range = text.range(of: #",["s","#, options: .backwards),
                let end = text[range.upperBound...].range(of: "]")
            {
                text.removeSubrange(range.lowerBound..<end.upperBound)
            }
        }
        return text
    }

    /// Shapes the patch must not take: each is a dispatch that changes more than an activation.
    @Test func aChangedShapeIsPlannedWhole() throws {
        let spec = NodeSpec.junction(
            [
                .stack([.endpoint("a", id: "a", children: [.endpoint("a/:id", id: "detail")])], id: "tabA"),
                .stack([.endpoint("b", id: "b", modals: [.endpoint("b/sheet", id: "sheet")])], id: "tabB"),
            ], id: "tabs")
        let tree = try RouteTree(root: spec)
        let reducer = Reducer(tree: tree)
        var state = RouterState.initial
        func go(_ request: String, keepStack: Bool = false) throws -> (plan: [String], path: Reducer.Path) {
            let result = reducer.reduce(
                state, to: try tree.resolve(request), options: .init(keepStack: keepStack), patching: true)
            let general = reducer.reduce(
                state, to: try tree.resolve(request), options: .init(keepStack: keepStack), patching: false)
            #expect(result.transition == general.transition)
            state = result.transition.to
            return (result.transition.plan.operations.map(\.text), result.path)
        }
        #expect(try go("a/1").path == .planned)  // first dispatch: everything is created
        #expect(try go("a/2") == (["update detail"], .kept))  // a parameter
        #expect(try go("a/2") == ([], .kept))  // nothing
        #expect(try go("a/2?q=1") == (["update detail"], .kept))  // a query
        #expect(try go("a").path == .planned)  // a pop
        #expect(try go("b/sheet").path == .planned)  // another tab, a modal
        #expect(try go("b/sheet#top") == (["update sheet"], .kept))
        #expect(try go("b").path == .planned)  // the modal dismissed
        #expect(try go("a/3", keepStack: false).path == .planned)  // back to a tab
        #expect(try go("a", keepStack: true).path == .planned)  // the tab's stack kept
        // A tab not shown that still has a modal (a state restored or made by a host): the
        // dispatch dismisses it.
        _ = try go("b/sheet")
        guard case .junction(let node, _, let withSheet)? = state.presented else { throw Unexpected() }
        _ = try go("a/3")
        guard case .junction(_, _, let onA)? = state.presented else { throw Unexpected() }
        state.presented = .junction(node: node, selected: 0, options: [onA[0], withSheet[1]])
        let dismissed = try go("a/3")
        #expect(dismissed.path == .planned)
        #expect(dismissed.plan == ["dismissModal b sheet", "unwind sheet"])
    }

    struct Unexpected: Error {}
}
