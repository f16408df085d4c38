// Typed routes of examples/books.lua, written by `luna export swift examples/books.lua`.
// Do not edit: export again when the script's routes change.
// swift-format-ignore-file

import RouteCore

/// A route of examples/books.lua, filled in: dispatch its ``path``, or put it in a link.
public struct BooksRoute: Hashable, Sendable {
    /// The route's pattern in the script (`books/:id`; the root route is `/`).
    public let route: String
    /// The route's name in the script (`name|{json}` requests use it), if it has one.
    public let name: String?
    /// The path's segments, not encoded.
    public let segments: [String]
    public let query: [String: String]
    /// Query keys with several values (a schema's `list = true`): one item per value.
    public let queryLists: [String: [String]]
    public let fragment: String?

    public init(
        route: String, name: String? = nil, segments: [String], query: [String: String] = [:],
        queryLists: [String: [String]] = [:], fragment: String? = nil
    ) {
        self.route = route
        self.name = name
        self.segments = segments
        self.query = query
        self.queryLists = queryLists
        self.fragment = fragment
    }

    /// The request: segments, query and fragment percent-encoded as the matcher decodes them.
    public var path: String {
        Request.format(segments: segments, query: query, lists: queryLists, fragment: fragment)
    }

    /// `today/all_news`
    public static func allNews(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "today/all_news", name: "all_news", segments: ["today", "all_news"], query: query, fragment: fragment)
    }

    /// `today/story/:type/:id`
    public static func story(type: String, id: String, query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "today/story/:type/:id", name: "story", segments: ["today", "story", type, id], query: query, fragment: fragment)
    }

    /// `books/:id`
    public static func book(id: String, query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "books/:id", name: "book", segments: ["books", id], query: query, fragment: fragment)
    }

    /// `login`
    public static func login(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "login", segments: ["login"], query: query, fragment: fragment)
    }

    /// `onboarding`
    public static func onboarding(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "onboarding", segments: ["onboarding"], query: query, fragment: fragment)
    }

    /// `today`
    public static func today(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "today", segments: ["today"], query: query, fragment: fragment)
    }

    /// `...`
    public static func rest(rest: String = "", query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "...", segments: [] + rest.split(separator: "/").map(String.init), query: query, fragment: fragment)
    }

    /// `books`
    public static func books(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "books", segments: ["books"], query: query, fragment: fragment)
    }

    /// `profile`
    public static func profile(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "profile", segments: ["profile"], query: query, fragment: fragment)
    }

    /// `orders`
    public static func orders(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "orders", segments: ["orders"], query: query, fragment: fragment)
    }

    /// `orders/:id`
    public static func ordersId(id: String, query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "orders/:id", segments: ["orders", id], query: query, fragment: fragment)
    }

    /// `delivery`
    public static func delivery(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(route: "delivery", segments: ["delivery"], query: query, fragment: fragment)
    }
}

extension Router {
    /// Dispatches `route` (`Router.dispatch(_:options:)`).
    @discardableResult
    public func dispatch(_ route: BooksRoute, options: DispatchOptions = DispatchOptions()) throws -> Router.Result {
        try dispatch(route.path, options: options)
    }

    /// Pushes `route`'s screen onto the top stack shown, the same screen again too (`Router.push(_:)`).
    @discardableResult
    public func push(_ route: BooksRoute) throws -> Router.Result {
        try push(route.path)
    }
}
