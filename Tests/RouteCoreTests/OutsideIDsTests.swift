import Foundation
import Testing

@testable import RouteCore

/// Node ids from outside (restoration strings, devices, pages) are looked up, never stored:
/// a peer cannot make the process keep ids no tree declares.
@Suite struct OutsideIDsTests {
    @Test func anIdNoTreeDeclaresIsNeverStored() throws {
        let id = "never-declared-" + UUID().uuidString
        #expect(NodeID(existing: id) == nil)
        let text = #"{"v":1,"r":"books","p":["k","\#(id)",[["s","\#(id)-screen"]]]}"#
        let state = try RouterState(restoring: text)
        #expect(state.presented?.node == .unknown)
        #expect(NodeID(existing: id) == nil && NodeID(existing: id + "-screen") == nil)
        // Restored on a tree, the unknown nodes are dropped: nothing is shown.
        let router = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        _ = try router.restore(restoring: text)
        #expect(NodeID(existing: id) == nil)
        // A declared id is found, byte for byte.
        let tree = try RouteTree(root: .stack([.endpoint("x", id: "Caf\u{E9}-" + id)]))
        #expect(NodeID(existing: "Caf\u{E9}-" + id) == tree.nodes[1].nodeID)
        #expect(NodeID(existing: "Cafe\u{301}-" + id) == nil)
    }
}
