import Foundation
import LuaHost
import RouteCore
import Testing

@testable import RouteScript

@Suite struct ReloadTests {
    static let base = """
        created = (created or 0)
        return stack { title = "Books",
          endpoint { "books", title = "Books", children = {
            endpoint { "./:id", title = "Book", presenter = {
              create = function(ctx) return { serial = os.clock() } end,
              update = function(view, ctx) view.updates = (view.updates or 0) + 1 end,
            } } } } }
        """

    @Test func reloadKeepsPresentablesByIDAndRunsTheirUpdate() throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("books/1")
        let detail = try #require(host.tree?.children.last)
        #expect(detail.attributes["updates"] == .integer(1))
        folder.write("r.lua", Self.base.replacingTitle("Books", with: "Library"))
        // The endpoint's title changed: a changed route.
        let summary = try host.reload()
        #expect(summary.changed == ["books"])
        #expect(summary.added.isEmpty && summary.removed.isEmpty)
        #expect(summary.warning == nil)
        let kept = try #require(host.tree?.children.last)
        #expect(kept === detail, "the same presentable object is kept")
        #expect(kept.attributes["updates"] == .integer(2), "its update hook ran")
        #expect(host.tree?.children.first?.title == "Library", "a default title follows the script")
        #expect(host.tree?.title == "Books")
        #expect(host.state.request?.path == "books/1")
        #expect(summary.line.hasPrefix("reloaded in "))
        #expect(summary.line.hasSuffix(" ms: 0 added, 0 removed, 1 changed (books)"))
    }

    /// A node whose presenter changed counts as changed: headless to hooks, another set of
    /// hooks, another host presenter; the same hooks (new functions) or the same host
    /// presenter do not.
    /// Pushed screens survive a reload: pushed again in order, the same presentables kept by
    /// their instance names, their update hooks run; a push the new script no longer takes is
    /// dropped with the warning, and the presentables above it unwound by name.
    @Test func aReloadPushesThePushedScreensAgain() throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("books/1")
        _ = try host.push("books/2")
        _ = try host.push("books/3")
        let second = try #require(host.presentable("books/:id#2"))
        folder.write("r.lua", Self.base.replacingTitle("Books", with: "Library"))
        let summary = try host.reload()
        #expect(summary.warning == nil)
        #expect(host.presentable("books/:id#2") === second)
        #expect(second.attributes["updates"] == .integer(2), "its update hook ran")
        #expect(host.state.request?.path == "books/3")
        #expect(host.tree?.children.map(\.id) == ["books", "books/:id", "books/:id#2", "books/:id#3"])
        // The stack takes only the list part now: no more `books/:id` pushes.
        folder.write(
            "r.lua",
            Self.base.replacingOccurrences(
                of: #"return stack { title = "Books","#, with: #"return stack { title = "Books", pushes = { "books" },"#
            ))
        let narrowed = try host.reload()
        #expect(narrowed.warning?.contains("books/:id#2 dropped") == true, "\(narrowed.warning ?? "")")
        #expect(host.tree?.children.map(\.id) == ["books", "books/:id"])
        #expect(narrowed.plan.operations.contains(.unwind(id: "books/:id#3")))
        #expect(host.presentable("books/:id#2") == nil)
    }

    @Test func aChangedPresenterIsAChangedNode() throws {
        let folder = ScriptFolder()
        func script(_ presenter: String) -> String {
            "return stack { endpoint { \"a\" }, endpoint { \"b\"\(presenter) } }"
        }
        let path = folder.write("p.lua", script(""))
        let host = RouteScriptHost()
        host.registerPresenter("cards", HostPresenter<HeadlessPresentable>())
        host.registerPresenter("list", HostPresenter<HeadlessPresentable>())
        try host.load(contentsOf: path)
        let steps: [(String, [String])] = [
            (", presenter = { create = function() return {} end }", ["b"]),
            (", presenter = { create = function() return { x = 1 } end }", []),
            (", presenter = { create = function() return {} end, update = function() end }", ["b"]),
            (", presenter = \"cards\"", ["b"]),
            (", presenter = \"cards\"", []),
            (", presenter = \"list\"", ["b"]),
            ("", ["b"]),
        ]
        for (presenter, changed) in steps {
            folder.write("p.lua", script(presenter))
            #expect(try host.reload().changed == changed, "\(presenter)")
        }
    }

    /// A route whose validators changed (and nothing else) is a changed route in the summary;
    /// one saved again unchanged, or whose definition the new tree took from the old, is not.
    @Test func aChangedValidatorIsAChangedRoute() throws {
        let folder = ScriptFolder()
        func script(_ validator: String?) -> String {
            let clause = validator.map { ", where = { id = \"\($0)\" }" } ?? ""
            return "return stack { endpoint { \"a\" }, endpoint { \"b/:id\"\(clause) } }"
        }
        let path = folder.write("v.lua", script(nil))
        let host = RouteScriptHost()
        try host.load(contentsOf: path)
        let steps: [(String?, [String])] = [
            (nil, []), ("[0-9]+", ["b/:id"]), ("[0-9]+", []), ("[a-z]+", ["b/:id"]), (nil, ["b/:id"]), (nil, []),
        ]
        for (validator, changed) in steps {
            folder.write("v.lua", script(validator))
            #expect(try host.reload().changed == changed, "\(validator ?? "none")")
        }
    }

    /// A reload that changed no route keeps the compiled matcher; a changed pattern, a
    /// changed regex validator or a Lua validator (its function belongs to the old state)
    /// gets a new one, and matching goes on working either way.
    @Test func aReloadKeepsTheMatcherWhenTheRoutesAreTheSame() throws {
        let folder = ScriptFolder()
        let script = """
            return stack { title = "Books",
              endpoint { "books", title = "Books" },
              endpoint { "books/:id", where = { id = "[0-9]+" } },
            }
            """
        let path = folder.write("m.lua", script)
        let host = try RouteScriptHost(contentsOf: path)
        let first = try #require(host.routeTree?.matcher)
        folder.write("m.lua", script.replacingOccurrences(of: "title = \"Books\" }", with: "title = \"Library\" }"))
        try host.reload()
        #expect(host.routeTree?.matcher === first, "titles only: the same matcher")
        #expect(host.routeTree?.nodes.first { $0.id == "books" }?.title == "Library")
        #expect(try host.dispatch("books/7").route == "books/:id")
        folder.write("m.lua", script.replacingOccurrences(of: "[0-9]+", with: "[0-7]+"))
        try host.reload()
        let second = try #require(host.routeTree?.matcher)
        #expect(second !== first, "a validator changed")
        #expect(throws: RouteError.self) { try host.dispatch("books/9") }
        folder.write("m.lua", script.replacingOccurrences(of: "\"[0-9]+\"", with: "function(v) return v == '5' end"))
        try host.reload()
        let lua = try #require(host.routeTree?.matcher)
        folder.write("m.lua", script.replacingOccurrences(of: "\"[0-9]+\"", with: "function(v) return v == '5' end"))
        try host.reload()
        #expect(host.routeTree?.matcher !== lua, "a Lua validator is never carried over")
        #expect(try host.dispatch("books/5").route == "books/:id", "the new state's validator runs")
        #expect(throws: RouteError.self) { try host.dispatch("books/6") }
    }

    /// Reloads that edit a few routes of a larger script (a route renamed, one added, one
    /// removed, a Lua validator's function replaced) match every request as a host that loads
    /// the edited script afresh: the reload patches the matcher, a fresh load compiles it.
    @Test func reloadsThatEditAFewRoutesMatchAsAFreshLoad() throws {
        func script(_ edit: Int) -> String {
            var lines = ["return junction { title = \"Generated\","]
            for tab in 0..<6 {
                lines.append("  stack { title = \"tab\(tab)\",")
                for item in 0..<50 where !(edit >= 2 && tab == 1 && item == 7) {
                    let pattern = edit >= 1 && tab == 3 && item == 20 ? "renamed\(tab)/x/:id" : "t\(tab)/i\(item)/:id"
                    let check =
                        item % 10 == 0 ? ", where = { id = function(v) return v == \"\(edit >= 3 ? 9 : 5)\" end }" : ""
                    lines.append("    endpoint { \"\(pattern)\"\(check) },")
                    if edit >= 2, tab == 4, item == 30 { lines.append("    endpoint { \"t4/added/...rest\" },") }
                }
                lines.append("  },")
            }
            lines.append("}")
            return lines.joined(separator: "\n")
        }
        let folder = ScriptFolder()
        let path = folder.write("many.lua", script(0))
        let host = try RouteScriptHost(contentsOf: path)
        var requests = ["renamed3/x/4", "t3/i20/4", "t1/i7/1", "t4/added/a/b", "t4/i30/2"]
        for tab in 0..<6 {
            for item in stride(from: 0, to: 50, by: 5) { requests += ["t\(tab)/i\(item)/5", "t\(tab)/i\(item)/9"] }
        }
        for edit in 1...3 {
            folder.write("many.lua", script(edit))
            try host.reload()
            let fresh = try RouteScriptHost(contentsOf: folder.write("fresh.lua", script(edit)))
            for request in requests {
                let reloaded = try? host.routeTree?.matcher.match(request).map {
                    host.routeTree?[RouteID($0.route)].definition.displayText
                }
                let loaded = try? fresh.routeTree?.matcher.match(request).map {
                    fresh.routeTree?[RouteID($0.route)].definition.displayText
                }
                #expect(reloaded == loaded, "edit \(edit): \(request)")
            }
        }
        #expect(try host.dispatch("t0/i10/9").route == "t0/i10/:id", "the new state's validator runs")
        #expect(throws: RouteError.self) { try host.dispatch("t0/i10/5") }
    }

    @Test func vanishedNodesAreUnwoundAndTheLongestPrefixIsShown() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "r.lua",
            """
            return stack { endpoint { "books", children = { endpoint { "./:id",
              presenter = { unwind = function(view) print('unwound ' .. view.id) end } } } } }
            """)
        let lines = Lines()
        var options = RouteScriptOptions()
        options.output = { lines.append($0) }
        let host = try RouteScriptHost(contentsOf: path, options: options)
        _ = try host.dispatch("books/1")
        folder.write("r.lua", "return stack { endpoint { \"books\" }, endpoint { \"authors\" } }")
        let summary = try host.reload()
        #expect(summary.removed == ["books/:id"])
        #expect(summary.added == ["authors"])
        #expect(summary.warning == "'books/1' no longer matches; showing 'books'")
        #expect(host.state.request?.path == "books")
        #expect(host.tree?.children.map(\.id) == ["books"])
        #expect(lines.all == ["unwound books/:id"])
    }

    @Test(arguments: [
        "return stack { endpoint { 'books' ",
        "error('broken save')",
        "while true do end",
        "return stack { }",
        "return 42",
    ])
    func aFailedReloadKeepsEverything(broken: String) throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        var options = RouteScriptOptions()
        options.loadLimits.deadline = .milliseconds(30)
        let host = try RouteScriptHost(contentsOf: path, options: options)
        _ = try host.dispatch("books/1")
        let tree = host.tree?.rendered()
        let state = host.state
        let vm = host.vm
        folder.write("r.lua", broken)
        let error = #expect(throws: RouteScriptError.self) { try host.reload() }
        #expect(error?.kind == .load)
        #expect(error?.message.hasPrefix("r.lua") == true, "\(error?.message ?? "")")
        #expect(host.tree?.rendered() == tree)
        #expect(host.state == state)
        #expect(host.vm === vm)
        #expect(try host.dispatch("books/2").plan.operations.map(\.text) == ["update books/:id"])
    }

    /// A guard that throws while the reload re-resolves the current request is a failed
    /// reload with its file:line, not "no longer matches": the old tree and state stay.
    @Test(arguments: [
        "return stack { enabled = function(ctx) return ctx.flag.x end, endpoint { 'books', children = { endpoint { './:id' } } } }",
        "return stack { endpoint { 'books', children = { endpoint { './:id', redirect = function() while true do end end } } } }",
        "return stack { endpoint { 'books', children = { endpoint { './:id', where = { id = function(v) error('bad id') end } } } } }",
    ])
    func aScriptErrorWhileReResolvingFailsTheReload(broken: String) throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        var options = RouteScriptOptions()
        options.callLimits.deadline = .milliseconds(30)
        let host = try RouteScriptHost(contentsOf: path, options: options)
        _ = try host.dispatch("books/1")
        let tree = host.tree?.rendered()
        let state = host.state
        folder.write("r.lua", broken)
        let error = #expect(throws: RouteScriptError.self) { try host.reload() }
        #expect(error?.kind == .load)
        #expect(error?.message.hasPrefix("r.lua:1:") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(while re-resolving 'books/1' on the new script)") == true)
        #expect(host.tree?.rendered() == tree)
        #expect(host.state == state)
        // The old script still runs.
        #expect(try host.dispatch("books/2").plan.operations.map(\.text) == ["update books/:id"])
    }

    /// The request the user is on survives a reload that cannot show it: when the route
    /// comes back, so does the state (a half-written save had lost it for good).
    @Test func theRequestComesBackWithItsRoute() throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("books/7")
        folder.write("r.lua", "return stack { endpoint { 'elsewhere' } }")
        let smaller = try host.reload()
        #expect(smaller.warning == "'books/7' no longer matches anything; nothing is shown")
        #expect(host.state.request == nil)
        folder.write("r.lua", Self.base)
        let back = try host.reload()
        #expect(back.warning == nil)
        #expect(host.state.request?.path == "books/7")
        #expect(host.state.params["id"] == "7")
    }

    /// Attributes follow the script and the device: a live `device pad` and a reload give a
    /// kept presentable what a fresh one would get (they stayed as first created).
    @Test func attributesFollowTheDeviceAndTheScript() throws {
        let folder = ScriptFolder()
        let source = """
            return junction { presenter = { create = function(ctx) return { split = ctx.device.idiom == "pad" } end },
              stack { id = "mail", attributes = { badge = 2 }, endpoint { "inbox" } },
              stack { endpoint { "settings" } } }
            """
        let path = folder.write("a.lua", source)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("inbox")
        let root = try #require(host.tree)
        #expect(root.attributes["split"] == .boolean(false))
        #expect(root.children.first?.attributes["badge"] == .integer(2))
        _ = try host.setDevice(.pad)
        #expect(host.tree === root, "kept")
        #expect(root.attributes["split"] == .boolean(true))
        folder.write("a.lua", source.replacingOccurrences(of: "badge = 2", with: "badge = 5"))
        _ = try host.reload()
        // A presenter change counts as a change in the summary.
        folder.write(
            "a.lua",
            source.replacingOccurrences(of: "badge = 2", with: "badge = 5").replacingOccurrences(
                of: "stack { endpoint { \"settings\" } }",
                with: "stack { presenter = { setStack = function() end }, endpoint { \"settings\" } }"))
        #expect(try host.reload().changed == ["stack:settings"])
        #expect(host.tree?.children.first?.attributes["badge"] == .integer(5))
        #expect(host.tree?.attributes["split"] == .boolean(true))
    }

    /// A reload that fails while it applies (the new script's hook throws) leaves every kept
    /// presentable as it was — attributes the new script had already declared included — and
    /// the old presenter can still take back a later failed dispatch.
    @Test func aReloadThatFailsWhileApplyingPutsEveryPresentableBack() throws {
        let folder = ScriptFolder()
        let source = """
            return junction { presenter = { select = function(view, option)
                view.count = (view.count or 0) + 1
                if option.id == "stack:settings" then error("no settings") end
              end },
              stack { id = "mail", attributes = { badge = 2 }, endpoint { "inbox" } },
              stack { endpoint { "settings" } } }
            """
        let path = folder.write("t.lua", source)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("inbox")
        let root = try #require(host.tree)
        let mail = try #require(root.children.first)
        #expect(root.attributes["count"] == .integer(1))
        #expect(throws: (any Error).self) { try host.dispatch("settings") }
        #expect(root.attributes["count"] == .integer(1), "the hook's change was taken back")

        folder.write(
            "t.lua",
            source.replacingOccurrences(of: "badge = 2", with: "badge = 5").replacingOccurrences(
                of: "endpoint { \"inbox\" }",
                with: "endpoint { \"inbox\", presenter = { update = function() error(\"broken update\") end } }"))
        let error = #expect(throws: RouteScriptError.self) { try host.reload() }
        #expect(error?.kind == .load)
        #expect(error?.message.contains("broken update") == true)
        #expect(error?.location?.line == 5, "the hook's line")
        #expect(host.tree === root && root.children.first === mail)
        #expect(mail.attributes["badge"] == .integer(2), "the new script's attribute was taken back")
        #expect(host.state.request?.path == "inbox")

        // The old presenter still owns its presentables: a failed dispatch is still undone.
        #expect(throws: (any Error).self) { try host.dispatch("settings") }
        #expect(root.attributes["count"] == .integer(1))
        #expect(root.selected == 0)
    }

    @Test func aDeletedScriptKeepsTheLastTreeAndIsPickedUpAgain() throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("books/1")
        folder.remove("r.lua")
        #expect(throws: RouteScriptError.self) { try host.reload() }
        #expect(host.state.request?.path == "books/1")
        folder.write("r.lua", Self.base)
        #expect(try host.reload().warning == nil)
    }

    @Test func requiredModulesAreLoadedAndListed() throws {
        let folder = ScriptFolder()
        folder.write("tabs/books.lua", "local luna = require 'luna'\nreturn luna.stack { luna.endpoint { 'books' } }")
        let path = folder.write("main.lua", "return junction { require 'tabs.books', endpoint { 'about' } }")
        let host = try RouteScriptHost(contentsOf: path)
        #expect(
            host.files.map { String($0.split(separator: "/").suffix(2).joined(separator: "/")) } == [
                "\(folder.path.split(separator: "/").last!)/main.lua", "tabs/books.lua",
            ])
        _ = try host.dispatch("books")
        #expect(host.tree?.children.first?.children.first?.id == "books")
    }

    @Test func presenterClosuresAreReleasedAfterReloadAndClose() throws {
        weak var firstVM: LuaVM?
        weak var weakHost: RouteScriptHost?
        let folder = ScriptFolder()
        let path = folder.write("r.lua", Self.base)
        do {
            let host = try RouteScriptHost(contentsOf: path)
            weakHost = host
            firstVM = host.vm
            _ = try host.dispatch("books/1")
            try host.reload()
            #expect(firstVM == nil || firstVM?.isClosed == true, "the old Lua state is closed")
            #expect(host.vm !== firstVM)
        }
        #expect(weakHost == nil, "nothing keeps the host alive")
        #expect(firstVM == nil)
    }
}

final class Lines: @unchecked Sendable {
    private var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
    var all: [String] { lines }
}

extension String {
    /// The script text with the `books` endpoint's title replaced.
    func replacingTitle(_ old: String, with new: String) -> String {
        guard let range = self.firstRange(of: "endpoint { \"books\", title = \"\(old)\"") else { return self }
        var copy = self
        copy.replaceSubrange(range, with: "endpoint { \"books\", title = \"\(new)\"")
        return copy
    }
}

@Suite struct ReloadRepairTests {
    @Test func aModalThatVanishesIsDetachedAndUnwound() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "m.lua", "return stack { endpoint { 'a', modals = { endpoint { 'a/m' } } }, endpoint { 'b' } }")
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a/m")
        #expect(host.tree?.children.first?.modal?.id == "a/m")
        folder.write("m.lua", "return stack { endpoint { 'a' }, endpoint { 'b' } }")
        let summary = try host.reload()
        #expect(summary.warning == "'a/m' no longer matches; showing 'a'")
        #expect(host.tree?.rendered() == "stack root\n└── screen a")
    }
}

@Suite struct LifetimeTests {
    @Test func aHostFreesItsCurrentLuaState() throws {
        weak var weakVM: LuaVM?
        let folder = ScriptFolder()
        let path = folder.write(
            "l.lua", "return stack { endpoint { 'a', presenter = { update = function(v) v.n = 1 end } } }")
        do {
            let host = try RouteScriptHost(contentsOf: path)
            _ = try host.dispatch("a")
            weakVM = host.vm
            #expect(weakVM != nil)
        }
        #expect(weakVM == nil, "the builders' closures must not keep the VM alive")
    }

    @Test func requireWorksFromACallbackAfterLoading() throws {
        let folder = ScriptFolder()
        folder.write("helpers.lua", "return { title = function(id) return 'Item ' .. id end }")
        let path = folder.write(
            "late.lua",
            "return stack { endpoint { 'items/:id', presenter = { update = function(view, ctx) view.title = require('helpers').title(ctx.params.id) end } } }"
        )
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("items/3")
        #expect(host.tree?.children.first?.title == "Item 3")
    }
}

@Suite struct FirstLoadFailureTests {
    @Test func aHostWhoseFirstLoadFailedComesAliveOnTheFirstGoodReload() throws {
        let folder = ScriptFolder()
        let path = folder.write("late.lua", "return stack { endpoint { 'a' ")
        let host = RouteScriptHost()
        #expect(throws: RouteScriptError.self) { try host.load(contentsOf: path) }
        #expect(host.routeTree == nil && host.files == [path])
        #expect(throws: RouteScriptError.self) { try host.reload() }
        folder.write("late.lua", "return stack { endpoint { 'a' }, endpoint { 'b' } }")
        let summary = try host.reload()
        #expect(summary.added == ["a", "b"])
        #expect(try host.dispatch("b").route == "b")
    }
}

@Suite struct ReloadLintTests {
    @Test func aSaveThatAddsADuplicateFailsAndAShadowedRouteWarns() throws {
        let folder = ScriptFolder()
        let path = folder.write("l.lua", "return stack { endpoint { 'a' }, endpoint { 'users/:id' } }")
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a")
        folder.write(
            "l.lua", "return stack { endpoint { 'a' }, endpoint { 'users/:id' }, endpoint { 'a', id = 'again' } }")
        let error = #expect(throws: RouteScriptError.self) { try host.reload() }
        #expect(error?.message == "l.lua:1: error: route 'a' duplicates 'a' (l.lua:1)")
        #expect(host.routeTree?.endpoints.count == 2, "the failed reload changed nothing")
        folder.write(
            "l.lua", "return stack { endpoint { 'a' }, endpoint { 'users/:id' },\n endpoint { 'users/:name' } }")
        let summary = try host.reload()
        #expect(
            summary.lint == [
                "l.lua:2: warning: route 'users/:name' can never win: 'users/:id' (l.lua:1) matches everything it matches and is an earlier route of the same rank"
            ])
    }
}

@Suite struct ReloadLintReuseTests {
    /// Findings are reused while the lint's inputs are the same (a title edit) and computed
    /// again when anything they read changes: a pattern, a line, a fallback, a validator.
    @Test func aTitleEditKeepsTheWarningsAndAFixClearsThem() throws {
        let folder = ScriptFolder()
        let shadowed = "return stack { title = 'T', endpoint { 'users/:id' },\n endpoint { 'users/:name' } }"
        let path = folder.write("w.lua", shadowed)
        let host = try RouteScriptHost(contentsOf: path)
        let first = try host.reload().lint
        #expect(first.count == 1)
        folder.write("w.lua", shadowed.replacingOccurrences(of: "title = 'T'", with: "title = 'Users'"))
        #expect(try host.reload().lint == first, "a title edit: the same warning")
        folder.write("w.lua", "\n" + shadowed)
        #expect(try host.reload().lint.first?.hasPrefix("w.lua:3:") == true, "a line moved: the new location")
        folder.write("w.lua", "return stack { title = 'T', endpoint { 'users/:id' },\n endpoint { 'people/:name' } }")
        #expect(try host.reload().lint.isEmpty, "fixed: no warning")
    }

    @Test func theInputsSeeWhatTheLintReads() throws {
        let base = try RouteTree(root: .stack([.endpoint("a", title: "A"), .endpoint("b/:id")]))
        func same(_ spec: NodeSpec) throws -> Bool {
            TreeChange(from: base, to: try RouteTree(root: spec)).sameLintInputs
        }
        #expect(try same(.stack([.endpoint("a", title: "Other"), .endpoint("b/:id")])), "titles are not read")
        #expect(try !same(.stack([.endpoint("a"), .endpoint("b/:key")])), "patterns are")
        #expect(try !same(.stack([.endpoint("a", name: "home"), .endpoint("b/:id")])), "names are")
        #expect(
            try !same(.stack([.endpoint("a"), .endpoint("b/:id", where: ["id": try Validator(regex: "[0-9]+")])])),
            "validators are")
        var moved = NodeSpec.stack([.endpoint("a"), .endpoint("b/:id")])
        moved.location = SourceLocation(file: "x.lua", line: 2)
        #expect(try !same(moved), "declaration lines are")
        #expect(try !same(.stack([.endpoint("a"), .endpoint("b/:id"), .endpoint("c")])), "routes added are")
        var guarded = NodeSpec.stack([.endpoint("a"), .endpoint("b/:id")])
        guarded.guardSpec = GuardSpec(enabled: { _ in false }, fallback: "a")
        #expect(try !same(guarded), "guards and their fallbacks are")
    }
}

@Suite struct ReloadSummaryTests {
    @Test func theSummaryNamesChangedNodesAndItsPlanListsVanishedOnes() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "s.lua",
            "return junction { stack { title = 'A', endpoint { 'a', children = { endpoint { './:id' } } } }, stack { endpoint { 'b' } } }"
        )
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("a/1")
        // A container's title changes and the detail screen vanishes.
        folder.write(
            "s.lua", "return junction { stack { title = 'Alpha', endpoint { 'a' } }, stack { endpoint { 'b' } } }")
        let summary = try host.reload()
        #expect(summary.changed == ["stack:a"])
        #expect(summary.removed == ["a/:id"])
        #expect(summary.line.hasSuffix("0 added, 1 removed (a/:id), 1 changed (stack:a)"))
        #expect(summary.plan.operations.contains(.unwind(id: "a/:id")))
        #expect(summary.plan.json.contains(#"{"op":"unwind","id":"a/:id"}"#))
        #expect(host.tree?.rendered().contains("a/:id") == false)
    }
}

/// A reload reconciles by identity: after reloading from any of these scripts to any other,
/// the presentables are exactly what a fresh host of the new script shows for the same
/// request — whatever moved, was reordered, added, removed or changed kind — and the next
/// dispatch goes on from there alike.
@Suite struct ReloadReconciliationTests {
    static let scripts = [
        // Tabs: mail (a message presenting a reply sheet), news, a settings screen.
        """
        return junction { id = "tabs",
          stack { id = "mail", endpoint { "inbox", children = {
            endpoint { "inbox/:id", id = "message", modals = {
              stack { id = "reply", endpoint { "inbox/:id/reply", id = "reply-form" } } } } } } },
          stack { id = "news-tab", endpoint { "news", children = { endpoint { "news/:id", id = "article" } } } },
          endpoint { "settings", id = "settings" } }
        """,
        // A home tab first, news before mail, the reply pushed instead of presented, settings
        // now a stack under the same id (another kind).
        """
        return junction { id = "tabs",
          endpoint { "home", id = "home" },
          stack { id = "news-tab", endpoint { "news", children = { endpoint { "news/:id", id = "article" } } } },
          stack { id = "mail", endpoint { "inbox", children = {
            endpoint { "inbox/:id", id = "message", children = {
              endpoint { "inbox/:id/reply", id = "reply-form" } } } } } },
          stack { id = "settings", endpoint { "settings", id = "settings-page" } } }
        """,
        // A login section and the tabs under a switcher; no news tab; the message presents
        // the reply form itself.
        """
        return switcher { id = "app",
          endpoint { "login", id = "login" },
          junction { id = "tabs",
            stack { id = "mail", endpoint { "inbox", children = {
              endpoint { "inbox/:id", id = "message", modals = {
                endpoint { "inbox/:id/reply", id = "reply-form" } } } } } },
            endpoint { "settings", id = "settings" } } }
        """,
    ]
    static let requests = ["inbox", "inbox/3", "inbox/3/reply", "news/7", "settings", "home", "login"]

    @Test(arguments: 0..<3, 0..<3)
    func aReloadShowsWhatAFreshHostShows(from: Int, to: Int) throws {
        for request in Self.requests {
            let folder = ScriptFolder()
            let path = folder.write("app.lua", Self.scripts[from])
            let host = try RouteScriptHost(contentsOf: path)
            guard (try? host.dispatch(request)) != nil else { continue }
            folder.write("app.lua", Self.scripts[to])
            try host.reload()
            let fresh = RouteScriptHost()
            try fresh.load(source: Self.scripts[to], name: "app.lua")
            guard let shown = host.state.request?.original else {
                #expect(host.tree == nil, "\(from) → \(to), \(request): nothing matches, nothing shown")
                continue
            }
            _ = try fresh.dispatch(shown)
            #expect(
                host.tree?.rendered() == fresh.tree?.rendered(), "\(from) → \(to) showing \(request), then \(shown)")
            #expect(host.state.presented == fresh.state.presented, "\(from) → \(to), \(request)")
            for next in Self.requests {
                guard (try? fresh.dispatch(next)) != nil else { continue }
                _ = try host.dispatch(next)
                #expect(
                    host.tree?.rendered() == fresh.tree?.rendered(), "\(from) → \(to), \(request), then \(next)")
            }
        }
    }
}

/// A reload frees the old script's Lua state on a background thread (its node objects and
/// the view handles it held go with it) while the host goes on with the new one, and while
/// another thread may still hold the old tree: its guards then fail as on a closed state.
/// Run under ThreadSanitizer by scripts/test.
@Suite struct ReloadFreeingTests {
    @Test func theOldStateIsFreedInTheBackgroundWhileItsTreeIsInUse() async throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                views = {}
                return stack {
                  endpoint { "books", title = "Books", children = {
                    endpoint { "./:id", fallback = "books",
                      enabled = function(ctx) return ctx.params.id ~= "0" end,
                      presenter = { update = function(view, ctx) views[#views + 1] = view end } },
                  } },
                }
                """, name: "free.lua")
        _ = try host.dispatch("books/1")
        let oldTree = try #require(host.routeTree)
        // Resolves through the old tree's guard until its state is gone (then the guard throws
        // as on a closed state) or 300 times; the host reloads meanwhile.
        async let other: Void = Task.detached {
            for id in 0..<300 { _ = try? oldTree.resolve("books/\(id % 3 + 1)") }
        }.value
        for round in 0..<20 {
            #expect(try host.dispatch("books/\(round % 3 + 1)").route == "books/:id")
            try host.reload()
        }
        await other
        LuaStateReaper.shared.waitUntilFreed()
        #expect(try host.dispatch("books/0").route == "books", "the new script's guard runs")
        // The old tree's guard calls a closed state: an error that says so, never a crash.
        let error = #expect(throws: RouteError.self) { try oldTree.resolve("books/2") }
        #expect(error?.message.contains("closed") == true, "\(error?.message ?? "")")
    }
}

/// `reusesUnchangedParts` (`--full-reload`, `LUNA_FULL_RELOAD=1`): off, a reload builds the
/// whole tree anew — a new matcher even when no route changed — and gives the same tree.
@Suite struct FullReloadTests {
    @Test(arguments: [true, false])
    func aReloadReusesTheMatcherOnlyWhenAsked(reusing: Bool) throws {
        let folder = ScriptFolder()
        let path = folder.write("app.lua", "return stack { endpoint { 'a', title = 'A' }, endpoint { 'b/:id' } }")
        var options = RouteScriptOptions()
        options.reusesUnchangedParts = reusing
        let host = try RouteScriptHost(contentsOf: path, options: options)
        _ = try host.dispatch("b/7")
        let before = try #require(host.routeTree)
        folder.write("app.lua", "return stack { endpoint { 'a', title = 'Alpha' }, endpoint { 'b/:id' } }")
        let summary = try host.reload()
        let after = try #require(host.routeTree)
        #expect((after.matcher === before.matcher) == reusing)
        #expect(summary.changed == ["a"])
        #expect(host.state.request?.original == "b/7")
        #expect(host.routeTree?.nodes.first { $0.id == "a" }?.title == "Alpha")
    }
}

/// A reload whose new guard refuses a screen another tab kept drops it, as a flag change does.
@Suite struct ReloadAdmissionTests {
    @Test func aScreenKeptInAnotherTabThatTheNewGuardRefusesIsDropped() throws {
        let folder = ScriptFolder()
        func script(_ open: Bool) -> String {
            """
            return junction {
              stack { endpoint { "home" } },
              stack { endpoint { "account", enabled = function() return \(open) end, fallback = "home",
                children = { endpoint { "./orders/:id" } } } },
            }
            """
        }
        let path = folder.write("app.lua", script(true))
        let host = try RouteScriptHost(contentsOf: path)
        _ = try host.dispatch("account/orders/7")
        _ = try host.dispatch("home")
        folder.write("app.lua", script(false))
        let summary = try host.reload()
        #expect(summary.plan.operations.map(\.text).contains("unwind account/orders/:id"))
        #expect(host.presentable("account/orders/:id") == nil)
        #expect(host.state.request?.original == "home")
    }
}
