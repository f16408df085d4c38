-- Navigation tests for shop.lua: `luna test examples`.
local app = luna.open("shop.lua")

test("the app starts on its initial screen", function()
  expect(app.route).to_be("home")
end)

test("a universal link opens the product over the Home tab", function()
  app:go("https://shop.example/product/42?ref=mail")
  expect(app.route).to_be("product/:id")
  expect(app.params.id).to_be("42")
end)

test("a link from another host is refused and nothing moves", function()
  expect(function() app:go("https://evil.example/product/42") end).to_fail_with("invalidRequest")
  expect(app.route).to_be("home")
end)

test("signing out sends every screen to sign in", function()
  app:flag("signedIn", "no")
  expect(app.route).to_be("signin")
end)
