-- Per stored table: how much the symmetries save.
-- raw_positions: the material's own placements x 2 sides to move; positions_answered adds the
-- colour-swapped material the same rows answer; fixed_positions: placements that a
-- non-identity board symmetry maps to themselves.
CREATE OR REPLACE VIEW symmetry_stats AS
SELECT
    'cdc' AS game,
    t.material AS table_name,
    t.swapped_material AS also_answers,
    CAST(SUM(v.multiplicity) AS BIGINT) AS raw_positions,
    COUNT(*) AS canonical_rows,
    SUM(v.multiplicity) / COUNT(*) AS reduction_factor,
    CAST(SUM(v.multiplicity) * CASE WHEN t.swapped_material = t.material THEN 1 ELSE 2 END
         AS BIGINT) AS positions_answered,
    SUM(v.multiplicity) * CASE WHEN t.swapped_material = t.material THEN 1 ELSE 2 END
        / COUNT(*) AS total_reduction_factor,
    CAST(COALESCE(SUM(v.multiplicity) FILTER (WHERE v.multiplicity < 4), 0) AS BIGINT)
        AS fixed_positions
FROM cdc_values AS v
JOIN cdc_tables AS t USING (material_id)
GROUP BY t.material, t.swapped_material;
