-- examples/recipes/signin-continue_test.lua
local app = luna.open("signin-continue.lua")

test("signed out, a link to an order shows Sign in, in the Account tab", function()
  app:go("myapp://account/orders/7")
  expect(app.route).to_be("signin")
  expect(app:selected("root")).to_be("stack:account")
end)

test("signing in continues to the order the link asked for", function()
  app:go("https://app.example/account/orders/7")
  app:tap("Sign in")
  expect(app.route).to_be("account/orders/:id")
  expect(app.params.id).to_be("7")
  expect(app:stack("stack:account")).to_equal({ "account", "account/orders/:id" })
end)

test("with nothing kept, signing in goes to the account", function()
  app:go("signin")
  app:tap("Sign in")
  expect(app.route).to_be("account")
end)

test("Home is never gated, and a link cannot open Sign in", function()
  app:go("home")
  expect(app.route).to_be("home")
  expect(function() app:go("myapp://signin") end).to_fail_with("invalidRequest")
end)
