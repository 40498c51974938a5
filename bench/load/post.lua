-- wrk script: the CTP call, a small JSON body POSTed to /api/tools/base64-encoder.
wrk.method = "POST"
wrk.body = '{"input":"hello world"}'
wrk.headers["Content-Type"] = "application/json"
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
