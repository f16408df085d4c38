-- examples/recipes/splash.lua: a splash while the session is checked, then where the user was going.
return switcher { initial = "home",
  -- The values `luna verify` tries for the session (unset: not checked yet).
  flags = { session = { "valid", "expired" } },
  endpoint { "splash", title = "Loading…", link = false },
  endpoint { "signin", title = "Sign in", link = false,
    actions = { { "Sign in", flag = { session = "valid" }, continue = true, go = "home" } },
  },
  junction { title = "App",
    -- The app sets `session` once it has checked its token; until then the answer is not known:
    -- show the splash and keep the request (at most 5 s, then sign in).
    enabled = function(ctx)
      if flags.session == nil then return pending("splash", { timeout = 5 }) end
      return flags.session == "valid"
    end,
    fallback = "signin",
    stack { title = "Home",
      endpoint { "home", title = "Home", children = { endpoint { "./orders/:id", title = "Order" } } },
    },
    stack { title = "Settings", endpoint { "settings", title = "Settings" } },
  },
}
