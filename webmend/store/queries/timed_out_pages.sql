-- Pages that ran out of time: used up their wall-clock budget (status timeout), hung (status
-- hang), or hung once and were evaluated again (flag retried).
SELECT id, status, family, elapsed_s, reason
FROM evaluations
WHERE status IN ('timeout', 'hang') OR list_contains(flags, 'retried')
ORDER BY elapsed_s DESC, id;
