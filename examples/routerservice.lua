-- RouterService-style features: routes with names a backend can send as `name|{json}`,
-- features that can be switched off with a fallback, resolved at run time.
--   luna dispatch examples/routerservice.lua 'product|{"id":7,"ref":"push"}'
--   luna dispatch examples/routerservice.lua checkout --flag newCheckout=on

local function flag(name)
  return function(ctx) return ctx.flags[name] == "on" end
end

return switcher {
  stack { title = "Shop",
    endpoint { "home", name = "home", title = "Home",
      children = {
        endpoint { "products/:id", name = "product", title = "Product",
                   where = { id = "[0-9]+" },
                   presenter = {
                     create = function(ctx) return { title = "Product " .. ctx.params.id } end,
                     update = function(view, ctx) view.referrer = ctx.query.ref or "direct" end,
                   } },
        -- The new checkout is behind a flag; while it is off, its route falls back to the old one.
        endpoint { "checkout", name = "checkout", title = "Checkout (new)",
                   enabled = flag("newCheckout"), fallback = "checkout/classic" },
        endpoint { "checkout/classic", name = "classicCheckout", title = "Checkout" },
        -- Reviews are switched off entirely unless the flag is set (a `disabled` error).
        endpoint { "products/:id/reviews", name = "reviews", title = "Reviews",
                   enabled = flag("reviews") },
        -- An old link the backend still sends.
        endpoint { "item/:id", redirect = function(ctx) return "products/" .. ctx.params.id end },
      },
    },
  },
  endpoint { "...", title = "Not found" },
}
