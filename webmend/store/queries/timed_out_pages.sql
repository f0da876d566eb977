-- Pages that ran out of time: timed out twice (status timeout), hung (status hang), or hit a
-- time limit once and passed on the retry (flag retried).
SELECT id, status, family, elapsed_s, reason
FROM evaluations
WHERE status IN ('timeout', 'hang') OR list_contains(flags, 'retried')
ORDER BY elapsed_s DESC, id;
