import RouteCoreOracle
import Testing

@testable import RouteCore

/// A state's parameters are held without a dictionary for a pattern's one or two parameters;
/// whatever the form, they read and compare as the dictionary they stand for.
@Suite struct ParametersTests {
    private static func isListed(_ parameters: Parameters) -> Bool {
        switch parameters.storage {
        case .one, .two, .shortOne, .shortTwo: return true
        case .dictionary: return false
        }
    }

    private static func parameters(_ patterns: [String], _ request: String) throws -> Parameters {
        let compiled = try matcher(patterns)
        let match = try #require(try compiled.match(request))
        return match.parameterList(in: compiled.matcher)
    }

    @Test func oneOrTwoParametersAreListedAndReadAsTheirDictionary() throws {
        let one = try Self.parameters(["books/:id"], "books/42")
        #expect(Self.isListed(one))
        #expect(one.dictionary == ["id": "42"] && one.count == 1 && one["id"] == "42" && one["title"] == nil)
        let two = try Self.parameters(["users/:user/posts/:post"], "users/ann/posts/7")
        #expect(Self.isListed(two))
        #expect(two.dictionary == ["user": "ann", "post": "7"] && two["post"] == "7" && two["user"] == "ann")
        var seen: [String] = []
        two.forEach { seen.append("\($0)=\($1)") }
        #expect(seen == ["user=ann", "post=7"])
        // Three parameters, a rest parameter's joined value and a regex's groups.
        let three = try Self.parameters(["a/:x/:y/:z"], "a/1/2/3")
        #expect(!Self.isListed(three) && three.dictionary == ["x": "1", "y": "2", "z": "3"])
        let rest = try Self.parameters(["files/...path"], "files/a/b")
        #expect(Self.isListed(rest) && rest.dictionary == ["path": "a/b"])
        let regex = try Self.parameters(["regex:animals/(?<kind>\\w+)"], "animals/cat")
        #expect(regex.dictionary == ["kind": "cat"])
        #expect(try Self.parameters(["books"], "books").isEmpty)
    }

    @Test func bothFormsCompareAsDictionaries() throws {
        let listed = try Self.parameters(["users/:user/posts/:post"], "users/ann/posts/7")
        #expect(listed == Parameters(["post": "7", "user": "ann"]))
        #expect(Parameters(["post": "7", "user": "ann"]) == listed)
        #expect(listed != Parameters(["post": "8", "user": "ann"]))
        #expect(listed != Parameters(["post": "7"]))
        #expect(listed != Parameters(["post": "7", "user": "ann", "x": "1"]))
        // The same values under other names (another route's) are other parameters.
        let other = try Self.parameters(["users/:owner/posts/:post"], "users/ann/posts/7")
        #expect(other != listed)
        // Two matches of one route: equal by value, the second value counts.
        let compiled = try matcher(["users/:user/posts/:post"])
        func list(_ request: String) throws -> Parameters {
            try #require(try compiled.match(request)).parameterList(in: compiled.matcher)
        }
        #expect(try list("users/ann/posts/7") == list("users/ann/posts/7"))
        #expect(try list("users/ann/posts/7") != list("users/ann/posts/8"))
        #expect(try list("users/ann/posts/7") != list("users/bob/posts/7"))
    }

    /// Names and values of up to 15 UTF-8 bytes are held as bytes, longer ones as strings;
    /// every form reads back the same text and compares as the strings do (canonical
    /// equivalence included), whichever forms meet.
    @Test func shortTextHoldsUpTo15BytesAndComparesAsStrings() throws {
        for text in ["", "a", "42", "fifteen-bytes-x", "caf\u{E9}", "\u{1F600}", "a\u{0}", "\u{0}"] {
            let short = try #require(ShortText(text), "\(text.debugDescription)")
            #expect(short.string == text && short.string.utf8.elementsEqual(text.utf8))
        }
        #expect(ShortText("sixteen-bytes-xx") == nil && ShortText(String(repeating: "\u{E9}", count: 8)) == nil)
        #expect(ShortText(String(repeating: "\u{E9}", count: 7))?.string == String(repeating: "\u{E9}", count: 7))
        #expect(ShortText("a") != ShortText("a\u{0}") && ShortText("") != ShortText("\u{0}"))
        #expect(ShortText("caf\u{E9}") == ShortText("cafe\u{301}"), "canonically equivalent, as Strings are")
        #expect(ShortText("caf\u{E9}") != ShortText("cafe") && ShortText("ab") != ShortText("ba"))
        // Seeded strings of ASCII, accents, combining marks, emoji and NUL: the same answers
        // as String's, read back byte for byte.
        let alphabet: [String] = ["a", "Z", "0", "-", "\u{0}", "\u{E9}", "e", "\u{301}", "\u{1F600}", "\u{65E5}"]
        var generator = SeededGenerator(seed: 22)
        let texts = (0..<400).map { _ in
            (0..<Int.random(in: 0...9, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
                .joined()
        }
        for text in texts {
            let short = ShortText(text)
            #expect((short == nil) == (text.utf8.count > 15))
            if let short { #expect(short.string.utf8.elementsEqual(text.utf8)) }
        }
        let pairs = Array(zip(texts, texts.shuffled(using: &generator))) + texts.map { ($0, $0) }
        for (left, right) in pairs {
            guard let a = ShortText(left), let b = ShortText(right) else { continue }
            #expect((a == b) == (left == right), "\(left.debugDescription) \(right.debugDescription)")
        }
        // Parameters of both forms, long and short, compare as their dictionaries.
        let long = String(repeating: "x", count: 16)
        let compiled = try matcher(["books/:id", "users/:user/posts/:post"])
        func list(_ request: String) throws -> Parameters {
            try #require(try compiled.match(request)).parameterList(in: compiled.matcher)
        }
        for request in ["books/42", "books/\(long)", "users/ann/posts/7", "users/\(long)/posts/7", "books/caf%C3%A9"] {
            let parameters = try list(request)
            #expect(Self.isListed(parameters))
            #expect(parameters == Parameters(parameters.dictionary) && Parameters(parameters.dictionary) == parameters)
            for name in ["id", "user", "post", "other", long] {
                #expect(parameters[name] == parameters.dictionary[name])
            }
        }
        #expect(try list("books/caf%C3%A9") == list("books/cafe%CC%81"))
        // A name read with a longer spelling that String takes as the same (U+212A, the Kelvin
        // sign, is canonically K; three bytes for one).
        let kelvin = try #require(try matcher(["k/:KKKKKKKKKKKKKKK"]).match("k/1"))
        let named = kelvin.parameterList(in: try matcher(["k/:KKKKKKKKKKKKKKK"]).matcher)
        #expect(named[String(repeating: "\u{212A}", count: 15)] == "1")
        #expect(try list("books/\(long)") != list("books/42") && list("books/42") != list("books/43"))
        let nested = try matcher(["users/:user", "users/:user/posts/:post"])
        let pair = try #require(try nested.match("users/ann/posts/\(long)")).parameterList(in: nested.matcher)
        let restricted = pair.restricted(to: nested.matcher.parameterNames[0])
        #expect(restricted.dictionary == ["user": "ann"] && restricted == Parameters(["user": "ann"]))
        if case .shortOne = restricted.storage {} else { Issue.record("a short pair left alone is held as bytes") }
    }

    @Test func aScreenBelowTheMatchKeepsOnlyItsOwnNames() throws {
        let compiled = try matcher(["users/:user", "users/:user/posts/:post"])
        let match = try #require(try compiled.match("users/ann/posts/7"))
        let parameters = match.parameterList(in: compiled.matcher)
        let below = parameters.restricted(to: compiled.matcher.parameterNames[0])
        #expect(below.dictionary == ["user": "ann"] && below.count == 1)
        #expect(parameters.restricted(to: compiled.matcher.parameterNames[1]) == parameters)
        let none = try matcher(["books", "users/:user/posts/:post"])
        #expect(parameters.restricted(to: none.matcher.parameterNames[0]).isEmpty)
        #expect(Parameters(["user": "ann", "post": "7"]).restricted(to: compiled.matcher.parameterNames[0]) == below)
    }

    /// What a host reads: activations and states keep the dictionary API, and an activation
    /// a host makes from a dictionary equals the reducer's.
    @Test func activationsAndStatesReadDictionaries() throws {
        let tree = try RouteTree(root: .stack([.endpoint("books"), .endpoint("books/:id")], id: "main"))
        let router = Router(tree: tree, presenter: HeadlessPresenter())
        _ = try router.dispatch("books/42")
        #expect(router.state.params == ["id": "42"])
        let activation = try #require(router.store["books/:id"]?.activation)
        #expect(activation.params == ["id": "42"] && activation.parameterCount == 1)
        #expect(activation == Activation(params: ["id": "42"], request: activation.request))
        #expect(activation != Activation(params: ["id": "43"], request: activation.request))
        var pairs: [String] = []
        activation.forEachParameter { pairs.append($0 + "=" + $1) }
        #expect(pairs == ["id=42"])
        var changed = activation
        changed.params = ["id": "7", "x": "1"]
        #expect(changed.params == ["id": "7", "x": "1"] && changed.parameterCount == 2)
        #expect(activation.params == ["id": "42"])
    }
}
