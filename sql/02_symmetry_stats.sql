-- Per built table: how much the symmetries save.  raw_positions: positions the stored rows
-- stand for (each canonical row counts its whole orbit); canonical_rows: rows stored;
-- positions_answered: adds positions answered through a swap of colours or players;
-- fixed_positions: raw positions that a non-identity symmetry maps to themselves.
CREATE OR REPLACE VIEW symmetry_stats AS
SELECT
    t.game,
    t.table_name,
    t.raw_positions,
    t.positions AS canonical_rows,
    CASE WHEN t.positions > 0 THEN t.raw_positions / t.positions END AS reduction_factor,
    t.positions_answered,
    CASE WHEN t.positions > 0 THEN t.positions_answered / t.positions END
        AS total_reduction_factor,
    t.fixed_positions,
    t.illegal,
    t.mode
FROM tb_tables AS t
JOIN build_checkpoints AS c ON c.game = t.game AND c.table_name = t.table_name
WHERE c.state = 'done';
