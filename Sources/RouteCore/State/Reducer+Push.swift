/// Pushed screens (docs/dsl.md, "Push"): the same screen twice on a stack, as UIKit's
/// `pushViewController`, go_router's `push` and React Navigation's `navigation.push` do.
///
/// A push puts one more screen on the top stack shown, above its declared chain, activated with
/// the pushed request. The first instance of a node in its own stack is named by the node's id;
/// any other is `ID#N`, the smallest N from 2 not used anywhere in the presentation, so every
/// presentable keeps one name. Back pops one pushed screen. A request that extends the top
/// pushed screen (a child of it, with its parameters) keeps the pushed screens below it; any
/// other request into the stack builds the declared chain and drops them.
extension RouteTree {
    /// Whether the endpoint at `endpoint` may be pushed onto the stack at `stack`: the stack's
    /// `pushes` list names it, or (without a list) it is one of the stack's own screens — its
    /// root or a child of one, not inside a modal or a nested container.
    public func pushes(_ endpoint: Int, onto stack: Int) -> Bool {
        guard nodes.indices.contains(endpoint), nodes.indices.contains(stack), nodes[endpoint].kind == .endpoint,
            nodes[stack].kind == .stack
        else { return false }
        if let list = pushLists[stack] { return list.contains(endpoint) }
        return ownStack(of: endpoint) == stack
    }

    /// Whether the node is a container's modal (a sheet over whatever the container shows).
    public func isContainerModal(_ node: Int) -> Bool {
        guard nodes.indices.contains(node), nodes[node].relation == .modal, let parent = nodes[node].parent else {
            return false
        }
        return nodes[parent].kind != .endpoint
    }

    /// The stack whose declared screens include `endpoint` (nil: none, as for a tab that is a
    /// bare screen or a modal's own screen).
    func ownStack(of endpoint: Int) -> Int? {
        var current = endpoint
        while nodes[current].relation == .child, let parent = nodes[current].parent { current = parent }
        guard nodes[current].relation == .member, let parent = nodes[current].parent, nodes[parent].kind == .stack
        else { return nil }
        return parent
    }

    /// The screens a stack takes pushes of, by id (its `pushes` list, or its own screens).
    public func pushTargets(of stack: Int) -> [String] {
        guard nodes.indices.contains(stack), nodes[stack].kind == .stack else { return [] }
        if let list = pushLists[stack] { return list.map { nodes[$0].id } }
        return nodes.indices.filter { nodes[$0].kind == .endpoint && ownStack(of: $0) == stack }.map { nodes[$0].id }
    }
}

extension Presented {
    /// The deepest stack shown (following selections, stack tops and modals) and its items.
    public var topStack: (node: NodeID, items: [Presented])? {
        switch self {
        case .switcher(_, _, let content): return content.topStack
        case .junction(_, let selected, let options): return options[selected].topStack
        case .stack(let node, let items):
            // A modal over the top screen is on top: its stack, or none (a bare sheet).
            if let top = items.last, top.presentsModal || top.kind != .endpoint { return top.topStack }
            return (node, items)
        case .screen(_, _, let modal): return modal?.topStack
        }
    }

    /// Whether it is a screen presenting a modal.
    var presentsModal: Bool {
        if case .screen(_, _, _?) = self { return true }
        return false
    }

    /// This presentation with the items of its ``topStack`` replaced by `transform`'s.
    func replacingTopStackItems(_ transform: ([Presented]) -> [Presented]) -> Presented? {
        switch self {
        case .switcher(let node, let section, let content):
            return content.replacingTopStackItems(transform).map {
                .switcher(node: node, section: section, content: $0)
            }
        case .junction(let node, let selected, let options):
            guard let replaced = options[selected].replacingTopStackItems(transform) else { return nil }
            var copy = options
            copy[selected] = replaced
            return .junction(node: node, selected: selected, options: copy)
        case .stack(let node, let items):
            if let top = items.last, top.presentsModal || top.kind != .endpoint {
                guard let replaced = top.replacingTopStackItems(transform) else { return nil }
                var copy = items
                copy[copy.count - 1] = replaced
                return .stack(node: node, items: copy)
            }
            return .stack(node: node, items: transform(items))
        case .screen(let node, let activation, let modal):
            return modal?.replacingTopStackItems(transform).map {
                .screen(node: node, activation: activation, modal: $0)
            }
        }
    }

    /// This presentation with `modal` presented over its top screen (the deepest screen shown,
    /// following selections, stack tops and modals); nil when it shows no screen.
    func presentingOverTop(_ modal: Presented) -> Presented? {
        switch self {
        case .switcher(let node, let section, let content):
            return content.presentingOverTop(modal).map { .switcher(node: node, section: section, content: $0) }
        case .junction(let node, let selected, let options):
            guard let replaced = options[selected].presentingOverTop(modal) else { return nil }
            var copy = options
            copy[selected] = replaced
            return .junction(node: node, selected: selected, options: copy)
        case .stack(let node, let items):
            guard let top = items.last, let replaced = top.presentingOverTop(modal) else { return nil }
            var copy = items
            copy[copy.count - 1] = replaced
            return .stack(node: node, items: copy)
        case .screen(let node, let activation, let existing):
            if let existing {
                return existing.presentingOverTop(modal).map { .screen(node: node, activation: activation, modal: $0) }
            }
            return .screen(node: node, activation: activation, modal: modal)
        }
    }

    /// This presentation with the modal `id` (wherever it is presented) replaced by `modal`.
    func replacingModal(_ id: NodeID, with modal: Presented) -> Presented? {
        replacingFirst { presented in
            guard case .screen(let node, let activation, let shown?) = presented, shown.node == id else { return nil }
            return .screen(node: node, activation: activation, modal: modal)
        }
    }

    /// This presentation with the first subtree (in pre-order) that `replace` gives a
    /// replacement for replaced by it; nil when it gives none.
    func replacingFirst(_ replace: (Presented) -> Presented?) -> Presented? {
        if let replaced = replace(self) { return replaced }
        switch self {
        case .switcher(let node, let section, let content):
            return content.replacingFirst(replace).map { .switcher(node: node, section: section, content: $0) }
        case .junction(let node, let selected, let options):
            for position in options.indices {
                guard let replaced = options[position].replacingFirst(replace) else { continue }
                var copy = options
                copy[position] = replaced
                return .junction(node: node, selected: selected, options: copy)
            }
            return nil
        case .stack(let node, let items):
            for position in items.indices {
                guard let replaced = items[position].replacingFirst(replace) else { continue }
                var copy = items
                copy[position] = replaced
                return .stack(node: node, items: copy)
            }
            return nil
        case .screen(let node, let activation, let modal):
            return modal?.replacingFirst(replace).map { .screen(node: node, activation: activation, modal: $0) }
        }
    }

    /// This presentation without its top modal (the deepest one shown), and the screen it
    /// covered; nil when no modal is shown.
    func dismissingTopModal() -> (presented: Presented, covered: NodeID)? {
        switch self {
        case .switcher(let node, let section, let content):
            return content.dismissingTopModal().map {
                (.switcher(node: node, section: section, content: $0.presented), $0.covered)
            }
        case .junction(let node, let selected, let options):
            guard let (replaced, covered) = options[selected].dismissingTopModal() else { return nil }
            var copy = options
            copy[selected] = replaced
            return (.junction(node: node, selected: selected, options: copy), covered)
        case .stack(let node, let items):
            guard let top = items.last, let (replaced, covered) = top.dismissingTopModal() else { return nil }
            var copy = items
            copy[copy.count - 1] = replaced
            return (.stack(node: node, items: copy), covered)
        case .screen(let node, let activation, let modal):
            guard let modal else { return nil }
            if let (replaced, covered) = modal.dismissingTopModal() {
                return (.screen(node: node, activation: activation, modal: replaced), covered)
            }
            return (.screen(node: node, activation: activation, modal: nil), node)
        }
    }

    /// This presentation without the pushed screens on the shown path (each stack cut at its
    /// first pushed screen): where replaying ``pushSteps`` starts.
    public func withoutShownPushes() -> Presented {
        switch self {
        case .switcher(let node, let section, let content):
            return .switcher(node: node, section: section, content: content.withoutShownPushes())
        case .junction(let node, let selected, let options):
            var copy = options
            copy[selected] = options[selected].withoutShownPushes()
            return .junction(node: node, selected: selected, options: copy)
        case .stack(let node, let items):
            if let first = items.firstIndex(where: \.isPushed) {
                return .stack(node: node, items: Array(items[..<first]))
            }
            guard let top = items.last else { return self }
            var copy = items
            copy[copy.count - 1] = top.withoutShownPushes()
            return .stack(node: node, items: copy)
        case .screen(let node, let activation, let modal):
            return .screen(node: node, activation: activation, modal: modal?.withoutShownPushes())
        }
    }

    /// This presentation with no name shown twice (a restoration string from elsewhere may say
    /// so): a stack is cut at an item whose name came before, a modal with such a name dropped.
    func uniquelyNamed() -> Presented {
        var seen = Set<NodeID>()
        func walk(_ presented: Presented) -> Presented? {
            guard seen.insert(presented.node).inserted else { return nil }
            switch presented {
            case .switcher(let node, let section, let content):
                guard let kept = walk(content) else { return nil }
                return .switcher(node: node, section: section, content: kept)
            case .junction(let node, let selected, let options):
                var kept: [Presented] = []
                for option in options {
                    guard let walked = walk(option) else { return nil }
                    kept.append(walked)
                }
                return .junction(node: node, selected: selected, options: kept)
            case .stack(let node, let items):
                var kept: [Presented] = []
                for item in items {
                    guard let walked = walk(item) else { break }
                    kept.append(walked)
                }
                return .stack(node: node, items: kept)
            case .screen(let node, let activation, let modal):
                return .screen(node: node, activation: activation, modal: modal.flatMap(walk))
            }
        }
        return walk(self) ?? self
    }

    /// What a restoration must give back of it: the screens in their places, each pushed screen
    /// and the top one with its activation, every result where it was (a lower declared
    /// screen's parameters are those its request gives: a restoration resolves them again).
    /// `luna verify` and the reducer's oracle compare states by it.
    package var restorationSignature: String {
        let top = topScreen?.node
        func text(_ item: Presented) -> String {
            switch item {
            case .switcher(let node, let section, let content): return "w(\(node) \(section) \(text(content)))"
            case .junction(let node, let selected, let options):
                return "j(\(node) \(selected) \(options.map(text).joined(separator: " ")))"
            case .stack(let node, let items): return "k(\(node) \(items.map(text).joined(separator: " ")))"
            case .screen(let node, let activation, let modal):
                var line = "s(\(node)"
                if let activation, activation.pushed || node == top {
                    line +=
                        " \(activation.params.sorted { $0.key < $1.key }) \(activation.query.sorted { $0.key < $1.key })"
                    line += " \(activation.fragment ?? "")"
                }
                if activation?.pushed == true { line += " pushed" }
                if let result = activation?.result { line += " " + PlanOperation.text(result) }
                return line + (modal.map { " " + text($0) } ?? "") + ")"
            }
        }
        return text(self)
    }

    /// Whether any screen in it is named `id`.
    func contains(_ id: NodeID) -> Bool { first(id) != nil }

    /// The requests that made the pushed screens on the shown path, in order: the request of
    /// the declared chain under the first pushed screen (`base`), then each push and each
    /// request that extended a pushed screen. Nil when nothing shown was pushed. Replaying them
    /// (``Reducer/replaying(_:onto:dropped:resolve:)``) is how a flag change, a reload and a
    /// restoration resolve such a state again.
    public var pushSteps: PushSteps? {
        var entries: [PushSteps.Step] = []
        func walk(_ presented: Presented) {
            switch presented {
            case .switcher(_, _, let content): walk(content)
            case .junction(_, let selected, let options): walk(options[selected])
            case .stack(_, let items): for item in items { walk(item) }
            case .screen(let node, let activation, let modal):
                if let activation, let request = activation.request {
                    entries.append(
                        PushSteps.Step(
                            request: activation.from ?? request.original, pushed: activation.pushed, instance: node))
                }
                if let modal { walk(modal) }
            }
        }
        walk(self)
        guard let first = entries.firstIndex(where: \.pushed), first > 0 else { return nil }
        return PushSteps(base: entries[first - 1].request, steps: Array(entries[first...]))
    }
}

/// What was asked to reach a state with pushed screens (``Presented/pushSteps``).
public struct PushSteps: Equatable, Sendable {
    /// One request: a push, or a request that extended a pushed screen.
    public struct Step: Equatable, Sendable {
        /// What was asked (before guards and redirects).
        public var request: String
        /// A push (else a request dispatched over it).
        public var pushed: Bool
        /// The screen it showed (a pushed one's instance name).
        public var instance: NodeID
    }
    /// The request of the declared chain the first push went onto.
    public var base: String
    public var steps: [Step]
}

extension Reducer {
    /// Pushes the screen `resolution` matched onto the top stack shown (docs/dsl.md, "Push").
    ///
    /// - Throws: ``RouteError`` (`notPushable`) when nothing is shown, no stack is shown, the
    ///   stack does not take that screen, or it holds ``NodeID/maximumInstances`` of it.
    public func push(_ state: RouterState, to resolution: Resolution) throws(RouteError) -> Transition {
        try push(state, to: resolution, oldIndex: nil)
    }

    func push(
        _ state: RouterState, to resolution: Resolution, oldIndex: PresentedIndex?
    ) throws(RouteError)
        -> Transition
    {
        guard let presented = state.presented else {
            throw RouteError(.notPushable, "nothing is shown to push '\(resolution.request.original)' over")
        }
        guard let (stackID, _) = presented.topStack, let stack = tree[stackID] else {
            throw RouteError(.notPushable, "no stack is shown to push '\(resolution.request.original)' onto")
        }
        let endpoint = tree[resolution.route].node
        let base = tree.nodes[endpoint].nodeID
        guard tree.pushes(endpoint, onto: stack.index) else {
            let takes = tree.pushTargets(of: stack.index)
            throw RouteError(
                .notPushable,
                "\(stack.id) does not take pushes of \(base) (it takes \(takes.isEmpty ? "none" : takes.joined(separator: ", ")); "
                    + "a stack's `pushes` list names what else it takes)")
        }
        // The first of a node in its own stack has the node's name; any other `ID#N`.
        var name: NodeID?
        if tree.ownStack(of: endpoint) == stack.index, !presented.contains(base) {
            name = base
        } else {
            for number in 2...NodeID.maximumInstances where !presented.contains(base.instance(number)) {
                name = base.instance(number)
                break
            }
        }
        guard let name else {
            throw RouteError(
                .notPushable, "\(stack.id) already shows \(NodeID.maximumInstances) of \(base); a push more is refused")
        }
        var activation = Self.matchActivation(resolution)
        activation.pushed = true
        let screen = Presented.screen(node: name, activation: activation, modal: nil)
        // The screen pushed over holds the request that showed it: what a re-resolution resolves
        // first (``Presented/pushSteps``).
        var under = presented
        if let top = presented.topScreen, top.activation.request == nil, let request = state.request,
            let marked = presented.replacingActivation(of: top.node, with: { $0?.request = request })
        {
            under = marked
        }
        guard let next = under.replacingTopStackItems({ $0 + [screen] }) else {
            throw RouteError(.notPushable, "no stack is shown to push '\(resolution.request.original)' onto")
        }
        let to = RouterState(
            request: resolution.request, route: resolution.route, parameters: resolution.parameters, presented: next,
            requested: resolution.requested)
        let index = to.presentedIndex
        let plan = Self.plan(
            from: oldIndex ?? state.presentedIndex, to: index, tree: tree, oldMatch: state.match, newMatch: nil)
        return Transition(from: state, to: to, plan: plan, indexed: index)
    }

    /// Pops the top screen of the top stack shown when that stack holds pushed screens (the
    /// screens below stay as they are, pushed ones too): nil otherwise (Back then goes as
    /// before: to the screen below, or the sheet closed).
    public func pop(_ state: RouterState) -> Transition? {
        guard let presented = state.presented, let (_, items) = presented.topStack, items.count >= 2,
            items.contains(where: \.isPushed),
            let next = presented.replacingTopStackItems({ Array($0.dropLast()) })
        else { return nil }
        return showing(next, from: state)
    }

    /// Closes the top modal shown: what it covered stays as it was (its tab stacks, pushed
    /// screens and activation), and shows again. Nil when no modal is shown.
    public func dismiss(_ state: RouterState) -> Transition? {
        guard let presented = state.presented, let (next, _) = presented.dismissingTopModal() else { return nil }
        return showing(next, from: state)
    }

    /// The transition from `state` to the presentation `next`, its top screen's request the
    /// state's (a pop or a dismissal: nothing is resolved again).
    private func showing(_ next: Presented, from state: RouterState) -> Transition? {
        guard let top = next.topScreen, let node = tree[top.node], let route = node.route,
            let request = top.activation.request ?? (try? tree.request(showing: top.node, activation: top.activation))
        else { return nil }
        // The screen shown again holds the request that shows it, as a dispatched one does (what
        // a re-resolution resolves: ``Presented/pushSteps``).
        var next = next
        if top.activation.request == nil,
            let marked = next.replacingActivation(of: top.node, with: { $0?.request = request })
        {
            next = marked
        }
        let to = RouterState(
            request: request, route: route, parameters: top.activation.parameters, presented: next,
            requested: top.activation.from ?? request.original)
        let index = to.presentedIndex
        let plan = Self.plan(from: state.presentedIndex, to: index, tree: tree, oldMatch: state.match, newMatch: nil)
        return Transition(from: state, to: to, plan: plan, indexed: index)
    }

    /// `steps` (``Presented/pushSteps``) replayed onto `state` (the declared chain of their base
    /// already shown): each push pushed again and each extending request dispatched again,
    /// resolved by `resolve` (through the guards: nil for a request that no longer resolves).
    /// The first step that fails ends the replay — it and what came after it are dropped —
    /// with a warning, unless its screen is in `dropped` (a guard refused it; said already).
    public func replaying(
        _ steps: [PushSteps.Step], onto state: RouterState, dropped: [NodeID] = [],
        resolve: (String) throws(RouteError) -> Resolution?
    ) throws(RouteError) -> (state: RouterState, warnings: [String]) {
        var current = state
        for step in steps {
            var failure: String?
            if let resolution = try resolve(step.request) {
                let shows = tree.nodes[tree[resolution.route].node].nodeID
                if shows != step.instance.base {
                    failure = "'\(step.request)' now shows \(shows)"
                } else if step.pushed {
                    do { current = try push(current, to: resolution).to } catch { failure = error.message }
                } else {
                    current = reduce(current, to: resolution).to
                }
            } else {
                failure = "'\(step.request)' no longer resolves"
            }
            if let failure {
                if dropped.contains(step.instance) { return (current, []) }
                return (current, ["\(step.instance.rawValue) dropped: \(failure)"])
            }
        }
        return (current, [])
    }
}

extension Transition {
    /// This transition handing `result` to the screen it shows (its top screen): the screen's
    /// activation keeps it, and the plan ends with its `deliver`.
    public func delivering(_ result: [String: AttributeValue]) -> Transition {
        guard let presented = to.presented, let top = presented.topScreen,
            let replaced = presented.replacingActivation(of: top.node, with: { $0?.result = result })
        else { return self }
        var transition = self
        transition.to.presented = replaced
        transition.plan.operations.append(.deliver(id: top.node.rawValue, result: result))
        return transition
    }
}

extension Presented {
    /// This presentation with the activation of the screen `id` changed by `change`.
    func replacingActivation(of id: NodeID, with change: (inout Activation?) -> Void) -> Presented? {
        replacingFirst { presented in
            guard case .screen(let node, var activation, let modal) = presented, node == id else { return nil }
            change(&activation)
            return .screen(node: node, activation: activation, modal: modal)
        }
    }
}

extension RouterState {
    /// This state with the results `old`'s screens held (``Activation/result``) kept on the same
    /// screens here, activated with the same parameters: a state resolved again (a flag change,
    /// a travel, a restoration, a reload) shows a screen as it was after a value was handed to
    /// it, without handing it over again.
    package func keepingResults(of old: Presented?) -> RouterState {
        guard let old else { return self }
        var held: [NodeID: (params: [String: String], result: [String: AttributeValue])] = [:]
        old.forEach { presented in
            if case .screen(let node, let activation?, _) = presented, let result = activation.result {
                held[node] = (activation.params, result)
            }
        }
        guard !held.isEmpty, var presented = self.presented else { return self }
        var changed = false
        for (node, (params, result)) in held {
            guard case .screen(_, let activation?, _)? = presented.first(node), activation.result == nil,
                activation.params == params,
                let replaced = presented.replacingActivation(of: node, with: { $0?.result = result })
            else { continue }
            presented = replaced
            changed = true
        }
        guard changed else { return self }
        var state = self
        state.presented = presented
        return state
    }

    /// The state's request as a resolution (nil when nothing is shown).
    var resolution: Resolution? {
        guard let request, let route else { return nil }
        return Resolution(request: request, route: route, parameters: parameters, requested: requested)
    }
}
