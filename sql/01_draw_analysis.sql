-- Per table, label (a material as a player names it) and side to move: how the positions divide
-- into wins, draws and losses for the side to move, counted as a player counts positions (each
-- game writes these counts when it builds a table: CDC counts every placement, for both XvY and
-- YvX; Oware counts positions by the sign of the score with 200 plies left).  Illegal positions
-- (a position the rules forbid, e.g. Chinese Checkers' "already won") are counted apart.
CREATE OR REPLACE VIEW draw_analysis AS
SELECT
    t.game,
    t.table_name,
    s.label AS material,
    s.pieces,
    s.side_to_move,
    s.positions,
    s.wins,
    s.draws,
    s.losses,
    s.illegal,
    CASE WHEN s.positions > 0 THEN s.draws / s.positions END AS draw_rate,
    s.longest_win,
    s.longest_loss
FROM tb_stats AS s
JOIN tb_tables AS t USING (table_id);
