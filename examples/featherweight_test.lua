-- FeatherweightRouter's demo flows: `luna test examples`.
local app = luna.open("featherweight.lua")

test("registration pushes two screens over welcome", function()
  app:go("welcome")
  app:go("welcome/register/step2")
  expect(app:stack("stack:welcome")).to_equal({ "welcome", "welcome/register", "welcome/register/step2" })
end)

test("login is pushed over welcome, About is a tab of its own", function()
  app:go("welcome/login")
  expect(app:stack("stack:welcome")).to_equal({ "welcome", "welcome/login" })
  app:go("about")
  expect(app:selected("root")).to_be("about")
  expect(app.plan_text).to_equal({ "update about", "select root 1 (about)" })
end)
