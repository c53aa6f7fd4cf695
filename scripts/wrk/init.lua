-- POST /api/client/init as the full seed client sends it: a new install_instance_id every
-- request (so every request is matched and stored) from 10,000 forwarded addresses.
-- TOKEN: the project token.
-- Every wrk thread runs its own copy of this script: each is given its own number, which seeds its
-- random numbers and is part of every id, so no two threads ever send the same install.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end
function init(args)
  math.randomseed(os.time() * 64 + (thread_number or 0))
end
local token = os.getenv("TOKEN")
local counter = 0
request = function()
  counter = counter + 1
  local ip = string.format("198.18.%d.%d", math.random(0, 39), math.random(1, 250))
  -- WRK_NODE: which of several wrk processes this is (scripts/bench NODES=2), so they never share an id.
  local iid = string.format("%08x-%s%d-%d-%d", math.random(0, 0x7fffffff), os.getenv("WRK_NODE") or "", thread_number or 0, counter,
    math.random(0, 999999))
  local body = '{"token":"' .. token .. '","platform":"IOS","install_instance_id":"' .. iid .. '","package_version":"ios-rest-1.0",'
    .. '"app_version":"2.1","device_data":{"device":"iPhone","system_version":"17.4.1","device_display":{"width":390,"height":844,"scale":3},'
    .. '"idfv":"' .. iid .. '","locale":"fr_FR","language":"fr","country":"FR","timezone":"Europe/Paris","timezone_offset":60},"debug":false}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["X-Forwarded-For"] = ip}, body)
end
