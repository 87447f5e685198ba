-- POSTs the JSON document in the WRK_BODY environment variable on every request.
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY") or "{}"
wrk.headers["Content-Type"] = "application/json"
