-- Rounds to the best checkpoint, per original state: how soon repair finds what it exports.
SELECT coalesce(original_state, 'unscored') AS original_state, round AS best_round, count(*) AS pages
FROM checkpoints
WHERE is_best
GROUP BY original_state, round
ORDER BY original_state, round;
