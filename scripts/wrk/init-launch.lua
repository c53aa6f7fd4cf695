-- POST /api/client/init as apps send it: at every launch (the SDKs are initialised in the app's
-- start-up code), so most requests re-report an install already stored. NEW_SHARE of them (default
-- 0.1, an install-heavy mix: a new app in a launch campaign) are first launches, matched and stored;
-- the others are later launches of an install this thread created earlier in the run, at random.
-- Same body and 10,000 forwarded addresses as init.lua. TOKEN: the project token.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end
local run
function init(args)
  math.randomseed(os.time() * 64 + (thread_number or 0))
  run = math.random(0, 0x7fffffff)  -- new ids in every run against the same database
end
local token = os.getenv("TOKEN")
local new_share = tonumber(os.getenv("NEW_SHARE") or "0.1")
local created = 0
local function instance_id(k)
  -- The scrambled prefix spreads the ids over the index as the SDKs' random UUIDs would.
  return string.format("%08x-%d-%x-%d", (k * 2654435761) % 4294967296, thread_number or 0, run, k)
end
request = function()
  local k
  if created == 0 or math.random() < new_share then
    created = created + 1
    k = created
  else
    k = math.random(1, created)
  end
  local ip = string.format("198.18.%d.%d", math.random(0, 39), math.random(1, 250))
  local iid = instance_id(k)
  local body = '{"token":"' .. token .. '","platform":"IOS","install_instance_id":"' .. iid .. '","package_version":"ios-rest-1.0",'
    .. '"app_version":"2.1","device_data":{"device":"iPhone","system_version":"17.4.1","device_display":{"width":390,"height":844,"scale":3},'
    .. '"idfv":"' .. iid .. '","locale":"fr_FR","language":"fr","country":"FR","timezone":"Europe/Paris","timezone_offset":60},"debug":false}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["X-Forwarded-For"] = ip}, body)
end
