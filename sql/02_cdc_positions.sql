-- One row per stored (canonical) CDC position, readable.
-- result is for the side to move; distance in plies; multiplicity = placements the row stands for.
CREATE OR REPLACE VIEW cdc_positions AS
SELECT
    t.material,
    t.pieces,
    CASE v.side WHEN 0 THEN 'red' ELSE 'black' END AS side_to_move,
    cdc_position_text(q.pattern, t.letters, v.side) AS position,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
    v.distance,
    cdc_move_text(v.best_move) AS best_move,
    v.material_id,
    v.idx,
    v.multiplicity
FROM cdc_values AS v
JOIN cdc_tables AS t USING (material_id)
JOIN cdc_squares AS q ON q.shape = t.shape AND q.idx = v.idx;
