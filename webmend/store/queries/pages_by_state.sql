-- Pages per state band (Low < 40 <= Mid < 80 <= High; "unscored" for rejects and failures).
SELECT band, pages, round(100.0 * pages / sum(pages) OVER (), 1) AS percent
FROM (
    SELECT coalesce(state, 'unscored') AS band, count(*) AS pages
    FROM evaluations
    GROUP BY band
)
ORDER BY list_position(['High', 'Mid', 'Low', 'unscored'], band);
