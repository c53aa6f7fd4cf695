-- POST /v1/install as Branch's iOS SDK 3.x builds it (BNCRequestFactory dataForInstallWithURLString),
-- from an X-Forwarded-For address drawn from the same 10,000 addresses as LinkForty's install.lua,
-- each address one phone (its IDFV made from the address), as that script's fingerprint makes each
-- address one install. BRANCH_KEY: a key_live_ key of the project.
math.randomseed(os.time() + 2)
local key = os.getenv("BRANCH_KEY")
request = function()
  local a, b = math.random(0, 39), math.random(1, 250)
  local ip = string.format("198.18.%d.%d", a, b)
  local idfv = string.format("6D92078A-8246-4BA4-AE5B-%06X%06X", a, b)
  local body = '{"branch_key":"' .. key .. '","branch_sdk_request_unique_id":"' .. idfv .. '-1733200000000",'
    .. '"branch_sdk_request_timestamp":1733200000000,"metadata":{"skan_time_window":"0.000000"},"sdk":"ios3.6.0",'
    .. '"hardware_id":"' .. idfv .. '","hardware_id_type":"vendor_id","is_hardware_id_real":true,"ios_vendor_id":"' .. idfv .. '",'
    .. '"os":"iOS","os_version":"17.4.1","build":"21E236","environment":"FULL_APP","locale":"fr_FR","country":"FR","language":"fr",'
    .. '"brand":"Apple","model":"iPhone15,2","screen_dpi":3,"screen_height":2532,"screen_width":1170,"connection_type":"wifi",'
    .. '"user_agent":"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",'
    .. '"app_version":"2.1","ios_bundle_id":"com.example.shop","debug":false,"update":0}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["User-Agent"] = "Shop/2.1 CFNetwork/1494.0.7 Darwin/23.4.0",
    ["X-Forwarded-For"] = ip}, body)
end
