-- A shop app: a sign-in gate, four tabs (Home, Search, Cart, Account), a product detail pushed
-- from Home, a checkout sheet with its own stack over the cart, and the links the app answers:
-- universal links on shop.example and its subdomains, and the myshop:// scheme.
-- Try: `luna export aasa examples/shop.lua --app-id ABCDE12345.com.example.shop`, or in the
-- REPL `go https://shop.example/product/42` and `go https://evil.example/product/42`.

return switcher {
  -- Where the app starts: `luna serve`, the REPL, `luna.open` and linked apps open on it.
  initial = "home",
  links = { schemes = { "myshop" }, hosts = { "shop.example", "*.shop.example" } },

  endpoint { "signin", title = "Sign in",
    actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } },
  },

  junction { title = "Shop",
    -- Signed in unless the flag says otherwise (`flag signedIn=no` in the REPL).
    enabled = function() return flags.signedIn ~= "no" end, fallback = "signin",

    stack { title = "Home",
      endpoint { "home", title = "Home",
        -- Sample content: rows the prototype shows (each a request to dispatch).
        rows = { { "Dune", go = "product/42?title=Dune" }, { "Emma", go = "product/7?title=Emma" } },
        children = {
          endpoint { "product/:id", title = "Product", name = "product", where = { id = "[0-9]+" } },
        },
      },
    },
    stack { title = "Search",
      endpoint { "search", title = "Search" },
    },
    stack { title = "Cart",
      endpoint { "cart", title = "Cart",
        modals = {
          stack { title = "Checkout",
            -- A link must never land in the middle of a payment.
            endpoint { "checkout", title = "Checkout", link = false,
              children = { endpoint { "./pay", title = "Payment", link = false } },
            },
          },
        },
      },
    },
    stack { title = "Account",
      endpoint { "account", title = "Account",
        -- Sample values: the Account screen lists these orders instead of asking for an id.
        children = { endpoint { "./orders/:id", title = "Order", name = "order", where = { id = "[0-9]+" },
          sample = { id = { "1001", "1002" } } } },
      },
    },
  },

  -- Not found: in the app for its own requests; a link to another page of the web site stays in
  -- the browser (no `/*` in the apple-app-site-association file).
  endpoint { "...", title = "Not found", id = "not-found", link = false },
}
