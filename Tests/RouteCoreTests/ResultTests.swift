import Testing

@testable import RouteCore

/// Results (docs/dsl.md, "Results"): a value handed back to the screen that shows again when
/// the one above it closes — delivered once, as the plan's last operation, and kept in that
/// screen's activation through a flag change, a travel and a restoration.
@Suite struct ResultTests {
    /// A transfer sheet (over any screen of the tab bar) with a payee picker in its stack.
    static func tree(leave: Locked<LeaveAnswer>? = nil) throws -> RouteTree {
        var picker = EndpointSpec(pattern: "./payee")
        if let leave { picker.leave = { _, _ in leave.withLock { $0 } } }
        var tabs = NodeSpec.junction(
            [.stack([.endpoint("accounts", children: [.endpoint("./:account")])], id: "accounts-tab")], id: "tabs")
        tabs.modals = [
            .stack(
                [.endpoint("transfer", children: [NodeSpec(kind: .endpoint, endpoint: picker)])], id: "transfer-flow")
        ]
        return try RouteTree(root: tabs)
    }

    /// Records what the presenter was handed.
    final class Recording: Presenter, @unchecked Sendable {
        let headless = HeadlessPresenter()
        var delivered: [(String, [String: AttributeValue])] = []
        func create(_ node: RouteTree.Node, activation: Activation?) throws -> HeadlessPresentable {
            try headless.create(node, activation: activation)
        }
        func update(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
            try headless.update(presentable, node: node, activation: activation)
        }
        func setStack(_ stack: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws {
            try headless.setStack(stack, node: node, items: items)
        }
        func setOptions(_ container: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]) throws {
            try headless.setOptions(container, node: node, options: options)
        }
        func select(
            _ container: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable
        )
            throws
        {
            try headless.select(container, node: node, index: index, option: option)
        }
        func presentModal(
            _ modal: HeadlessPresentable, over presenter: HeadlessPresentable, node: RouteTree.Node
        )
            throws
        {
            try headless.presentModal(modal, over: presenter, node: node)
        }
        func dismissModal(
            _ modal: HeadlessPresentable, from presenter: HeadlessPresentable, node: RouteTree.Node
        )
            throws
        {
            try headless.dismissModal(modal, from: presenter, node: node)
        }
        func deliver(_ presentable: HeadlessPresentable, node: RouteTree.Node, result: [String: AttributeValue]) throws
        {
            delivered.append((presentable.id, result))
            try headless.deliver(presentable, node: node, result: result)
        }
    }

    static let ada: [String: AttributeValue] = [
        "payee": .string("ada"), "amount": .integer(50), "urgent": .boolean(true),
    ]

    static func result(of router: Router<Recording>, _ id: String) -> [String: AttributeValue]? {
        guard case .screen(_, let activation?, _)? = router.state.presented?.first(NodeID(id)) else { return nil }
        return activation.result
    }

    @Test func backWithAResultDeliversItOnceToTheScreenThatShowsAgain() throws {
        let presenter = Recording()
        let router = Router(tree: try Self.tree(), presenter: presenter)
        try router.dispatch("accounts/1234")
        try router.dispatch("transfer/payee")
        let back = try router.back(result: Self.ada)
        #expect(back.plan.operations.last == .deliver(id: "transfer", result: Self.ada))
        #expect(back.plan.operations.last?.text == "deliver transfer {amount=50, payee=ada, urgent=true}")
        #expect(
            back.plan.operations.last?.json
                == #"{"op":"deliver","id":"transfer","result":{"amount":50,"payee":"ada","urgent":true}}"#)
        #expect(presenter.delivered.map(\.0) == ["transfer"])
        #expect(Self.result(of: router, "transfer") == Self.ada)
        #expect(router.store["transfer"]?.activation?.result == Self.ada)
        #expect(router.rootPresentable?.rendered().contains("result={amount=50, payee=ada, urgent=true}") == true)
        // Not delivered again: not by a flag change, not by a restoration.
        try router.setFlag("theme", "dark")
        #expect(presenter.delivered.count == 1)
        #expect(Self.result(of: router, "transfer") == Self.ada, "a flag change keeps it")
        let saved = router.state.restorationString
        #expect(saved.contains(#""res":{"amount":50,"payee":"ada","urgent":true}"#))
        let fresh = Recording()
        let restored = Router(tree: try Self.tree(), presenter: fresh)
        #expect(try restored.restore(restoring: saved) == nil)
        #expect(restored.state == router.state)
        #expect(fresh.delivered.isEmpty)
        #expect(restored.store["transfer"]?.activation?.result == Self.ada)
        // The next change shows the screen without handing anything over.
        let closed = try router.close()
        #expect(!closed.plan.operations.contains { if case .deliver = $0 { true } else { false } })
    }

    @Test func aResultOverFourKilobytesIsRefusedAndNothingChanges() throws {
        let router = Router(tree: try Self.tree(), presenter: Recording())
        try router.dispatch("transfer/payee")
        let before = router.state
        let error = #expect(throws: RouteError.self) {
            try router.back(result: ["note": .string(String(repeating: "x", count: 4100))])
        }
        #expect(error?.kind == .invalidRequest && error?.message.contains("at most 4096 bytes") == true)
        #expect(router.state == before)
    }

    @Test func aLeaveGuardsQuestionKeepsTheResultForTheConfirmation() throws {
        let answer = Locked(LeaveAnswer.ask("Discard the payee?"))
        let presenter = Recording()
        let router = Router(tree: try Self.tree(leave: answer), presenter: presenter)
        try router.dispatch("transfer/payee")
        let asked = try router.back(result: Self.ada)
        #expect(asked.confirmation?.change == .returning(Self.ada))
        #expect(presenter.delivered.isEmpty)
        let confirmed = try router.confirm()
        #expect(confirmed.plan.operations.last == .deliver(id: "transfer", result: Self.ada))
        #expect(presenter.delivered.count == 1)
    }

    @Test func aResultToAPushedScreenGoesToThatInstance() throws {
        let presenter = Recording()
        let router = Router(tree: try Self.tree(), presenter: presenter)
        try router.dispatch("accounts/1234")
        try router.push("accounts/5678")
        try router.push("accounts/9999")
        try router.back(result: ["picked": .string("9999")])
        #expect(presenter.delivered.map(\.0) == ["accounts/:account#2"])
        #expect(Self.result(of: router, "accounts/:account#2") == ["picked": .string("9999")])
        #expect(Self.result(of: router, "accounts/:account") == nil)
    }

    @Test func theLinkWireReadsADeliveryBack() throws {
        let operation = PlanOperation.deliver(id: "transfer", result: Self.ada)
        #expect(PlanOperation(json: try JSONValue.parse(operation.json)) == operation)
        var activation = Activation(params: ["id": "1"])
        activation.result = Self.ada
        let read = try Activation(json: try JSONValue.parse(activation.json(route: "x")))
        #expect(read?.result == Self.ada)
    }
}
