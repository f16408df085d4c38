-- FeatherweightRouter's README example: a regex and a pattern side by side.
local app = luna.open("animals.lua")

test("an animal matches the whole-path regex and binds its named group", function()
  app:go("animals/tiger")
  expect(app.route).to_be("regex:animals/(?<id>\\w+)")
  expect(app.params).to_equal({ id = "tiger" })
  expect(app:stack("stack:animals")).to_equal({ "animals", "animal" })
end)

test("a zoo matches its pattern", function()
  app:go("zoos/berlin")
  expect(app.params.id).to_be("berlin")
end)

test("a name the regex refuses matches nothing", function()
  expect(function() app:go("animals/big-cat") end).to_fail_with("noMatch")
end)
