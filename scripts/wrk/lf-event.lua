-- POST /api/sdk/v1/event as the LinkForty SDKs send it: an API key, the install id the install
-- call returned, and the client time of the event (ISO 8601 UTC, no fraction). Each request is a
-- different purchase (its order id in eventData) at its own second, counting back from the start
-- (the server accepts events up to 30 days old): real events come from many installs at their own
-- times, not tens of thousands from one install in one second.
-- API_KEY, LF_INSTALL: set by scripts/bench.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end
local key, install = os.getenv("API_KEY"), os.getenv("LF_INSTALL")
local start = os.time()
local counter = 0
local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key}
request = function()
  counter = counter + 1
  local when = os.date("!%Y-%m-%dT%H:%M:%SZ", start - counter * 2 - (thread_number or 0))
  local body = '{"installId":"' .. install .. '","eventName":"purchase","eventData":{"revenue":9.99,"currency":"EUR","orderId":"'
    .. (thread_number or 0) .. '-' .. counter .. '"},"timestamp":"' .. when .. '","sessionId":"bench-session"}'
  return wrk.format("POST", nil, headers, body)
end
