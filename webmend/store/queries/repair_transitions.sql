-- Band transition matrix of repair (as the paper's Table 8): original band x final band, with
-- counts and row percentages. One row per page: its best checkpoint (is_best) carries both bands.
WITH pages AS (
    SELECT id, input_hash, coalesce(original_state, 'unscored') AS original_band,
           coalesce(state, 'unscored') AS final_band
    FROM checkpoints
    WHERE is_best
)
SELECT original_band, final_band, count(*) AS pages,
       round(100.0 * count(*) / sum(count(*)) OVER (PARTITION BY original_band), 1) AS row_pct
FROM pages
GROUP BY original_band, final_band
ORDER BY original_band, final_band;
