/// RouteCore: the pure route engine (patterns, requests, matcher, nodes, state, reducer).
public enum RouteCore {}
