import Foundation
import LunaInspector
import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// The page in a real browser (Debian's chromium, headless, through chromedriver), on a copy
/// of examples/books.lua that the test edits while the page is open.
@Suite(.serialized, .enabled(if: WebDriver.available, "needs chromium and chromium-driver (scripts/bootstrap)"))
struct BrowserTests {
    /// Screenshots go to .build/screenshots; with LUNA_UPDATE_SCREENSHOTS=1 also to docs/.
    static func keep(_ browser: WebDriver, _ name: String) async throws {
        let path = repositoryRoot + "/.build/screenshots/" + name
        try await browser.screenshot(to: path)
        if ProcessInfo.processInfo.environment["LUNA_UPDATE_SCREENSHOTS"] == "1" {
            let docs = repositoryRoot + "/docs/" + name
            try? FileManager.default.removeItem(atPath: docs)
            try FileManager.default.copyItem(atPath: path, toPath: docs)
        }
    }

    /// `text` as a JavaScript string literal.
    static func jsString(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    static func visible(_ testID: String) -> String {
        "(() => { const e = document.querySelector('[data-testid=\"\(testID)\"]'); return !!e && !e.hidden && e.getClientRects().length > 0; })()"
    }

    @Test func aUserTapsThroughBooksAndEditsTheScriptWhileWatching() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try await WebDriver.withPage(served) { browser in
            // A marker that a page reload would wipe: every update below must arrive live.
            try await browser.script("window.lunaMarker = 42;")

            try await browser.type("address", "today\u{E007}")
            try await browser.wait("the Today screen", Self.visible("screen-today"))

            // The route table is patched, not redrawn: the same row element turns current.
            try await browser.script("window.lunaRow = document.querySelector('[data-testid=\"route-books/:id\"]');")

            // Tap the Books tab, then a book row (its id asked in the parameter form).
            try await browser.click("tab-stack:books")
            try await browser.wait("the Books screen", Self.visible("screen-books"))
            try await browser.click("row-books/:id")
            try await browser.type("param-id", "42\u{E007}")
            try await browser.wait("the book", Self.visible("screen-books/:id"))
            #expect(served.session.withHost { $0.state.request?.path } == "books/42")
            // The result line names the path the form filled in, not the pattern.
            try await browser.wait(
                "the result", "document.getElementById('result').textContent === 'books/42 → books/:id'")
            // The plan's header in words, not the event's internal name.
            #expect(
                try await browser.script("return document.getElementById('plan-origin').textContent;") as? String
                    == "dispatched in the page")
            #expect(
                try await browser.script(
                    "return window.lunaRow === document.querySelector('[data-testid=\"route-books/:id\"]') && window.lunaRow.classList.contains('current');"
                ) as? Bool == true, "the table was patched, not redrawn")

            // Back pops the stack.
            try await browser.click("back-stack:books")
            try await browser.wait("the book gone", "!document.querySelector('[data-testid=\"screen-books/:id\"]')")
            #expect(served.session.withHost { $0.state.request?.path } == "books")

            // A deep link presents the story as a sheet; closing it dispatches the presenter.
            try await browser.type("address", "myapp://today/story/news/7\u{E007}")
            try await browser.wait("the sheet", Self.visible("sheet-today/story/:type/:id"))
            try await Self.keep(browser, "inspector-sheet.png")
            try await browser.click("close-today/story/:type/:id")
            try await browser.wait(
                "the sheet gone", "!document.querySelector('[data-testid=\"sheet-today/story/:type/:id\"]')")
            #expect(served.session.withHost { $0.state.request?.path } == "today")

            // A saved title change shows without reloading the page.
            let original = try String(contentsOfFile: served.script, encoding: .utf8)
            served.save(
                original.replacingOccurrences(
                    of: #"endpoint { "today", title = "Today""#, with: #"endpoint { "today", title = "Today's picks""#))
            try await browser.wait(
                "the new title",
                "document.querySelector('[data-testid=\"screen-today\"] h3').textContent === \"Today's picks\"")
            try await browser.wait(
                "the reload toast", "(window.lunaToasts || []).some((t) => t.startsWith('reloaded in '))")
            // The reload sent the routes again (a title is in them): the table is patched by
            // route id, so the rows that stayed are the same elements.
            #expect(
                try await browser.script(
                    "return window.lunaRow === document.querySelector('[data-testid=\"route-books/:id\"]') && document.querySelectorAll('#routes tr').length === \(served.session.withHost { $0.routeTree?.endpoints.count ?? 0 });"
                ) as? Bool == true, "a reload patched the table")

            // A syntax error shows the banner; the old tree stays usable; the fix clears it.
            served.save("return stack { endpoint { 'a' ")
            try await browser.wait("the banner", Self.visible("banner"))
            let banner =
                try await browser.script("return document.querySelector('[data-testid=\"banner\"]').textContent;")
                as? String
            #expect(banner?.contains("books.lua:1:") == true)
            try await browser.click("tab-stack:books")
            try await browser.wait("the old tree still works", Self.visible("screen-books"))
            served.save(original)
            try await browser.wait("the banner gone", "!(\(Self.visible("banner")))")

            // Travel back in the timeline to the book.
            let bookEntry = served.session.history.firstIndex { $0.request == "books/42" } ?? 0
            try await browser.click("history-\(bookEntry)")
            try await browser.wait("the book again", Self.visible("screen-books/:id"))
            #expect(served.session.withHost { $0.state.request?.path } == "books/42")
            #expect(try await browser.script("return window.lunaMarker;") as? Int == 42, "the page never reloaded")
        }
    }

    /// A save that removes, adds and reorders routes: the table ends in the new order, the rows
    /// that stayed are the same elements, the gone ones are gone.
    @Test func aSaveThatMovesRoutesPatchesTheTableInOrder() async throws {
        let served = try ServedScript(
            example: "moves.lua",
            source:
                "return stack { endpoint { 'a', children = { endpoint { './:id' } } }, endpoint { 'b' }, endpoint { 'c' } }"
        )
        defer { served.stop() }
        try await WebDriver.withPage(served) { browser in
            let rows = "[...document.querySelectorAll('#routes tr')].map((r) => r.dataset.testid).join(' ')"
            try await browser.wait("the table", "\(rows) === 'route-a route-b route-c route-a/:id'")
            try await browser.script(
                "window.lunaA = document.querySelector('[data-testid=\"route-a\"]'); window.lunaC = document.querySelector('[data-testid=\"route-c\"]');"
            )
            served.save("return stack { endpoint { 'c' }, endpoint { 'd' }, endpoint { 'a' } }")
            try await browser.wait("the new table", "\(rows) === 'route-c route-d route-a'")
            #expect(
                try await browser.script(
                    "return window.lunaA === document.querySelector('[data-testid=\"route-a\"]') && window.lunaC === document.querySelector('[data-testid=\"route-c\"]');"
                ) as? Bool == true, "kept rows are the same elements")
            // A name given in place: the reload sends that row only, and the page patches its cell.
            served.save("return stack { endpoint { 'c' }, endpoint { 'd', name = 'dee' }, endpoint { 'a' } }")
            try await browser.wait(
                "the name", "document.querySelector('[data-testid=\"route-d\"]').cells[1].textContent === 'dee'")
            #expect(try await browser.script("return \(rows);") as? String == "route-c route-d route-a")
            #expect(
                try await browser.script("return window.lunaA === document.querySelector('[data-testid=\"route-a\"]');")
                    as? Bool == true)
            // The row goes where it now points: a click opens d.
            try await browser.click("route-d")
            try await browser.wait("d", Self.visible("screen-d"))
        }
    }

    /// The snapshot holds the newest 100 history entries; older ones come a page at a time.
    @Test func olderHistoryComesAPageAtATime() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        for index in 0..<150 { try served.session.dispatch(index % 2 == 0 ? "books/\(index)" : "today") }
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the newest entry", Self.visible("history-149"))
            #expect(
                try await browser.script("return document.querySelectorAll('[data-testid^=\"history-\"]').length;")
                    as? Int == 101, "100 entries and the 'older' item")
            // Undo and redo from the page.
            try await browser.click("undo")
            try await browser.wait(
                "undone",
                "(e => !!e && e.classList.contains('current'))(document.querySelector('[data-testid=\"history-148\"]'))"
            )
            try await browser.click("redo")
            try await browser.wait(
                "redone",
                "(e => !!e && e.classList.contains('current'))(document.querySelector('[data-testid=\"history-149\"]'))"
            )
            try await browser.click("history-older")
            try await browser.wait("the oldest entry", Self.visible("history-0"))
            #expect(
                try await browser.script("return document.querySelector('[data-testid=\"history-older\"]') === null;")
                    as? Bool == true)
            // A reload's warnings show in a banner that stays until the next reload.
            served.save("return stack { endpoint { 'users/:id' }, endpoint { 'users/:name' } }")
            try await browser.wait("the warnings", Self.visible("warnings"))
        }
    }

    /// The page's menu is the command table's: `copy-state` (a command the page knows nothing
    /// of) is offered, and its answer opens in a window to copy.
    @Test func theMenuOffersCopyState() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42?title=Dune")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the menu", Self.visible("menu-copy-state"))
            try await browser.click("menu-copy-state")
            try await browser.wait("the document", "document.getElementById('document').open")
            let text =
                try await browser.script("return document.getElementById('document-text').textContent;") as? String
            let value = try JSONSerialization.jsonObject(with: Data((text ?? "").utf8)) as? [String: Any]
            #expect(value?["request"] as? String == "books/42?title=Dune", "\(text ?? "")")
            let restore = try #require(value?["restore"] as? String)
            #expect(try RouterState(restoring: restore).request?.original == "books/42?title=Dune")
            #expect(
                try await browser.script("return String(window.getSelection());") as? String == text,
                "selected, to copy with the keyboard")
        }
    }

    @Test func phoneAndPadScreenshots() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try await WebDriver.withPage(served) { browser in
            try await browser.type("address", "books/42?title=Dune\u{E007}")
            try await browser.wait("the book", Self.visible("screen-books/:id"))
            try await Self.keep(browser, "inspector-phone.png")
            try await browser.click("device-pad")
            try await browser.wait("the pad frame", "document.getElementById('device').classList.contains('pad')")
            try await browser.wait("the book on the pad", Self.visible("screen-books/:id"))
            try await Self.keep(browser, "inspector-pad.png")
        }
    }

    /// The URL is the state: a link with `?path=` opens that screen, the address follows every
    /// change, and the browser's Back and Forward travel in the session's history.
    @Test func theAddressBarIsTheStateAndBackAndForwardTravel() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        let browser = try await WebDriver()
        do {
            try await browser.open(served.inspector.url + "&path=books/42%3Ftitle%3DDune")
            try await browser.wait("the linked book", Self.visible("screen-books/:id"))
            #expect(served.session.withHost { $0.state.request?.original } == "books/42?title=Dune")
            try await browser.wait(
                "the address of the book",
                "new URLSearchParams(location.search).get('path') === 'books/42?title=Dune'")

            // A change made elsewhere (the REPL) moves the address too, as a new page.
            let before = try await browser.script("return history.length;") as? Int ?? 0
            try served.session.dispatch("today")
            try await browser.wait(
                "the address of today", "new URLSearchParams(location.search).get('path') === 'today'")
            #expect(try await browser.script("return history.length;") as? Int == before + 1)

            // Back: the session travels to the book; Forward: back to today.
            try await browser.script("history.back();")
            try await browser.wait("the book again", Self.visible("screen-books/:id"))
            #expect(served.session.withHost { $0.state.request?.original } == "books/42?title=Dune")
            try await browser.wait(
                "the address after Back", "new URLSearchParams(location.search).get('path') === 'books/42?title=Dune'")
            try await browser.script("history.forward();")
            try await browser.wait("today again", Self.visible("screen-today"))
            #expect(served.session.withHost { $0.state.request?.original } == "today")
            // The token stays in the address: the link can be shared with whoever holds it.
            #expect(
                try await browser.script("return new URLSearchParams(location.search).get('token');") as? String
                    == served.token)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// After sign-out, the browser's Back to an entry shown while signed in does not show it:
    /// the session's travel goes through the guards (the entry's request goes to Sign in).
    @Test func browserBackAfterSignOutDoesNotShowTheSignedInScreen() async throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        let browser = try await WebDriver()
        do {
            try await browser.open(served.inspector.url + "&path=account/orders/1001")
            try await browser.wait("the order", Self.visible("screen-account/orders/:id"))
            try served.session.perform(.flag("signedIn", "no"))
            try await browser.wait("the sign-in screen", Self.visible("screen-signin"))
            try await browser.script("history.back();")
            // The travel ran: the address went back, and the session judged the entry again.
            try await browser.wait(
                "the address after Back",
                "new URLSearchParams(location.search).get('path') === 'account/orders/1001'")
            try await browser.wait("sign-in, still", Self.visible("screen-signin"))
            #expect(served.session.withHost { $0.presentable("account/orders/:id") } == nil)
            #expect(
                try await browser.script(
                    "return !document.querySelector('[data-testid=\"screen-account/orders/:id\"]');") as? Bool == true)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// A message the page cannot read — not JSON, not an object, an unknown type, or one whose
    /// contents break drawing — is reported in a toast and dropped; the page goes on.
    @Test func aMalformedMessageIsReportedAndThePageGoesOn() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the books", Self.visible("screen-books"))
            let cases = [
                ("{not json", "ignored a message the page cannot read ({not json)"),
                ("[1,2]", "ignored a message the page cannot read ([1,2])"),
                ("{\"type\":\"nonsense\"}", "ignored a message the page cannot read ({\"type\":\"nonsense\"})"),
                ("{\"type\":\"event\"}", "a message could not be shown: "),
            ]
            for (text, said) in cases {
                try await browser.script("window.luna.receiveText(arguments[0]);", [text])
                try await browser.wait(
                    "the toast for \(text)",
                    "document.getElementById('toast').textContent.startsWith(\(Self.jsString(said)))")
            }
            try served.session.dispatch("books/42")
            try await browser.wait("the book, still drawn", Self.visible("screen-books/:id"))
        }
    }

    /// The seen layout bugs: the title stays centred on a root screen (the hidden back button
    /// keeps its column), the History list shows the entry on screen, the scrollbar's room is
    /// kept, and the catch-all's row asks for a path instead of dispatching the empty request.
    @Test func theLayoutKeepsItsPlaceAndTheCatchAllRowAsksForAPath() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books")
        for index in 0..<40 { try served.session.dispatch("books/\(index)") }
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the book", Self.visible("screen-books/:id"))
            // Travel to the root screen of the stack: no back button, the title centred.
            try served.session.travel(to: 0)
            try await browser.wait("the books root", Self.visible("screen-books"))
            let centred =
                try await browser.script(
                    """
                    const back = document.querySelector('[data-testid="back-stack:books"]');
                    const bar = back.parentElement.getBoundingClientRect();
                    const title = back.parentElement.querySelector('.title').getBoundingClientRect();
                    return [back.classList.contains('gone'), Math.abs((title.left + title.right) / 2 - (bar.left + bar.right) / 2)];
                    """) as? [Any]
            #expect(centred?.first as? Bool == true)
            #expect((centred?.last as? Double ?? 99) < 2, "the title is off centre by \(centred?.last ?? "?") px")
            // The History list shows its current entry (the first, scrolled back to the top).
            try served.session.travel(to: 40)
            try await browser.wait("the last book", Self.visible("screen-books/:id"))
            try served.session.travel(to: 1)
            try await browser.wait(
                "the first entries in view",
                """
                (() => { const list = document.getElementById('history'); const item = list.querySelector('li.current');
                  return !!item && item.offsetTop >= list.scrollTop && item.offsetTop + item.offsetHeight <= list.scrollTop + list.clientHeight; })()
                """)
            try served.session.travel(to: 40)
            try await browser.wait(
                "the last entry in view",
                """
                (() => { const list = document.getElementById('history'); const item = list.querySelector('li.current');
                  return !!item && list.scrollTop > 0 && item.offsetTop + item.offsetHeight <= list.scrollTop + list.clientHeight + 1; })()
                """)
            #expect(
                try await browser.script("return getComputedStyle(document.documentElement).scrollbarGutter;")
                    as? String
                    == "stable")
            // The catch-all's row: a form for the path, then that path.
            try await browser.click("route-not-found")
            try await browser.wait("the path form", Self.visible("param-rest"))
            #expect(served.session.withHost { $0.state.request?.original } == "books/39")
            try await browser.type("param-rest", "no/such/page\u{E007}")
            try await browser.wait("the not-found screen", Self.visible("screen-not-found"))
            #expect(served.session.withHost { $0.state.request?.original } == "no/such/page")
        }
    }

    /// The selected tab tapped again pops its stack to the root (as iOS does), Esc closes the
    /// top sheet, and the page follows the system's dark mode.
    @Test func tabRetapEscapeAndDarkMode() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        try served.session.dispatch("books/42")
        let browser = try await WebDriver(arguments: ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"])
        do {
            try await browser.open(served.inspector.url)
            try await browser.wait("the book", Self.visible("screen-books/:id"))
            try await browser.click("tab-stack:books")
            try await browser.wait("the stack's root", Self.visible("screen-books"))
            #expect(served.session.withHost { $0.state.request?.original } == "books")

            try served.session.dispatch("today/story/news/7")
            try await browser.wait("the story sheet", Self.visible("sheet-today/story/:type/:id"))
            try await browser.script(
                "document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));")
            try await browser.wait("the sheet closed", "!document.querySelector('.sheet')")
            #expect(served.session.withHost { $0.state.request?.original } == "today")

            #expect(
                try await browser.script("return matchMedia('(prefers-color-scheme: dark)').matches;") as? Bool == true)
            let surface =
                try await browser.script(
                    "return getComputedStyle(document.querySelector('.panel')).backgroundColor;") as? String
            #expect(surface == "rgb(28, 28, 30)", "the panels in dark mode: \(surface ?? "?")")
            try await Self.keep(browser, "inspector-dark.png")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// WCAG contrast ratios in the page, light and dark: the "live" text against the bar it
    /// sits on (4.5:1, text), the device's bezel against the page (3:1, a frame to see), the
    /// plan's operations against their panel. In dark mode the bezel was #111 on black (1.1:1)
    /// and "live" #1a7f37 on #1c1c1e (3.4:1).
    @Test(arguments: [false, true])
    func theFrameAndTheLiveTextReadInBothModes(dark: Bool) async throws {
        let served = try ServedScript()
        defer { served.stop() }
        let arguments = dark ? ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] : []
        let browser = try await WebDriver(arguments: arguments)
        do {
            try await browser.open(served.inspector.url)
            try await browser.wait("the socket", "document.getElementById('connection').textContent === 'live'")
            try served.session.dispatch("today/story/news/7")
            try served.session.dispatch("books/42")
            try await browser.wait("the plan", "document.querySelectorAll('#plan li').length > 0")
            #expect(
                try await browser.script("return matchMedia('(prefers-color-scheme: dark)').matches;") as? Bool == dark)
            let ratios = try #require(
                try await browser.script(
                    """
                    const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
                    const luminance = (text) => {
                      const [r, g, b] = rgb(text).map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
                      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
                    };
                    const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
                    const style = (selector) => getComputedStyle(document.querySelector(selector));
                    const result = {
                      live: ratio(style('#connection').color, style('.top').backgroundColor),
                      bezel: ratio(style('#device').backgroundColor, style('body').backgroundColor),
                    };
                    const panel = getComputedStyle(document.querySelector('#plan').closest('.panel')).backgroundColor;
                    for (const item of document.querySelectorAll('#plan li[class^="op-"]')) {
                      result[item.className] = ratio(getComputedStyle(item).color, panel);
                    }
                    return result;
                    """) as? [String: Double])
            #expect((ratios["live"] ?? 0) >= 4.5, "live text: \(ratios)")
            #expect((ratios["bezel"] ?? 0) >= 3, "bezel: \(ratios)")
            let operations = ratios.filter { $0.key.hasPrefix("op-") }
            #expect(!operations.isEmpty, "the plan's operations were found: \(ratios)")
            for (name, value) in operations { #expect(value >= 4.5, "\(name): \(ratios)") }
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// A screen's sample rows (`rows = { { "Dune", go = … } }`) are drawn on it; a tap
    /// dispatches the row's request; an action sets its flags, then goes.
    @Test func aScreensSampleRowsAreTappable() async throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        try served.session.dispatch("home")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the first row", Self.visible("sample-home-0"))
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-testid=\"sample-home-1\"]').textContent;") as? String
                    == "Emma")
            try await browser.click("sample-home-1")
            try await browser.wait("the product", Self.visible("screen-product/:id"))
            #expect(served.session.withHost { $0.state.request?.original } == "product/7?title=Emma")
            // An action: signed out, the gate shows Sign in; its button sets the flag, then goes home.
            try served.session.perform(.flag("signedIn", "no"))
            try await browser.wait("the sign-in screen", Self.visible("action-signin-0"))
            try await browser.click("action-signin-0")
            try await browser.wait("home again", Self.visible("screen-home"))
            #expect(served.session.withHost { $0.options.flags["signedIn"] } == "yes")
            #expect(served.session.withHost { $0.state.request?.original } == "home")
        }
    }

    /// examples/bank.lua on the device: a row that pushes the same screen again, an action that
    /// opens a sheet over the pushed screen, a row that goes back with a result, the sheet's ×
    /// returning to the pushed screen as it was — and the address, which then carries the
    /// restoration string, restores that state in a fresh session instead of dispatching its path.
    @Test func pushASheetOverAnyScreenAndAResultOnTheDevice() async throws {
        let served = try ServedScript(example: "bank.lua")
        defer { served.stop() }
        try served.session.dispatch("accounts/1234")
        var address: (path: String, state: String) = ("", "")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the account's rows", Self.visible("sample-accounts/:account-0"))
            try await browser.click("sample-accounts/:account-0")
            try await browser.wait("the pushed account", Self.visible("screen-accounts/:account#2"))
            #expect(served.session.history.last?.commands == [.push("accounts/5678")])
            try await browser.wait("the state in the address", "!!new URLSearchParams(location.search).get('state')")
            try await browser.click("action-accounts/:account#2-0")
            try await browser.wait("the transfer sheet", Self.visible("screen-transfer"))
            try await browser.click("action-transfer-0")
            try await browser.wait("the payee picker", Self.visible("sample-transfer/payee-0"))
            try await browser.click("sample-transfer/payee-0")
            try await browser.wait(
                "the form with the payee",
                "(document.querySelector('[data-testid=\"screen-transfer\"]') || {textContent: ''}).textContent.includes('Transfer to Ada')"
            )
            #expect(
                served.session.history.last?.commands
                    == [.returning(["name": .string("Ada"), "payee": .string("ada")])])
            try await browser.wait(
                "the result among the facts",
                "document.querySelector('[data-testid=\"screen-transfer\"]').textContent.includes('← name')")
            let path = try await browser.script("return new URLSearchParams(location.search).get('path');") as? String
            let state = try await browser.script("return new URLSearchParams(location.search).get('state');") as? String
            address = (path ?? "", state ?? "")
            try await browser.click("close-transfer-flow")
            try await browser.wait(
                "the pushed account again",
                "!document.querySelector('[data-testid=\"screen-transfer\"]') && "
                    + Self.visible("screen-accounts/:account#2"))
            #expect(served.session.history.last?.commands == [.close])
            #expect(served.session.withHost { $0.state.request?.original } == "accounts/5678")
        }
        #expect(address.path == "transfer" && address.state.contains("accounts/:account#2"), "\(address)")

        // A fresh session opened at that address shows that state: restored, not dispatched.
        let fresh = try ServedScript(example: "bank.lua")
        defer { fresh.stop() }
        let browser = try await WebDriver()
        do {
            let query = address.state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try await browser.open(fresh.inspector.url + "&path=transfer&state=" + query)
            try await browser.wait("the restored sheet", Self.visible("screen-transfer"))
            #expect(fresh.session.history.last?.commands.first?.op == "restore")
            #expect(fresh.session.withHost { $0.state.restorationString } == address.state)
            #expect(fresh.session.withHost { $0.presentable("accounts/:account#2") } != nil)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// The menu's verify: `luna verify` on the session's script, its findings listed with their
    /// counterexamples; Replay plays one on the session from the app's start.
    @Test func theChecksWindowListsFindingsAndReplaysOne() async throws {
        let served = try ServedScript(
            example: "kiosk.lua",
            source: """
                return switcher { initial = "home",
                  stack { endpoint { "home", rows = { { "Kiosk", go = "kiosk" } }, children = { endpoint { "./about" } } } },
                  endpoint { "kiosk", title = "Kiosk" },
                }
                """)
        defer { served.stop() }
        try served.session.dispatch("home/about")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the menu", Self.visible("menu-verify"))
            try await browser.click("menu-verify")
            try await browser.wait("the finding", Self.visible("finding-0"))
            let text =
                try await browser.script(
                    "return document.querySelector('[data-testid=\"finding-0\"]').textContent;") as? String ?? ""
            #expect(text.contains("dead_end") && text.contains("kiosk.lua:3") && text.contains("go kiosk"), "\(text)")
            // The walk did not touch the session.
            #expect(served.session.withHost { $0.state.request?.original } == "home/about")
            try await browser.click("replay-0")
            try await browser.wait("the kiosk", Self.visible("screen-kiosk"))
            #expect(served.session.withHost { $0.state.request?.original } == "kiosk")
            #expect(served.session.history.suffix(2).map { $0.commands.first?.op } == ["restore", "dispatch"])
        }
        // `luna verify`'s link: a page opened with `&replay=…` plays the counterexample.
        try served.session.dispatch("home/about")
        let verification = try Verification.run(try RouteScriptHost(contentsOf: served.script))
        let finding = try #require(verification.findings.first)
        let browser = try await WebDriver()
        do {
            try await browser.open(served.inspector.url + "&" + verification.replayQuery(finding))
            try await browser.wait("the replayed kiosk", Self.visible("screen-kiosk"))
            #expect(served.session.withHost { $0.state.request?.original } == "kiosk")
            #expect(try await browser.script("return location.search.includes('replay=');") as? Bool == false)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// A child screen's row names only the parameters its screen does not give: on a
    /// transaction, "Dispute", not "Dispute (:account, :tx)" (no form is asked).
    @Test func aChildRowNamesOnlyWhatAFormWouldAsk() async throws {
        let served = try ServedScript(
            example: "nested.lua",
            source: """
                return stack { initial = "a/1/t/2",
                  endpoint { "a/:account", title = "Account", children = {
                    endpoint { "./t/:tx", title = "Payment", children = {
                      endpoint { "./dispute", title = "Dispute" }, endpoint { "./note/:n", title = "Note" } } } } } }
                """)
        defer { served.stop() }
        try served.session.dispatch("a/1/t/2")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the payment", Self.visible("screen-a/:account/t/:tx"))
            func label(_ id: String) async throws -> String? {
                try await browser.script("return document.querySelector('[data-testid=\"row-\(id)\"]').textContent;")
                    as? String
            }
            #expect(try await label("a/:account/t/:tx/dispute") == "Dispute")
            #expect(try await label("a/:account/t/:tx/note/:n") == "Note (:n)")
        }
    }

    /// A screen's own rows replace the generated rows of the routes they reach ("First" goes
    /// to `home/a/1`: no "A 1" and "A 2" rows besides it); a child no row reaches keeps its
    /// generated row, drawn as scaffolding; "Rows for child screens" off hides those too, and
    /// the browser remembers the choice.
    @Test func theScriptsRowsReplaceGeneratedOnesAndTheRestCanBeHidden() async throws {
        let served = try ServedScript(
            example: "rows.lua",
            source: """
                return stack { initial = "home",
                  endpoint { "home", title = "Home", rows = { { "First", go = "home/a/1" } }, children = {
                    endpoint { "./a/:id", title = "A", sample = { id = { "1", "2" } } },
                    endpoint { "./b", title = "B" } } } }
                """)
        defer { served.stop() }
        try served.session.dispatch("home")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the declared row", Self.visible("sample-home-0"))
            func shown() async throws -> [String] {
                try await browser.script(
                    "return [...document.querySelectorAll('.page .rows button')].map((b) => b.dataset.testid + (b.classList.contains('generated') ? ' generated' : ''));"
                ) as? [String] ?? []
            }
            #expect(try await shown() == ["sample-home-0", "row-home/b generated"])
            #expect(
                try await browser.script(
                    "return getComputedStyle(document.querySelector('[data-testid=\"row-home/b\"]')).fontStyle;")
                    as? String == "italic")
            try await browser.click("generated-rows")
            try await browser.wait(
                "the generated row hidden", "!document.querySelector('[data-testid=\"row-home/b\"]')")
            #expect(try await shown() == ["sample-home-0"])
            try await browser.open(served.inspector.url)
            try await browser.wait("the page again", Self.visible("sample-home-0"))
            #expect(try await shown() == ["sample-home-0"])
            #expect(
                try await browser.script("return document.getElementById('generated-rows').checked;") as? Bool == false)
            try await browser.click("generated-rows")
            try await browser.wait("the generated row back", Self.visible("row-home/b"))
        }
    }

    /// A click on the map opens a nested screen with the first samples of the screens above
    /// it too: a transaction needs its account, which the account's samples give (the form
    /// asked for `:account`).
    @Test func aMapClickFillsParametersFromTheScreensAbove() async throws {
        let served = try ServedScript(
            example: "samples.lua",
            source: """
                return stack { initial = "home", endpoint { "home", children = {
                  endpoint { "a/:account", title = "Account", sample = { account = { "1234" } }, children = {
                    endpoint { "./t/:tx", title = "Payment", sample = { tx = { "t9" } } } } } } } }
                """)
        defer { served.stop() }
        try served.session.dispatch("home")
        try await WebDriver.withPage(served) { browser in
            try await browser.click("view-map")
            try await browser.wait("the map", Self.visible("map-node-a/:account/t/:tx"))
            try await browser.click("map-node-a/:account/t/:tx")
            try await browser.wait(
                "the payment on the map",
                "document.querySelector('[data-testid=\"map-node-a/:account/t/:tx\"]').classList.contains('here')")
            #expect(try await browser.script("return document.getElementById('params').hidden;") as? Bool == true)
        }
        #expect(served.session.withHost { $0.state.request?.path } == "a/1234/t/t9")
    }

    /// A sheet holding a stack shows one title bar, its stack's (it showed the sheet's title
    /// above the stack's navigation bar); a sheet holding one screen keeps its own.
    @Test func aSheetWithAStackShowsOneTitleBar() async throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        try served.session.dispatch("checkout")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the checkout", Self.visible("sheet-stack:checkout"))
            let titles =
                try await browser.script(
                    """
                    const sheet = document.querySelector('[data-testid="sheet-stack:checkout"]');
                    return [sheet.querySelectorAll('.grabber strong').length,
                            [...sheet.querySelectorAll('.navbar .title')].map((e) => e.textContent)];
                    """) as? [Any]
            #expect(titles?[0] as? Int == 0, "\(titles ?? [])")
            #expect(titles?[1] as? [String] == ["Checkout"], "\(titles ?? [])")
            #expect(
                try await browser.script("return !!document.querySelector('[data-testid=\"close-stack:checkout\"]');")
                    as? Bool == true)
            try await Self.keep(browser, "inspector-sheet-stack.png")
        }
    }

    /// The flow map of a six-level app fits a 1,400-pixel window: the map scrolls inside its
    /// own frame and the page never scrolls sideways (the banking app's route table ended at
    /// x = 1429).
    @Test func aDeepFlowMapFitsTheWindow() async throws {
        let bank = try String(contentsOfFile: repositoryRoot + "/../shared/fixtures/bank.lua", encoding: .utf8)
        let served = try ServedScript(example: "bank.lua", source: bank)
        defer { served.stop() }
        try served.session.dispatch("accounts/1234")
        try await WebDriver.withPage(served) { browser in
            try await browser.click("view-map")
            try await browser.wait("the map", Self.visible("map-node-accounts"))
            let width =
                try await browser.script(
                    "return [document.documentElement.scrollWidth, window.innerWidth];") as? [Int] ?? []
            #expect(width.count == 2 && width[0] <= width[1], "page \(width)")
            let table =
                try await browser.script(
                    "const r = document.getElementById('routes').getBoundingClientRect(); return [Math.round(r.right), window.innerWidth];"
                ) as? [Int] ?? []
            #expect(table.count == 2 && table[0] <= table[1], "route table \(table)")
            try await Self.keep(browser, "inspector-map-deep.png")
        }
    }

    /// The flow map: every screen, tab bar and switcher of shop.lua joined by its push, modal,
    /// tab, section and guard edges; the screen shown and those a tap away marked; a click goes.
    @Test func theFlowMapDrawsTheTreeAndGoesWhereClicked() async throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        try served.session.dispatch("home")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("home", Self.visible("screen-home"))
            // The address bar's example is the script's own: a path, its scheme, a named route.
            let placeholder = try await browser.script("return document.getElementById('request').placeholder;")
            #expect(placeholder as? String == "signin · myshop://signin · order|{…}", "\(placeholder ?? "")")
            try await browser.click("view-map")
            try await browser.wait("the map", Self.visible("map-node-home"))
            let errors = try await browser.script("return window.lunaErrors || [];") as? [String]
            #expect(errors == [], "page errors: \(errors ?? [])")
            #expect(try await browser.script("return document.getElementById('device').hidden;") as? Bool == true)
            func classes(_ id: String) async throws -> String {
                try await browser.script(
                    "return document.querySelector('[data-testid=\"map-node-\(id)\"]').getAttribute('class');")
                    as? String ?? ""
            }
            #expect(try await classes("home").contains("here"))
            #expect(try await classes("home").contains("initial"))
            #expect(try await classes("product/:id").contains("near"), "home pushes the product")
            #expect(try await classes("account").contains("near"), "a tab is a tap away")
            #expect(try await !classes("checkout").contains("near"), "the checkout is two taps away")
            // One edge of each kind, as the tree declares them.
            for edge in [
                "push-home-product/:id", "modal-cart-checkout", "tab-junction:home-account",
                "section-root-signin",
                "guard-junction:home-signin", "push-checkout-checkout/pay",
            ] {
                #expect(
                    try await browser.script(
                        "return !!document.querySelector('[data-testid=\"map-edge-\(edge)\"]');") as? Bool == true,
                    "edge \(edge)")
            }
            #expect(
                try await browser.script("return document.querySelectorAll('[data-testid^=\"map-node-\"]').length;")
                    as? Int == 12)
            try await Self.keep(browser, "inspector-map.png")
            // The view is in the URL: a link opens the map.
            #expect(
                try await browser.script("return new URLSearchParams(location.search).get('view');") as? String == "map"
            )
            try await browser.open(served.inspector.url + "&view=map")
            try await browser.wait("the map from a link", Self.visible("map-node-home"))
            // A click on a screen goes there; the marks follow.
            try await browser.click("map-node-account")
            try await browser.wait(
                "account shown on the map",
                "document.querySelector('[data-testid=\"map-node-account\"]').classList.contains('here')")
            #expect(served.session.withHost { $0.state.request?.original } == "account")
            #expect(try await classes("account/orders/:id").contains("near"))
            // A screen with a parameter and no sample: the form opens on the device.
            try await browser.click("map-node-product/:id")
            try await browser.wait("the form on the device", Self.visible("param-id"))
            try await browser.type("param-id", "42\u{E007}")
            try await browser.wait("the product", Self.visible("screen-product/:id"))
            #expect(served.session.withHost { $0.state.request?.original } == "product/42")
        }
    }

    /// A gate that waits (`pending`) is shown above the device: what it keeps and the time left
    /// (examples/recipes/splash.lua).
    @Test func aWaitingGateIsShown() async throws {
        let served = try ServedScript(
            example: "splash.lua",
            source: try String(contentsOfFile: repositoryRoot + "/examples/recipes/splash.lua", encoding: .utf8))
        defer { served.stop() }
        try served.session.dispatch("home/orders/7")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the waiting note", Self.visible("waiting"))
            #expect(
                try await browser.script("return document.querySelector('[data-testid=\"waiting\"]').textContent;")
                    as? String == "waiting for home/orders/7 (5 s left)")
            _ = try served.session.perform(.flag("session", "valid"))
            try await browser.wait("the note gone", "document.querySelector('[data-testid=\"waiting\"]').hidden")
            #expect(served.session.withHost { $0.state.request?.original } == "home/orders/7")
        }
    }

    /// A leave guard's question on the device: the page's change waits, Cancel keeps the
    /// transfer, Confirm makes the change (examples/recipes/discard.lua).
    @Test func aLeaveGuardsQuestionIsAskedOnTheDevice() async throws {
        let served = try ServedScript(
            example: "discard.lua",
            source: try String(
                contentsOfFile: repositoryRoot + "/examples/recipes/discard.lua", encoding: .utf8))
        defer { served.stop() }
        try served.session.dispatch("accounts/transfer")
        _ = try served.session.perform(.flag("amount", "50"))
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the route table", Self.visible("route-accounts"))
            try await browser.click("route-accounts")
            try await browser.wait("the question", Self.visible("question-text"))
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-testid=\"question-text\"]').textContent;") as? String
                    == "Discard this transfer of 50?")
            #expect(served.session.withHost { $0.pendingQuestion?.text } == "Discard this transfer of 50?")
            try await browser.click("question-cancel")
            // Cancel: nothing moved, nothing is pending.
            for _ in 0..<50 where served.session.withHost({ $0.pendingQuestion != nil }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(served.session.withHost { $0.pendingQuestion == nil })
            #expect(served.session.withHost { $0.state.request?.original } == "accounts/transfer")
            try await browser.click("route-accounts")
            try await browser.wait("the question again", Self.visible("question-confirm"))
            try await browser.click("question-confirm")
            try await browser.wait("the accounts", "!document.querySelector('.sheet')")
            #expect(served.session.withHost { $0.state.request?.original } == "accounts")
            #expect(served.session.withHost { $0.pendingQuestion == nil })
        }
    }

    /// A route's query schema in the device's form: typed inputs with the defaults filled in
    /// (a number field, a choice for an enumeration and a bool), sent as query items; an
    /// optional `:page?` may stay empty (examples/catalog.lua).
    @Test func theFormOffersAQuerySchemasKeys() async throws {
        let served = try ServedScript(example: "catalog.lua")
        defer { served.stop() }
        try served.session.dispatch("docs/guide")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the route table", Self.visible("route-products"))
            try await browser.click("route-products")
            try await browser.wait("the form", Self.visible("query-page"))
            let fields =
                try await browser.script(
                    """
                    const field = (name) => document.querySelector(`[data-testid="query-${name}"]`);
                    return [field('page').type, field('page').value, field('sort').tagName, field('sort').value,
                      [...field('sale').options].map((o) => o.value).join(','), field('q').value];
                    """) as? [Any]
            #expect(fields?.map { "\($0)" } == ["number", "1", "SELECT", "new", ",true,false", ""])
            _ = try await browser.script(
                "document.querySelector('[data-testid=\"query-sort\"]').value = 'price'; return true;")
            try await browser.type("query-page", "\u{E003}3\u{E007}")
            try await browser.wait("the products", Self.visible("screen-products"))
            #expect(served.session.withHost { $0.state.request?.original } == "products?page=3&sort=price")
            // An optional segment's field may be left empty.
            try await browser.click("route-product/:id/reviews/:page?")
            try await browser.wait("the form", Self.visible("param-page"))
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-testid=\"param-page\"]').placeholder;") as? String
                    == "page (optional)")
            try await browser.type("param-id", "42\u{E007}")
            try await browser.wait("the reviews", Self.visible("screen-product/:id/reviews/:page?"))
            #expect(served.session.withHost { $0.state.request?.original } == "product/42/reviews")
        }
    }

    /// `sample = { id = {…} }` gives rows instead of a form; a form still needed opens on the
    /// device and Esc closes it; a push slides in; the frame takes the chosen phone size.
    @Test func sampleValuesTheDeviceFormTransitionsAndSizes() async throws {
        let served = try ServedScript(example: "shop.lua")
        defer { served.stop() }
        try served.session.dispatch("account")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("the first order", Self.visible("pick-account/orders/:id-0"))
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-testid=\"pick-account/orders/:id-1\"]').textContent;")
                    as? String == "Order 1002")
            #expect(
                try await browser.script("return !!document.querySelector('[data-testid=\"row-account/orders/:id\"]');")
                    as? Bool == false)
            try await browser.click("pick-account/orders/:id-1")
            try await browser.wait("the order", Self.visible("screen-account/orders/:id"))
            #expect(served.session.withHost { $0.state.request?.original } == "account/orders/1002")
            // The push slid in: the stack's content carries the animation.
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-id=\"stack:account\"] > .content').classList.contains('push-in');"
                )
                    as? Bool == true)
            try await browser.click("back-stack:account")
            try await browser.wait("account again", Self.visible("screen-account"))
            #expect(
                try await browser.script(
                    "return document.querySelector('[data-id=\"stack:account\"] > .content').classList.contains('pop-in');"
                )
                    as? Bool == true)
            // The route table's order row: a form on the device (inside its frame) with the samples.
            try await browser.click("route-account/orders/:id")
            try await browser.wait("the form", Self.visible("param-id"))
            let inside =
                try await browser.script(
                    """
                    const form = document.getElementById('params').getBoundingClientRect();
                    const frame = document.getElementById('device').getBoundingClientRect();
                    return form.left >= frame.left && form.right <= frame.right && form.top >= frame.top && form.bottom <= frame.bottom;
                    """) as? Bool
            #expect(inside == true)
            try await browser.click("form-pick-0")
            #expect(
                try await browser.script("return document.querySelector('[data-testid=\"param-id\"]').value;")
                    as? String == "1001")
            try await browser.script(
                "document.querySelector('[data-testid=\"param-id\"]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));"
            )
            try await browser.wait("the form closed", "document.getElementById('params').hidden")
            #expect(served.session.withHost { $0.state.request?.original } == "account")
            // Phone sizes: the screen is the chosen size in points (scaled to fit the window),
            // every size at one scale: the SE is drawn smaller than the 16 (it was larger).
            func drawnHeight(_ name: String) async throws -> Double {
                try await browser.script(
                    "const s = document.getElementById('size'); s.value = '\(name)'; s.dispatchEvent(new Event('change'));"
                )
                return try await browser.script(
                    "return document.getElementById('screen').getBoundingClientRect().height;") as? Double ?? 0
            }
            // In a short window each size alone would be fitted to its height.
            try await browser.resize(width: 1400, height: 700)
            let sixteen = try await drawnHeight("iPhone 16")
            let se = try await drawnHeight("iPhone SE")
            // Drawn in proportion to their points (667 against 852), not each fitted alone.
            #expect(abs(se / sixteen - 667.0 / 852.0) < 0.03, "SE \(se) px, 16 \(sixteen) px")
            try await browser.resize(width: 1400, height: 900)
            let size =
                try await browser.script(
                    """
                    const frame = document.getElementById('device');
                    const screen = document.getElementById('screen').getBoundingClientRect();
                    const zoom = Number(frame.style.zoom || 1);
                    return [frame.dataset.size, Math.round(screen.width / zoom), Math.round(screen.height / zoom)];
                    """) as? [Any]
            #expect(size?[0] as? String == "iPhone SE")
            #expect(size?[1] as? Int == 375 && size?[2] as? Int == 667, "screen \(size ?? [])")
        }
    }

    /// Script text that would end or bend the page's data element — `<!--`, `<script`,
    /// `</script>` in a title, a row and an id — is data: the exported page loads and shows it.
    @Test func hostileTextInTheScriptCannotBreakAnExportedPrototype() async throws {
        let host = RouteScriptHost()
        try host.load(
            source: #"""
                return stack { initial = "home", endpoint { "home", title = "Home <!--",
                  rows = { { "see <script> tag docs", go = "home/next" }, { "</script><script>alert(1)</script>", go = "home/next" } },
                  children = { endpoint { "./next", title = "Next <!-- --> </script>", id = "a<!--b" } } } }
                """#, name: "hostile.lua")
        let prototype = try Prototype.explore(host, script: "hostile.lua")
        let html = PrototypePage.html(prototype, title: "hostile.lua")
        let data = try #require(html.components(separatedBy: "window.lunaPrototype = ").last)
        let element = try #require(data.components(separatedBy: ";</script>").first)
        #expect(!element.contains("<"), "every < in the data is escaped")
        try await WebDriver.withFile(html) { browser in
            try await browser.wait("home", Self.visible("screen-home"))
            #expect(
                try await browser.script("return document.body.textContent.includes('Home <!--');") as? Bool == true)
            #expect(
                try await browser.script("return document.body.textContent.includes('see <script> tag docs');")
                    as? Bool == true)
            try await browser.click("sample-home-0")
            try await browser.wait("next", Self.visible("screen-a<!--b"))
        }
    }

    /// The page file holds the prototype in its compact form (each distinct presentable,
    /// snapshot and step once); the page rebuilds exactly the data the exporter made.
    @Test func theCompactPrototypeDecodesToTheExportedData() async throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua")
        let prototype = try Prototype.explore(host, script: "shop.lua")
        let html = PrototypePage.html(prototype, title: "shop.lua")
        #expect(html.contains(#""format":"compact-1""#))
        #expect(
            html.utf8.count * 3 < prototype.json.utf8.count, "\(html.utf8.count) against \(prototype.json.utf8.count)")
        try await WebDriver.withFile(html) { browser in
            try await browser.wait("home", Self.visible("screen-home"))
            let same =
                try await browser.script(
                    """
                    const same = (a, b) => {
                      if (a === b) return true;
                      if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
                      if (Array.isArray(a) !== Array.isArray(b)) return false;
                      const keys = (o) => Object.keys(o).filter((k) => o[k] !== undefined).sort();
                      const [ka, kb] = [keys(a), keys(b)];
                      return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
                    };
                    return same(prototype, decodePrototype(JSON.parse(arguments[0])));
                    """, [prototype.json]) as? Bool
            #expect(same == true)
        }
    }

    /// An exported prototype shows a flag's × only where it holds the step that clears it:
    /// an action set the flag, nothing in the prototype clears it, so no × answers "this
    /// prototype has no such step".
    @Test func anExportedPrototypeOffersNoFlagButtonItCannotFollow() async throws {
        let host = RouteScriptHost()
        try host.load(
            source: #"""
                return stack { initial = "home",
                  endpoint { "home", actions = { { "Beta on", flag = { beta = "on" } } } } }
                """#, name: "flags.lua")
        let prototype = try Prototype.explore(host, script: "flags.lua")
        try await WebDriver.withFile(PrototypePage.html(prototype, title: "flags.lua")) { browser in
            try await browser.wait("home", Self.visible("screen-home"))
            try await browser.click("action-home-0")
            try await browser.wait(
                "the flag", "document.querySelector('[data-testid=\"flags\"]').textContent.includes('beta=on')")
            #expect(
                try await browser.script("return document.querySelector('[data-testid=\"clear-flag-beta\"]') === null;")
                    as? Bool == true)
        }
    }

    /// `luna export html`: the prototype opens from the file system (no server), starts on the
    /// initial screen, and its rows, back, tabs, samples, actions, map, history and undo work; a
    /// step it does not hold says so.
    @Test func anExportedPrototypeIsClickableFromTheFileSystem() async throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua")
        let prototype = try Prototype.explore(host, script: "shop.lua")
        let folder = ScriptFolder()
        let path = folder.write("index.html", PrototypePage.html(prototype, title: "shop.lua"))
        let browser = try await WebDriver()
        do {
            try await browser.open("file://" + path)
            try await browser.wait("home", Self.visible("screen-home"))
            #expect(try await browser.script("return document.title;") as? String == "shop.lua — Luna prototype")
            try await browser.wait("the note", Self.visible("note"))
            let note = try await browser.script("return document.getElementById('note').textContent;") as? String ?? ""
            #expect(note.contains("the guard of junction:home"), "\(note)")
            #expect(
                try await browser.script("return !!document.querySelector('[data-testid=\"reload\"]').offsetParent;")
                    as? Bool == false)
            // A row, then back.
            try await browser.click("sample-home-0")
            try await browser.wait("the product", Self.visible("screen-product/:id"))
            #expect(
                try await browser.script("return document.getElementById('plan').children.length;") as? Int ?? 0 > 0)
            try await browser.click("back-stack:home")
            try await browser.wait("home again", Self.visible("screen-home"))
            // A tab, a sample order, the map back to the cart tab.
            try await browser.click("tab-stack:account")
            try await browser.wait("account", Self.visible("pick-account/orders/:id-0"))
            try await browser.click("pick-account/orders/:id-0")
            try await browser.wait("the order", Self.visible("screen-account/orders/:id"))
            #expect(
                try await browser.script(
                    "return [...document.querySelectorAll('.facts dd')].some((e) => e.textContent === '1001');")
                    as? Bool == true)
            try await browser.click("view-map")
            try await browser.click("map-node-cart")
            try await browser.wait(
                "the cart on the map",
                "document.querySelector('[data-testid=\"map-node-cart\"]').classList.contains('here')")
            try await browser.click("view-device")
            try await browser.wait("the cart", Self.visible("screen-cart"))
            // The order's state has no step to the cart: the map showed the state that first
            // showed it.
            #expect(
                try await browser.script(
                    "return document.querySelector('#history li:last-child').textContent.startsWith('show cart');")
                    as? Bool == true)
            // Undo goes back to the order; the history lists every step.
            try await browser.click("undo")
            try await browser.wait("the order again", Self.visible("screen-account/orders/:id"))
            #expect(try await browser.script("return document.querySelectorAll('#history li').length;") as? Int == 6)
            // A step the prototype does not hold: a typed request.
            try await browser.type("address", "account/orders/77\u{E007}")
            try await browser.wait(
                "the refusal",
                "document.getElementById('result').textContent.includes('this prototype has no such step')")
            let errors = try await browser.script("return window.lunaErrors || [];") as? [String]
            #expect(errors == [], "page errors: \(errors ?? [])")
            try await Self.keep(browser, "prototype-shop.png")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// The History list keeps every entry through travels, undo and redo made on the page and
    /// in the REPL, and new entries after them (reported: "drops entries after a travel or Undo
    /// until the page reconnects").
    @Test func theHistoryListKeepsEveryEntryThroughTravelsAndUndo() async throws {
        let served = try ServedScript()
        defer { served.stop() }
        for request in ["books", "books/1", "books/2", "today"] { try served.session.dispatch(request) }
        try await WebDriver.withPage(served) { browser in
            func listed() async throws -> [Int] {
                try await browser.script(
                    "return [...document.querySelectorAll('#history li[data-testid^=\"history-\"]')].map((e) => e.value);"
                )
                    as? [Int] ?? []
            }
            try await browser.wait("the entries", Self.visible("history-3"))
            try await browser.click("history-1")
            try await browser.wait(
                "entry 1 current", "document.querySelector('[data-testid=\"history-1\"]').classList.contains('current')"
            )
            try await browser.click("undo")
            try await browser.wait(
                "entry 3 current", "document.querySelector('[data-testid=\"history-3\"]').classList.contains('current')"
            )
            try served.session.travel(to: 0)
            try await browser.wait(
                "entry 0 current", "document.querySelector('[data-testid=\"history-0\"]').classList.contains('current')"
            )
            try await browser.click("undo")
            try await browser.click("redo")
            try await browser.type("address", "profile\u{E007}")
            try await browser.wait("the new entry", Self.visible("history-4"))
            try served.session.dispatch("books/9")
            try await browser.wait("the REPL's entry", Self.visible("history-5"))
            #expect(try await listed() == Array(0..<served.session.historyCount))
        }
    }

    /// A tree of 2,000 screens: the map draws the 300 nearest the screen shown and says so.
    @Test func aBigTreesMapDrawsTheNearestScreens() async throws {
        let routes = (1..<2000).map { #"  endpoint { "s\#($0 % 40)/r\#($0)", title = "R\#($0)" },"# }
        let served = try ServedScript(
            example: "big.lua",
            source: (["return stack {", #"  endpoint { "r0", children = { endpoint { "./next" } } },"#] + routes + ["}"])
                .joined(separator: "\n"))
        defer { served.stop() }
        try served.session.dispatch("r0")
        try await WebDriver.withPage(served) { browser in
            try await browser.wait("r0", Self.visible("screen-r0"))
            try await browser.click("view-map")
            try await browser.wait("the map", Self.visible("map-node-r0"))
            #expect(
                try await browser.script("return document.querySelectorAll('[data-testid^=\"map-node-\"]').length;")
                    as? Int == 300)
            #expect(
                try await browser.script("return document.querySelector('.legend .limit').textContent;") as? String
                    == "showing 300 of 2001 nodes: those nearest the screen shown")
            // The screen shown and what it pushes are among them.
            #expect(
                try await browser.script("return !!document.querySelector('[data-testid=\"map-node-r0/next\"]');")
                    as? Bool == true)
            let errors = try await browser.script("return window.lunaErrors || [];") as? [String]
            #expect(errors == [], "page errors: \(errors ?? [])")
        }
    }
}
