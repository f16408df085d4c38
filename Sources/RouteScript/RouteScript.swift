public enum RouteScript {}
