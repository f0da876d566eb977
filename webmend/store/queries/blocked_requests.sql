-- Blocked-request counts by reason and channel (from the listed requests, at most 200 per page),
-- with the pages they came from.
SELECT
    b.reason AS reason,
    b.channel AS channel,
    count(*) AS requests,
    count(DISTINCT id) AS pages
FROM (SELECT id, unnest(blocked_requests) AS b FROM evaluations)
GROUP BY ALL
ORDER BY requests DESC, reason, channel;
