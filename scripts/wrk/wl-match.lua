-- POST /v1/attribution/match as WarpLink's iOS SDK 0.1.0 sends it on a first launch: a new IDFV
-- every request (so every request is matched and stored as a new install) from 10,000 forwarded
-- addresses. WL_KEY: a wl_live_ key of the project.
-- Every wrk thread runs its own copy of this script: each is given its own number, which seeds its
-- random numbers and is part of every id, so no two threads ever send the same device.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end
function init(args)
  math.randomseed(os.time() * 64 + (thread_number or 0))
end
local key = os.getenv("WL_KEY")
local counter = 0
request = function()
  counter = counter + 1
  local ip = string.format("198.18.%d.%d", math.random(0, 39), math.random(1, 250))
  local idfv = string.format("%08X-%04X-4%03X-8%03X-%012X", math.random(0, 0x7fffffff), thread_number or 0, counter % 4096,
    math.random(0, 4095), math.random(0, 0x7fffffff))
  local body = '{"accept_language":"fr-FR,en-US","screen_width":390,"screen_height":844,"timezone_offset":-60,'
    .. '"user_agent":"WarpLink-iOS/0.1.0","platform":"ios","fingerprint_version":"enriched","sdk_version":"0.1.0","device_id":"' .. idfv .. '"}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key,
    ["User-Agent"] = "WarpLink-iOS/0.1.0", ["X-Forwarded-For"] = ip}, body)
end
