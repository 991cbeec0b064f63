-- Oware books, readable: score is the value for every plies-left t in
-- [turns_left_from, turns_left_to]; a position's last run reaches 200.
CREATE OR REPLACE VIEW oware_values AS
SELECT
    r.seeds,
    r.idx,
    p.position,
    r.turns_left_from,
    r.turns_left_to,
    r.score,
    CASE WHEN r.best_move < 0 THEN NULL ELSE r.best_move END AS best_move
FROM oware_runs AS r
JOIN oware_positions AS p USING (seeds, idx);
