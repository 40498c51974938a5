-- wrk script: POST a small JSON body to the tool endpoint and count non-200 answers.
wrk.method = "POST"
wrk.body = '{"input":"hello world"}'
wrk.headers["Content-Type"] = "application/json"
local bad = 0
response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("LOAD non200=%d p50_ms=%.2f p99_ms=%.2f rps=%.1f errors=%d\n",
    bad, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.requests / (summary.duration / 1e6),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
