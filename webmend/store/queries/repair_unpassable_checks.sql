-- Failed test cases no correct page can pass (docs/repair.md), per page as it came in (round 0):
-- they still fail and count in the score; repair does not target them. The rule of each is in
-- the page's repairs.jsonl record (diagnosis.unpassable_tests).
SELECT id, unnest(unpassable_tests) AS test_id
FROM checkpoints
WHERE round = 0 AND len(unpassable_tests) > 0
ORDER BY id, test_id;
