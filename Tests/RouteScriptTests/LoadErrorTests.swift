import LuaHost
import RouteCore
import Testing

@testable import RouteScript

/// Each load error with its exact message.
@Suite struct LoadErrorTests {
    static let cases: [(String, String)] = [
        (
            "return endpoint { \"books\", childs = {} }",
            "bad.lua:1: endpoint: unknown field 'childs' (did you mean 'children'?)"
        ),
        (
            "\n\nreturn stack { titel = 'x', endpoint { 'a' } }",
            "bad.lua:3: stack: unknown field 'titel' (did you mean 'title'?)"
        ),
        ("return endpoint { 'a', title = 3 }", "bad.lua:1: endpoint: field 'title' must be a string (got number)"),
        (
            "return endpoint { 'a', children = 'b' }",
            "bad.lua:1: endpoint: field 'children' must be a list of nodes (got string)"
        ),
        (
            "return endpoint { 'a', children = { 'b' } }",
            "bad.lua:1: endpoint: field 'children'[1] must be a node (got string)"
        ),
        (
            "return endpoint { title = 'x' }",
            "bad.lua:1: endpoint: missing pattern: write endpoint { \"books/:id\", … } or endpoint { regex = \"…\" }"
        ),
        ("return endpoint { 42 }", "bad.lua:1: endpoint: the pattern ([1]) must be a string (got number)"),
        (
            "return endpoint { 'a', 'b' }",
            "bad.lua:1: endpoint: unexpected value at [2] (an endpoint lists only its pattern)"
        ),
        (
            "return endpoint { [0] = 'z', 42, 'b' }",
            "bad.lua:1: endpoint: unexpected value at [0] (an endpoint lists only its pattern)"
        ),
        ("return endpoint { 42, 'b' }", "bad.lua:1: endpoint: the pattern ([1]) must be a string (got number)"),
        (
            "return endpoint { 'a', title = endpoint { 'b' } }",
            "bad.lua:1: endpoint: field 'title' must be a string (got userdata)"
        ),
        (
            "return endpoint { 'a', children = endpoint { 'b' } }",
            "bad.lua:1: endpoint: field 'children' must be a list of nodes, not one node (wrap it in { })"
        ),
        ("return endpoint('a')", "bad.lua:1: endpoint: write endpoint { \"pattern\", … } with braces, not parentheses"),
        ("return stack(nil)", "bad.lua:1: bad argument #1 to 'stack' (table expected, got nil)"),
        ("return stack { }", "bad.lua:1: stack: a stack needs at least one node"),
        ("return junction { endpoint { 'a' }, 'b' }", "bad.lua:1: junction: [2] must be a node (got string)"),
        (
            "return endpoint { 'a', presenter = { creat = print } }",
            "bad.lua:1: endpoint: unknown presenter hook 'creat' (did you mean 'create'?)"
        ),
        (
            "return stack { presenter = { update = print }, endpoint { 'a' } }",
            "bad.lua:1: stack: presenter hook 'update' does not apply to a stack"
        ),
        (
            "return endpoint { 'a', presenter = 42 }",
            "bad.lua:1: endpoint: field 'presenter' must be a string, function or table (got number)"
        ),
        (
            "return endpoint { 'a', presenter = 'Missing' }",
            "bad.lua:1: endpoint: unknown presenter 'Missing' (the host registered none)"
        ),
        (
            "return endpoint { 'a/:id', where = { id = '[0-9' } }",
            "bad.lua:1: endpoint: where.id: invalid regular expression '[0-9': "
        ),
        (
            "return endpoint { 'a/:id',\n where = { id = '(a)\\\\1' } }",
            "bad.lua:1: endpoint: where.id: invalid regular expression '(a)\\1': backreferences are not supported: "
                + "they have no linear-time algorithm (at offset 3)"
        ),
        (
            "return endpoint { regex = 'x(?=y)' }",
            "bad.lua:1: endpoint: invalid regular expression 'x(?=y)': lookahead is not supported: "
                + "it has no linear-time algorithm (at offset 1)"
        ),
        (
            "return stack { endpoint { 'p', children = { junction { stack { endpoint { './a' } } } } } }",
            "bad.lua:1: junction: an endpoint's children must be endpoints: they are pushed onto the enclosing stack one screen at a time (put a junction in 'modals' or in a stack); a tab bar cannot be one item of a stack"
        ),
        (
            "return endpoint { 'a', attributes = { badge = {} } }",
            "bad.lua:1: endpoint: attribute 'badge' must be a string, number or boolean (got table)"
        ),
        (
            "return endpoint { 'a/:id', where = { id = 3 } }",
            "bad.lua:1: endpoint: where.id must be a regex string or a function (got number)"
        ),
        (
            "return endpoint { 'a/:id', where = { x = '1' } }",
            "bad.lua:1: endpoint: pattern 'a/:id': 'where' names 'x', which is not a parameter"
        ),
        ("return endpoint { 'a/:' }", "bad.lua:1: endpoint: pattern 'a/:': empty parameter name"),
        (
            "return junction {\n endpoint { 'a' },\n endpoint { 'a' } }",
            "bad.lua:3: endpoint: duplicate id 'a' (first at bad.lua:2)"
        ),
        (
            "return junction { endpoint { 'a', children = { endpoint { 'a/b' } } } }",
            "bad.lua:1: endpoint: 'a' has children but no enclosing stack to push them on"
        ),
        (
            "return { }",
            "bad.lua: the script must return the root node (a switcher, junction, stack or endpoint), not table"
        ),
        (
            "local x = 1",
            "bad.lua: the script must return the root node (a switcher, junction, stack or endpoint), not nothing"
        ),
        ("return endpoint { 'a'", "bad.lua:1: '}' expected near <eof>"),
        ("error('boom')", "bad.lua:1: boom"),
        ("while true do end", "bad.lua:1: deadline exceeded"),
        ("return endpoint { 'a', fallback = 'b' }", "bad.lua:1: endpoint: 'fallback' needs 'enabled'"),
        ("return endpoint { 'a', regex = 'b' }", "bad.lua:1: endpoint: give a pattern or a regex, not both"),
        (
            "return endpoint { 'a', [true] = 1 }",
            "bad.lua:1: endpoint: unexpected key of type boolean (fields are names, nodes are listed)"
        ),
        ("return require 'nope'", "bad.lua:1: require: module 'nope' not found (no file 'nope.lua' beside the script)"),
        (
            "return require '../x'",
            "bad.lua:1: require: '../x' is not a module name (write require \"tabs.books\" for tabs/books.lua)"
        ),
        ("io.write('x')", "bad.lua:1: attempt to index a nil value (global 'io')"),
        // Query schemas (docs/dsl.md, "Query schemas").
        (
            "return endpoint { 'a', query = { sort = 'new' } }",
            "bad.lua:1: endpoint: query.sort: 'new' is not a type (bool, int, number, string, with ? when optional; an enumeration is a list: { \"new\", \"top\" })"
        ),
        (
            "return endpoint { 'a', query = { page = { 'int', defualt = 1 } } }",
            "bad.lua:1: endpoint: query.page has 'defualt' (did you mean 'default'?)"
        ),
        (
            "return endpoint { 'a', query = { page = { 'int', default = 'one' } } }",
            "bad.lua:1: endpoint: query 'page': the default 'one' is not an int"
        ),
        (
            "return endpoint { 'a', query = { page = { 'int', default = 1.5 } } }",
            "bad.lua:1: endpoint: query 'page': the default '1.5' is not an int"
        ),
        (
            "return endpoint { 'a', query = { tags = { 'string', list = true, default = 'x' } } }",
            "bad.lua:1: endpoint: query 'tags': a list takes no default"
        ),
        (
            "return endpoint { 'a', query = { page = { 'int', list = 'yes' } } }",
            "bad.lua:1: endpoint: query.page.list must be a boolean (got string)"
        ),
        (
            "return endpoint { 'a', query = { page = { 'int', where = '(a)\\\\1' } } }",
            "bad.lua:1: endpoint: query.page.where: invalid regular expression '(a)\\1': backreferences are not supported"
        ),
        ("return endpoint { 'a', query = { page = {} } }", "bad.lua:1: endpoint: query.page needs its type"),
        ("return endpoint { 'a', query = { page = 3 } }", "bad.lua:1: endpoint: query.page must be a type"),
        ("return endpoint { 'a', query = { [1] = 'int' } }", "bad.lua:1: endpoint: field 'query' must map query keys"),
        (
            "return endpoint { 'a/:id', query = { id = 'int' } }",
            "bad.lua:1: endpoint: pattern 'a/:id': query 'id' is also a path parameter"
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func loadErrorsNameTheFileLineAndField(index: Int) {
        let (source, message) = Self.cases[index]
        let folder = ScriptFolder()
        let path = folder.write("bad.lua", source)
        var options = RouteScriptOptions()
        options.loadLimits = LuaLimits(instructions: 0, deadline: .milliseconds(50))
        let error = #expect(throws: RouteScriptError.self) { try RouteScriptHost(contentsOf: path, options: options) }
        #expect(error?.kind == .load)
        #expect(error?.message.hasPrefix(message) == true, "got: \(error?.message ?? "no error")")
    }

    @Test func registeredPresentersAreSuggested() {
        let folder = ScriptFolder()
        let path = folder.write("bad.lua", "return endpoint { 'a', presenter = 'BookScren' }")
        let host = RouteScriptHost()
        host.registerPresenter("BookScreen", HostPresenter<HeadlessPresentable>())
        let error = #expect(throws: RouteScriptError.self) { try host.load(contentsOf: path) }
        #expect(error?.message == "bad.lua:1: endpoint: unknown presenter 'BookScren' (did you mean 'BookScreen'?)")
    }

    @Test func aMissingFileIsALoadError() {
        let error = #expect(throws: RouteScriptError.self) { try RouteScriptHost(contentsOf: "/nonexistent/x.lua") }
        #expect(error?.message == "cannot read '/nonexistent/x.lua': No such file or directory")
    }
}
