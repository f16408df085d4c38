-- examples/recipes/signin-continue.lua: an Account tab behind sign-in; signing in continues
-- to where the user (or the link) was going.
return junction { initial = "home",
  links = { schemes = { "myapp" }, hosts = { "app.example" } },
  stack { title = "Home", endpoint { "home", title = "Home" } },
  stack { title = "Account",
    -- The guard is on the account screen, so it gates its children too; Sign in lives in the
    -- same tab, so the user stays in the tab they tapped.
    endpoint { "account", title = "Account",
      enabled = function() return flags.signedIn == "yes" end, fallback = "signin",
      rows = { { "Order 7", go = "account/orders/7" } },
      children = { endpoint { "./orders/:id", title = "Order" } },
    },
    endpoint { "signin", title = "Sign in", link = false,
      -- The fallback kept the request that was refused: continue there, else the account.
      actions = { { "Sign in", flag = { signedIn = "yes" }, go = "account", continue = true } },
    },
  },
}
