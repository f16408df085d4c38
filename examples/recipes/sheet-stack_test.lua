-- examples/recipes/sheet-stack_test.lua
local app = luna.open("sheet-stack.lua")

test("a link deep into the sheet opens it over the inbox, with its own stack", function()
  app:go("inbox/compose/to")
  expect(app:modal()).to_be("compose-sheet")
  expect(app:stack("compose-sheet")).to_equal({ "inbox/compose", "inbox/compose/to" })
  expect(app:stack("root")).to_equal({ "inbox" })
end)

test("back pops inside the sheet; closing it shows the inbox", function()
  app:go("inbox/compose/to")
  app:back()
  expect(app.route).to_be("inbox/compose")
  expect(app:modal()).to_be("compose-sheet")
  app:go("inbox")
  expect(app:modal()).to_be(nil)
  expect(app.plan_text).to_contain("dismissModal inbox compose-sheet")
end)
