import Foundation
import LunaLive
import LunaTest
import Testing

/// Link corpora (`*.links`): each line a link and the route it opens (or `-`), checked by
/// `luna test` like a test case, with the linkable routes no line opens reported.
@Suite struct LinkCorpusTests {
    static func run(_ file: String) -> TestRunner.FileResult {
        TestRunner(options: .init()).run(file: file)
    }

    @Test func theShopCorpusPassesAndSaysWhatNoLinkOpens() {
        let result = Self.run(repositoryRoot + "/examples/shop.links")
        #expect(result.loadError == nil)
        #expect(result.cases.count == 12)
        #expect(result.cases.allSatisfy { $0.status == .passed }, "\(result.cases.filter { $0.status == .failed })")
        #expect(result.notes == ["links reach 5 of 7 linkable routes; no line opens signin, account"])
        #expect(TestRunner.discover([repositoryRoot + "/examples"]).contains { $0.hasSuffix("/shop.links") })
    }

    @Test func eachWrongLineFailsWithWhatTheLinkDid() throws {
        let folder = try TestFolder()
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/examples/shop.lua", toPath: folder.path + "/shop.lua")
        let file = folder.write(
            "shop.links",
            """
            # expected wrongly, on purpose
            https://shop.example/checkout   checkout
            https://evil.example/home       home
            myshop://home                   -
            https://shop.example/home       home
            """)
        let result = Self.run(file)
        #expect(result.cases.map(\.status) == [.failed, .failed, .failed, .passed])
        #expect(result.cases.map(\.line) == ["\(file):2", "\(file):3", "\(file):4", "\(file):5"])
        let messages = result.cases.compactMap(\.message)
        #expect(messages.count == 3)
        #expect(
            messages[0]
                == "https://shop.example/checkout: expected checkout, got not opened (invalidRequest: shop.lua:37: route 'checkout' has link = false: a link cannot open it)"
        )
        #expect(
            messages[1].hasPrefix(
                "https://evil.example/home: expected home, got not opened (invalidRequest: 'evil.example' is not one of this app's link hosts"
            ))
        #expect(messages[2] == "myshop://home: expected not to open the app, got home")
    }

    /// `KEY=VALUE` fields after the route state the values the screen gets (a path parameter,
    /// or a query item with the schema's defaults filled in); a wrong one fails with both.
    @Test func aLineStatesTheValuesTheScreenGets() throws {
        let passing = Self.run(repositoryRoot + "/examples/catalog.links")
        #expect(passing.loadError == nil)
        #expect(passing.cases.count == 10)
        #expect(passing.cases.allSatisfy { $0.status == .passed }, "\(passing.cases.filter { $0.status == .failed })")
        let folder = try TestFolder()
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/examples/catalog.lua", toPath: folder.path + "/catalog.lua")
        let file = folder.write(
            "catalog.links",
            """
            catalog://products?page=abc   products      page=2 sort=new
            catalog://product/42          product/:id   id=42 ref=mail
            """)
        let result = Self.run(file)
        #expect(result.cases.map(\.status) == [.failed, .failed])
        #expect(
            result.cases.compactMap(\.message) == [
                "catalog://products?page=abc: expected page=2 (got '1')",
                "catalog://product/42: expected ref=mail (got none)",
            ])
        for (line, message) in [
            ("catalog://docs   -   path=a", "a refused link has no values"),
            ("catalog://docs/a   docs/:path+   path", "values are KEY=VALUE (got 'path')"),
        ] {
            let malformed = folder.write("bad.links", "script: catalog.lua\n" + line)
            #expect(Self.run(malformed).loadError == "\(malformed):2: \(message)")
        }
    }

    /// A corpus states the app's flags (a signed-in user); a line is judged on the route the
    /// link matched, and a guard's fallback is printed as one, never as "not opened".
    @Test func aCorpusHasItsOwnFlagsAndAFallbackIsPrintedAsOne() throws {
        let folder = try TestFolder()
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/examples/shop.lua", toPath: folder.path + "/shop.lua")
        let signedOut = folder.write(
            "shop.links",
            """
            flags: signedIn=no
            myshop://account/orders/7       account/orders/:id
            myshop://home                   -
            myshop://checkout               -
            """)
        let result = Self.run(signedOut)
        #expect(result.loadError == nil)
        #expect(result.cases.map(\.status) == [.passed, .failed, .passed])
        #expect(
            result.cases[1].message
                == "myshop://home: expected not to open the app, got home → signin (fallback of junction 'junction:home' at shop.lua:16)"
        )
        let signedIn = folder.write("in.links", "script: shop.lua\nflags: signedIn=yes\nmyshop://account/orders/7 -\n")
        #expect(
            Self.run(signedIn).cases.first?.message
                == "myshop://account/orders/7: expected not to open the app, got account/orders/:id")
        let malformed = folder.write("bad.links", "script: shop.lua\nflags: signedIn\n")
        #expect(Self.run(malformed).loadError == "\(malformed):2: flags: takes NAME=VALUE pairs (got 'signedIn')")
    }

    @Test func aMalformedCorpusOrAMissingScriptDoesNotLoad() throws {
        let folder = try TestFolder()
        let malformed = folder.write("books.links", "books/42 books/:id\nbooks/7\n")
        #expect(
            Self.run(malformed).loadError
                == "\(malformed):2: a line is a link and the route it opens, or - (got 1 fields)")
        let orphan = folder.write("nothing.links", "books/42 books/:id\n")
        #expect(Self.run(orphan).loadError?.contains("nothing.lua") == true)
        // `script:` names another script, relative to the corpus.
        let named = folder.write("named.links", "script: books.lua\nhttps://any.example/books/42 books/:id\n")
        let result = Self.run(named)
        #expect(result.loadError == nil && result.cases.map(\.status) == [.passed])
    }
}
