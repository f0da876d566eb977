-- Pages with blocked requests, most first (blocked_requests_total also counts those not listed).
SELECT id, family, blocked_requests_total, len(blocked_requests) AS listed
FROM evaluations
WHERE blocked_requests_total > 0
ORDER BY blocked_requests_total DESC, id;
