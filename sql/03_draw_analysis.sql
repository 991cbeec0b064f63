-- Per game, material and side to move: how positions divide into wins, draws and losses.
-- CDC: counts are over every placement a player would count (rows weighted by multiplicity), and
-- a table XvY also reports YvX (colours and side to move swapped).
-- Oware: per seed count, positions seen from the mover, with 200 plies left: a win, draw or loss
-- is a positive, zero or negative net score (no distances: the value is a score).
CREATE OR REPLACE VIEW draw_analysis AS
WITH cdc AS (
    SELECT
        material_id,
        side,
        SUM(multiplicity) AS positions,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = 1), 0) AS wins,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = 0), 0) AS draws,
        COALESCE(SUM(multiplicity) FILTER (WHERE result = -1), 0) AS losses,
        MAX(distance) FILTER (WHERE result = 1) AS longest_win,
        MAX(distance) FILTER (WHERE result = -1) AS longest_loss
    FROM cdc_values
    GROUP BY material_id, side
),
oriented AS (
    SELECT t.material, t.pieces, c.side, c.positions, c.wins, c.draws, c.losses, c.longest_win,
           c.longest_loss
    FROM cdc AS c JOIN cdc_tables AS t USING (material_id)
    UNION ALL
    SELECT t.swapped_material, t.pieces, 1 - c.side, c.positions, c.wins, c.draws, c.losses, c.longest_win,
           c.longest_loss
    FROM cdc AS c JOIN cdc_tables AS t USING (material_id)
    WHERE t.swapped_material <> t.material
),
oware AS (
    SELECT
        seeds,
        COUNT(*) AS positions,
        COUNT(*) FILTER (WHERE score > 0) AS wins,
        COUNT(*) FILTER (WHERE score = 0) AS draws,
        COUNT(*) FILTER (WHERE score < 0) AS losses
    FROM oware_runs
    WHERE turns_left_to = 200
    GROUP BY seeds
)
SELECT
    'cdc' AS game,
    material,
    pieces,
    CASE side WHEN 0 THEN 'red' ELSE 'black' END AS side_to_move,
    CAST(positions AS BIGINT) AS positions,
    CAST(wins AS BIGINT) AS wins,
    CAST(draws AS BIGINT) AS draws,
    CAST(losses AS BIGINT) AS losses,
    draws / positions AS draw_rate,
    longest_win,
    longest_loss
FROM oriented
UNION ALL
SELECT
    'oware' AS game,
    CAST(seeds AS VARCHAR) || ' seeds' AS material,
    seeds AS pieces,
    'mover' AS side_to_move,
    positions,
    wins,
    draws,
    losses,
    draws / positions AS draw_rate,
    NULL AS longest_win,
    NULL AS longest_loss
FROM oware;
