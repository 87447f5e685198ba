-- POSTs the multipart body in WRK_BODY (boundary WRK_BOUNDARY) to /api/upload on every request.
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY")
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. os.getenv("WRK_BOUNDARY")
