-- Per game: how far a build has come, from the checkpoint rows (what a resume will skip).
CREATE OR REPLACE VIEW build_progress AS
SELECT
    game,
    COUNT(*) AS tables,
    COUNT(*) FILTER (WHERE state = 'done') AS done,
    COUNT(*) FILTER (WHERE state = 'building') AS building,
    COUNT(*) FILTER (WHERE state = 'pending') AS pending,
    CAST(SUM(rows) FILTER (WHERE state = 'done') AS BIGINT) AS rows_done,
    SUM(seconds) FILTER (WHERE state = 'done') AS seconds_done
FROM build_checkpoints
GROUP BY game;
