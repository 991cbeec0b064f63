-- Oware books, readable: one table per seed count (params: seeds, stable_from,
-- moves_stable_from); score is the net number of seeds the mover still gains with perfect play
-- for every plies-left t in [turns_left_from, turns_left_to]; a position's last run reaches 200.
CREATE OR REPLACE VIEW oware_values AS
SELECT
    CAST(t.params ->> 'seeds' AS SMALLINT) AS seeds,
    r.idx,
    x.text AS position,
    r.turns_left_from,
    r.turns_left_to,
    r.score,
    CASE WHEN r.best_move < 0 THEN NULL ELSE r.best_move END AS best_move
FROM tb_score_runs AS r
JOIN tb_tables AS t USING (table_id)
JOIN tb_texts AS x ON x.layout = t.layout AND x.idx = r.idx
WHERE t.game = 'oware';

-- Per seed count: from which plies-left on no score (and no best move) changes any more.
CREATE OR REPLACE VIEW oware_convergence AS
SELECT
    CAST(params ->> 'seeds' AS SMALLINT) AS seeds,
    CAST(params ->> 'stable_from' AS SMALLINT) AS stable_from,
    CAST(params ->> 'moves_stable_from' AS SMALLINT) AS moves_stable_from,
    slots AS positions,
    positions AS runs
FROM tb_tables
WHERE game = 'oware' AND mode <> 'building';
