/// The Lua side of the test API: `test`, `expect`, `expect_tree`, `expect_plan` and the app
/// object `luna.open` returns. Actions and observations call host functions (`__luna.*`);
/// comparisons and messages are Lua. Failures are raised at the test's own line (level 2).
enum Prelude {
    static let source = #"""
        local host = ...
        local type, tostring, pairs, next, error, select = type, tostring, pairs, next, error, select
        local format, concat, sort = string.format, table.concat, table.sort

        local cases = {}
        function test(name, body)
          if type(name) ~= "string" then error("test: the first argument is the case's name (a string)", 2) end
          if type(body) ~= "function" then error("test: the second argument is the case's function", 2) end
          -- A case's own run keeps only its body; lines are read only while collecting.
          local index = #cases + 1
          if host.only and host.only ~= index then cases[index] = false return end
          cases[index] = { name = name, body = body, line = host.collecting and host.line(2) or nil }
        end
        host.cases = function() return cases end

        -- Values as messages show them: strings quoted, tables nested with sorted keys.
        local function show(value, depth)
          depth = depth or 0
          if type(value) == "string" then return format("%q", value) end
          if type(value) ~= "table" then return tostring(value) end
          if depth > 3 then return "{…}" end
          local keys = {}
          for k in next, value do keys[#keys + 1] = k end
          sort(keys, function(a, b)
            if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
            return type(a) < type(b)
          end)
          local items, n = {}, #value
          for _, k in ipairs(keys) do
            local text = show(value[k], depth + 1)
            if math.type(k) == "integer" and k >= 1 and k <= n then items[#items + 1] = text
            else items[#items + 1] = (type(k) == "string" and k or "[" .. show(k) .. "]") .. " = " .. text end
          end
          return "{ " .. concat(items, ", ") .. " }"
        end

        local function equal(a, b, seen)
          if a == b then return true end
          if type(a) ~= "table" or type(b) ~= "table" then return false end
          seen = seen or {}
          if seen[a] == b then return true end
          seen[a] = b
          for k, v in next, a do if not equal(v, b[k], seen) then return false end end
          for k in next, b do if a[k] == nil then return false end end
          return true
        end

        -- The explain of the last request of any open app whose route is `value`.
        local apps = {}
        local function context(actual)
          for _, app in ipairs(apps) do
            local last = host.last(app.__handle)
            if last and type(actual) == "string" and actual == host.get(app.__handle, "route") then
              return "\n  request " .. show(last) .. ":\n" .. host.explain(app.__handle, last)
            end
          end
          return ""
        end

        local function fail(message, actual)
          error({ luna_failure = true, message = message .. context(actual), where = host.line(3) }, 0)
        end

        function expect(actual)
          local e = {}
          function e.to_be(expected)
            if actual ~= expected then fail("expected " .. show(expected) .. ", got " .. show(actual), actual) end
          end
          function e.to_equal(expected)
            if not equal(actual, expected) then fail("expected " .. show(expected) .. ", got " .. show(actual), actual) end
          end
          function e.to_contain(item)
            local found = false
            if type(actual) == "string" and type(item) == "string" then found = actual:find(item, 1, true) ~= nil
            elseif type(actual) == "table" then
              for _, v in next, actual do if equal(v, item) then found = true break end end
            end
            if not found then fail("expected " .. show(actual) .. " to contain " .. show(item), actual) end
          end
          function e.to_match(pattern)
            if type(actual) ~= "string" or not actual:match(pattern) then
              fail("expected " .. show(actual) .. " to match the pattern " .. show(pattern), actual)
            end
          end
          function e.to_fail_with(kind)
            if type(actual) ~= "function" then fail("to_fail_with needs a function, got " .. show(actual)) end
            local ok, err = pcall(actual)
            if ok then fail("expected a failure of kind " .. show(kind) .. ", but it succeeded") end
            local got = type(err) == "table" and err.kind or "script"
            if got ~= kind then
              local message = type(err) == "table" and (err.message or err.luna_failure and err.message) or tostring(err)
              fail("expected a failure of kind " .. show(kind) .. ", got " .. show(got) .. ": " .. tostring(message))
            end
          end
          return e
        end

        function expect_tree(app, name)
          local ok, message = host.snapshot(app.__handle, "tree", name)
          if not ok then fail(message) end
        end
        function expect_plan(app, name)
          local ok, message = host.snapshot(app.__handle, "plan", name)
          if not ok then fail(message) end
        end

        -- The app: actions raise { kind =, message = } on failure (and set app.error);
        -- observations read the host.
        local methods = {}
        local function act(app, ...)
          local ok, kind, message = host.act(app.__handle, ...)
          -- The failure points at the test's own call (`app:go` tail-calls act: level 2).
          if not ok then error({ kind = kind, message = message, where = host.line(2) }, 3) end
          return app
        end
        -- The actions, from the command table (`app:go(request, { keep = true })`, …).
        for _, command in ipairs(host.commands) do
          local op = command.op
          methods[command.lua] = function(app, ...) return act(app, op, ...) end
        end
        function methods.stack(app, id) return host.node(app.__handle, "stack", id) end
        function methods.selected(app, id) return host.node(app.__handle, "selected", id) end
        function methods.modal(app) return host.node(app.__handle, "modal") end
        function methods.tree_table(app) return host.get(app.__handle, "tree_table") end
        function methods.last_result(app) return host.get(app.__handle, "last_result") end

        local app_meta = {
          __index = function(app, key)
            if methods[key] then return methods[key] end
            return host.get(app.__handle, key)
          end,
          __newindex = function() error("an app's fields are read-only: use its actions", 2) end,
        }

        luna = luna or {}
        function luna.open(script, options)
          if type(script) ~= "string" then error("luna.open: the script's path (a string) comes first", 2) end
          if options ~= nil and type(options) ~= "table" then error("luna.open: options are a table", 2) end
          -- A refusal names the test's own line, not the prelude's.
          local opened, handle = pcall(host.open, script, options or {})
          if not opened then error(tostring(handle), 2) end
          local app = setmetatable({ __handle = handle }, app_meta)
          apps[#apps + 1] = app
          return app
        end
        """#
}
