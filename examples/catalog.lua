-- A catalog: typed query keys (a page number, a sort order, tags), an optional segment and a
-- path of one or more folders (docs/dsl.md, "Query schemas" and "Patterns").
-- Try in the REPL: `go products?page=2&sort=price&tags=sf&tags=new`, `go products?page=abc`
-- (the default page), `explain orders?status=lost`, `go product/42/reviews`, and
-- `path products page=2 tags=a tags=b`.

return stack {
  initial = "products",
  links = { schemes = { "catalog" } },

  endpoint { "products", title = "Products", name = "products",
    query = {
      page = { "int", default = 1 },               -- ?page=abc shows page 1
      sort = { "new", "price", default = "new" },  -- an enumeration
      q = "string?",                               -- may be left out
      tags = { "string", list = true },            -- ?tags=a&tags=b is { "a", "b" }
      sale = "bool?",
    },
    -- Hooks see typed values: ctx.query.page is an integer, ctx.query.tags a list.
    presenter = { update = function(view, ctx)
      local tags = #ctx.query.tags > 0 and (" · " .. table.concat(ctx.query.tags, ", ")) or ""
      view.title = "Products, page " .. ctx.query.page .. " by " .. ctx.query.sort .. tags
    end },
    rows = { { "Page 2 by price", go = "products?page=2&sort=price" }, { "Dune", go = "product/42" } },
    children = {
      endpoint { "product/:id", title = "Product", name = "product", where = { id = "[0-9]+" },
        children = {
          -- `:page?`: product/42/reviews and product/42/reviews/2.
          endpoint { "./reviews/:page?", title = "Reviews", name = "reviews", where = { page = "[0-9]+" } },
        },
      },
    },
  },

  -- A status is required here; a request without one, or with another, goes on to the next route.
  -- (A link opens these as the stack's root: each has a way to the products, which
  -- `luna verify` checks.)
  endpoint { "orders", title = "Orders", name = "orders", query = { status = { "open", "shipped" } },
    actions = { { "All products", go = "products" } } },
  endpoint { "orders", id = "all-orders", title = "All orders", actions = { { "All products", go = "products" } } },

  -- `:path+`: one folder or more (docs/a, docs/a/b), never docs alone.
  endpoint { "docs/:path+", title = "Docs", name = "docs", actions = { { "All products", go = "products" } } },
}
