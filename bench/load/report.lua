-- Shared by the wrk scripts: counts answers that are not 200, or that do not hold the expected
-- Base64 ("aGVsbG8gd29ybGQ=" for "hello world"), and prints one LOAD line. Each wrk thread
-- has its own Lua state, so the counts are gathered from the threads at the end.
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  bad, wrong = 0, 0
end
function response(status, headers, body)
  if status ~= 200 then
    bad = bad + 1
  elseif not string.find(body, "aGVsbG8gd29ybGQ=", 1, true) then
    wrong = wrong + 1
  end
end
function done(summary, latency, requests)
  local b, w = 0, 0
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    w = w + t:get("wrong")
  end
  io.write(string.format("LOAD requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f non200=%d wrong=%d socket_errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, b, w,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
