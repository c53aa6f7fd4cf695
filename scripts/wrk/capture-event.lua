-- POST /api/client/capture-event as the seed client sends it, for one registered install.
-- TOKEN: the project token.
local token = os.getenv("TOKEN")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"token":"' .. token .. '","platform":"IOS","install_instance_id":"bench-install","event_name":"purchase_initiated",'
  .. '"event_data":{"product_id":"12345","amount":99.99},"time_since_app_install":30}'
