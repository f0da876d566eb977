-- The most-failed test cases: failures, runs and failure rate per test id.
SELECT
    test_id,
    count(*) FILTER (WHERE NOT passed) AS failures,
    count(*) AS runs,
    round(avg(CASE WHEN passed THEN 0 ELSE 1 END), 3) AS failure_rate,
    count(*) FILTER (WHERE failed_action = 'load') AS failed_at_load
FROM test_results
GROUP BY test_id
HAVING failures > 0
ORDER BY failures DESC, test_id
LIMIT 20;
