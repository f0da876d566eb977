-- Lift by strategy family and original state (as the paper's Table 7): attempts, accepted ones,
-- and the mean score gain of the accepted ones.
SELECT strategy, original_state, count(*) AS attempts, count(*) FILTER (WHERE accepted) AS accepted,
       round(avg(score_after - score_before) FILTER (WHERE accepted), 2) AS mean_accepted_gain,
       count(*) FILTER (WHERE early_rejected) AS early_rejected
FROM repair_attempts
GROUP BY strategy, original_state
ORDER BY strategy, original_state;
