-- wrk script: POST /registry/v2/repos/<parent> {"name": "<prefix><n>"}, a new name per request, the parents
-- taken in turn. Usage (one wrk thread: the counter is per thread):
--   wrk -t1 ... -s bench/create_unique.lua http://host:port -- <name prefix> <parent uid>...
local parents = {}
local prefix = ""
local n = 0
local headers = {}

function init(args)
  -- wrk.format uses the headers it is given instead of wrk.headers (-H): copy those.
  for name, value in pairs(wrk.headers) do
    headers[name] = value
  end
  headers["Content-Type"] = "application/json"
  prefix = args[1]
  for i = 2, #args do
    parents[#parents + 1] = args[i]
  end
end

function request()
  n = n + 1
  local parent = parents[(n % #parents) + 1]
  return wrk.format("POST", "/registry/v2/repos/" .. parent, headers, '{"name":"' .. prefix .. n .. '"}')
end
