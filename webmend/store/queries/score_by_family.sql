-- Score distribution by family (the matched test item's category; "(none)" without an item).
SELECT
    coalesce(family, '(none)') AS family,
    count(*) AS pages,
    count(score_total) AS scored,
    round(avg(score_total), 1) AS mean,
    min(score_total) AS min,
    round(median(score_total), 1) AS median,
    max(score_total) AS max
FROM evaluations
GROUP BY ALL
ORDER BY family;
