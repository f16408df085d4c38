-- Named requests, flags with fallbacks and old links: `luna test examples`.
local app = luna.open("routerservice.lua")

test("a backend's named request fills the route and the query", function()
  app:go('product|{"id":7,"ref":"push"}')
  expect(app.path).to_be("products/7")
  expect(app.query).to_equal({ ref = "push" })
  expect(app.tree).to_contain('"Product 7"')
end)

test("the new checkout falls back to the classic one until its flag is on", function()
  app:go("checkout")
  expect(app.route).to_be("checkout/classic")
  app:flag("newCheckout", "on")
  expect(app.route).to_be("checkout")
end)

test("reviews are disabled without their flag", function()
  expect(function() app:go("products/7/reviews") end).to_fail_with("disabled")
  local flagged = luna.open("routerservice.lua", { flags = { reviews = "on" } })
  flagged:go("products/7/reviews")
  expect(flagged.name).to_be("reviews")
end)

test("an old link redirects", function()
  app:go("item/9")
  expect(app.path).to_be("products/9")
end)

test("an unknown name is unknownRoute", function()
  expect(function() app:go("cart|{}") end).to_fail_with("unknownRoute")
end)
