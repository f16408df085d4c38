// Typed routes of examples/books.lua, written by `luna export swift examples/books.lua`.
// Do not edit: export again when the script's named routes change.
// swift-format-ignore-file

import RouteCore

/// A named route of examples/books.lua, filled in: dispatch its ``path``, or put it in a link.
public struct BooksRoute: Hashable, Sendable {
    /// The route's name in the script (`name|{json}` requests use it).
    public let name: String
    /// The path's segments, not encoded.
    public let segments: [String]
    public let query: [String: String]
    public let fragment: String?

    public init(name: String, segments: [String], query: [String: String] = [:], fragment: String? = nil) {
        self.name = name
        self.segments = segments
        self.query = query
        self.fragment = fragment
    }

    /// The request: segments, query and fragment percent-encoded as the matcher decodes them.
    public var path: String { Request.format(segments: segments, query: query, fragment: fragment) }

    /// `today/all_news`
    public static func allNews(query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(name: "all_news", segments: ["today", "all_news"], query: query, fragment: fragment)
    }

    /// `today/story/:type/:id`
    public static func story(type: String, id: String, query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(name: "story", segments: ["today", "story", type, id], query: query, fragment: fragment)
    }

    /// `books/:id`
    public static func book(id: String, query: [String: String] = [:], fragment: String? = nil) -> BooksRoute {
        BooksRoute(name: "book", segments: ["books", id], query: query, fragment: fragment)
    }
}
