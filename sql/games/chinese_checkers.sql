-- Chinese Checkers on the M x M rhombus, readable.  A table 'MxM-P' (params: board, pieces,
-- cells = M * M, block = C(cells - P, P)) stores slot idx = class * block + opp: the position
-- in the mover's frame (the player to move is written '1' and heads for the bottom tip),
-- class numbering the mover's piece sets up to the left-right mirror, opp the opponent's set
-- ranked among the cells the mover leaves empty.  tb_texts, layout 'chinese-checkers:MxM-P':
-- idx = class >= 0 holds the mover's pieces as a board pattern ('1' and '.', rows from the
-- top tip joined by '/'); idx = -1 - opp holds the opponent's set as free-cell numbers
-- ('0,4,7': the 1st, 5th and 8th empty cell of the pattern, in reading order).
-- Move codes: from * 128 + to (cells of the stored position, numbered row by row from 0).

-- The position text of a stored slot: the mover pattern with the opponent's pieces placed on
-- the free cells it names, then ' 1' (player 1 to move).
CREATE OR REPLACE MACRO cc_position_text(tbl, pattern, free) AS
    tbl || ' ' || array_to_string(list_transform(
        range(1, length(pattern) + 1),
        lambda k: CASE
            WHEN substr(pattern, k, 1) <> '.' THEN substr(pattern, k, 1)
            WHEN list_contains(
                list_transform(string_split(free, ','), lambda f: CAST(f AS INTEGER)),
                (k - 1) - length(replace(substr(pattern, 1, k - 1), '.', '')))
                THEN '2'
            ELSE '.' END), '') || ' 1';

-- A stored move code as 'from>to' (the cells where the piece starts and ends; the hop chain
-- between them is what `tbdb lookup` prints).
CREATE OR REPLACE MACRO cc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE CAST(code // 128 AS VARCHAR) || '>' || CAST(code % 128 AS VARCHAR) END;

CREATE OR REPLACE VIEW cc_tables AS
SELECT
    table_id,
    table_name,
    CAST(params ->> 'board' AS SMALLINT) AS board,
    CAST(params ->> 'pieces' AS SMALLINT) AS pieces,
    CAST(params ->> 'cells' AS SMALLINT) AS cells,
    CAST(params ->> 'block' AS BIGINT) AS block,
    layout,
    slots,
    positions AS stored_rows,
    raw_positions,
    illegal
FROM tb_tables
WHERE game = 'chinese-checkers' AND mode <> 'building';

-- One row per stored (canonical) position, with player 1 to move; multiplicity = positions it
-- stands for (itself, its mirror image, and both turned 180 degrees with the players swapped).
-- result: win / draw / loss for the player to move, or illegal (the mover has already won, or
-- with 6 pieces a goal's tip is walled in).  distance: plies to the end with best play.
CREATE OR REPLACE VIEW cc_positions AS
SELECT
    t.board,
    t.pieces,
    cc_position_text(t.table_name, a.text, b.text) AS position,
    1 AS player_to_move,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' WHEN -1 THEN 'loss'
                  ELSE 'illegal' END AS result,
    CASE WHEN v.result >= -1 THEN v.distance END AS distance,
    cc_move_text(v.best_move) AS best_move,
    t.table_name,
    v.idx,
    v.multiplicity
FROM tb_index_values AS v
JOIN cc_tables AS t USING (table_id)
-- LEFT joins (every stored slot has both texts): with inner joins DuckDB joined the texts to
-- the table first and every value row to all of them, and a count over 7x7-3 ran for hours
LEFT JOIN tb_texts AS a ON a.layout = t.layout AND a.idx = v.idx // t.block
LEFT JOIN tb_texts AS b ON b.layout = t.layout AND b.idx = -1 - v.idx % t.block
-- the rhombus tables only: a star-distance-K table has no board (its rows are in cc_distance)
WHERE t.board IS NOT NULL;


-- ------------------------------------------------------------------ star distance tables
-- Single-agent distance tables of the 121-hole star, 'star-distance-K' (params: pieces = K,
-- goal = 3): one row per placement of K pieces of one player alone on the star, idx the colex
-- rank of its cells c_1 < .. < c_K (sum of C(c_i, i); cells numbered row by row from the top
-- tip, 0..120), distance the fewest moves (steps, or hop chains over its own pieces) that
-- bring every piece into the bottom point (cells 111..120).  Other goals: turn the board
-- (cc_distance_index does).

-- C(x, i) for i = 0..5 (the tables hold up to 5 pieces)
CREATE OR REPLACE MACRO cc_binom(x, i) AS
    CASE i WHEN 0 THEN 1 WHEN 1 THEN x WHEN 2 THEN x * (x - 1) // 2
           WHEN 3 THEN x * (x - 1) * (x - 2) // 6
           WHEN 4 THEN x * (x - 1) * (x - 2) * (x - 3) // 24
           ELSE x * (x - 1) * (x - 2) * (x - 3) * (x - 4) // 120 END;

-- The largest cell x with C(x, i) <= r: the i-th piece of a placement whose rank is r.  With
-- t = (i! r)^(1/i), x lies between t + (i - 3) / 2 and t + i - 1 (C(x, i) is squeezed between
-- (x - i + 1)^i / i! and (x - (i - 1) / 2)^i / i!): the last of five candidates from the lower
-- end with C(x, i) <= r is it.
CREATE OR REPLACE MACRO cc_top_cell(r, i) AS
    list_max(list_filter(
        list_transform(range(5), lambda j: CAST(floor(pow([1, 1, 2, 6, 24, 120][i + 1] * r,
                                                           1.0 / i) + (i - 3) / 2.0) AS BIGINT)
                                           + j),
        lambda x: x >= 0 AND cc_binom(x, i) <= r));

-- The cells (ascending) of the placement of k pieces at rank r: pieces from the top down, each
-- the top cell of what the pieces above it leave of the rank (the subtraction is made a step
-- late, so that each step finds its cell once).
CREATE OR REPLACE MACRO cc_placement_cells(r, k) AS
    list_reverse(list_reduce(range(k, 0, -1),
        lambda acc, i: {'r': acc.r - cc_binom(coalesce(acc.c[-1], 0), i + 1),
                        'c': list_append(acc.c, cc_top_cell(
                                 acc.r - cc_binom(coalesce(acc.c[-1], 0), i + 1), i))},
        {'r': CAST(r AS BIGINT), 'c': CAST([] AS BIGINT[])}).c);

-- The rank of a placement given as a list of cells (any order): its idx in star-distance-K.
CREATE OR REPLACE MACRO cc_placement_rank(cells) AS
    list_sum(list_transform(list_sort(cells), lambda c, i: cc_binom(CAST(c AS BIGINT), i)));

-- The placement text (see tbdb lookup) of cells heading for the goal point.
CREATE OR REPLACE MACRO cc_placement_text(cells, goal) AS
    'star-distance-' || len(cells) || ' ' || array_to_string(list_transform(range(121),
        lambda c: CASE WHEN list_contains(cells, c) THEN '1' ELSE '.' END
               || CASE WHEN list_contains([0, 2, 5, 9, 22, 34, 45, 55, 64, 74, 85, 97, 110,
                                           114, 117, 119], c) THEN '/' ELSE '' END), '')
    || ' ' || goal;

-- A cell turned 60 degrees clockwise about the centre, n times.
CREATE OR REPLACE MACRO cc_turn_once(c) AS [
    22, 21, 34, 20, 33, 45, 19, 32, 44, 55, 0, 2, 5, 9, 18, 31, 43, 54, 64, 74, 85, 97, 110,
    1, 4, 8, 17, 30, 42, 53, 63, 73, 84, 96, 109, 3, 7, 16, 29, 41, 52, 62, 72, 83, 95, 108,
    6, 15, 28, 40, 51, 61, 71, 82, 94, 107, 14, 27, 39, 50, 60, 70, 81, 93, 106, 13, 26, 38,
    49, 59, 69, 80, 92, 105, 114, 12, 25, 37, 48, 58, 68, 79, 91, 104, 113, 117, 11, 24, 36,
    47, 57, 67, 78, 90, 103, 112, 116, 119, 10, 23, 35, 46, 56, 66, 77, 89, 102, 111, 115,
    118, 120, 65, 76, 88, 101, 75, 87, 100, 86, 99, 98
][c + 1];
CREATE OR REPLACE MACRO cc_turn(c, n) AS
    CASE n % 6 WHEN 0 THEN c WHEN 1 THEN cc_turn_once(c)
               WHEN 2 THEN cc_turn_once(cc_turn_once(c))
               WHEN 3 THEN cc_turn_once(cc_turn_once(cc_turn_once(c)))
               WHEN 4 THEN cc_turn_once(cc_turn_once(cc_turn_once(cc_turn_once(c))))
               ELSE cc_turn_once(cc_turn_once(cc_turn_once(cc_turn_once(cc_turn_once(c)))))
    END;

-- The idx in its star-distance-K table of a placement text with any goal point (the board is
-- turned so that the goal is the bottom point):
--   SELECT moves FROM cc_distance WHERE k = 1 AND idx = cc_distance_index('star-distance-1 ..')
CREATE OR REPLACE MACRO cc_distance_index(text) AS
    cc_placement_rank(list_transform(
        list_filter(range(121), lambda c: substr(replace(split_part(text, ' ', 2), '/', ''),
                                                 c + 1, 1) = '1'),
        lambda c: cc_turn(c, 9 - CAST(split_part(text, ' ', 3) AS INTEGER))));

-- One row per placement of every built distance table, heading for the bottom point (3).
-- cells and placement are computed only for the rows a query reads them from: filter on k,
-- idx or moves with constants (idx = cc_distance_index('...') finds one placement at once;
-- list_contains([...], idx) a few); a join or an IN (SELECT ..) subquery on idx computes the
-- cells of every row first.
CREATE OR REPLACE VIEW cc_distance AS
SELECT
    k,
    idx,
    moves,
    cells,
    cc_placement_text(cells, 3) AS placement,
    table_name
FROM (
    SELECT
        t.k,
        v.idx,
        CAST(v.distance AS SMALLINT) AS moves,
        cc_placement_cells(v.idx, t.k) AS cells,
        t.table_name
    FROM tb_index_values AS v
    -- k read from the params once per table, not once per row
    JOIN (SELECT table_id, table_name, CAST(params ->> 'pieces' AS SMALLINT) AS k
          FROM tb_tables
          WHERE game = 'chinese-checkers' AND table_name LIKE 'star-distance-%'
            AND mode <> 'building') AS t USING (table_id)
);


-- ------------------------------------------------------------------ the small stars
-- Coalition tables of the 13- and 37-hole stars, 'starH-N-M-loneL' (params: holes, players,
-- marbles, lone): slot idx = placement * players + (player to move - 1), the value of lone
-- player L against the coalition of the others, from the side of the player to move (win: its
-- side forces a win).  Other lone players' values are these on the turned board (tbdb lookup
-- --lone).  The position's text: tb_position('chinese-checkers', table_name, idx) on tbdb's
-- connections (tbdb sql, tb.sql).  Move codes: from * 64 + to, 4096 the pass.
CREATE OR REPLACE VIEW cc_star_tables AS
SELECT
    table_id,
    table_name,
    CAST(params ->> 'holes' AS SMALLINT) AS holes,
    CAST(params ->> 'players' AS SMALLINT) AS players,
    CAST(params ->> 'marbles' AS SMALLINT) AS marbles,
    CAST(params ->> 'lone' AS SMALLINT) AS lone,
    slots,
    illegal
FROM tb_tables
WHERE game = 'chinese-checkers' AND mode <> 'building' AND params ->> 'lone' IS NOT NULL;

CREATE OR REPLACE VIEW cc_star_positions AS
SELECT
    t.holes,
    t.players,
    t.marbles,
    t.lone,
    CAST(v.idx % t.players + 1 AS SMALLINT) AS player_to_move,
    CASE v.result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' WHEN -1 THEN 'loss'
                  ELSE 'illegal' END AS result,
    CASE WHEN v.result = 0 THEN 'neither'
         WHEN v.result NOT IN (1, -1) THEN NULL
         WHEN (v.idx % t.players + 1 = t.lone) = (v.result = 1) THEN 'lone'
         ELSE 'coalition' END AS winner,
    CASE WHEN v.result >= -1 THEN v.distance END AS distance,
    CASE WHEN v.best_move = 4096 THEN 'pass'
         WHEN v.best_move >= 0 THEN CAST(v.best_move // 64 AS VARCHAR) || '>'
                                    || CAST(v.best_move % 64 AS VARCHAR) END AS best_move,
    t.table_name,
    v.idx
FROM tb_index_values AS v
JOIN cc_star_tables AS t USING (table_id);

-- How often each side can force its win, per star, players, marbles and stored lone player:
-- positions (legal ones, every player to move), the lone player's forced wins, the
-- coalition's, the draws (neither side can force a win), and the longest forced win of each.
CREATE OR REPLACE VIEW cc_star_coalitions AS
SELECT
    holes, players, marbles, lone,
    count(*) FILTER (WHERE winner IS NOT NULL) AS positions,
    count(*) FILTER (WHERE winner = 'lone') AS lone_wins,
    count(*) FILTER (WHERE winner = 'coalition') AS coalition_wins,
    count(*) FILTER (WHERE winner = 'neither') AS draws,
    max(distance) FILTER (WHERE winner = 'lone') AS longest_lone_win,
    max(distance) FILTER (WHERE winner = 'coalition') AS longest_coalition_win,
    count(*) FILTER (WHERE winner IS NULL) AS illegal
FROM cc_star_positions
GROUP BY holes, players, marbles, lone;

-- The kingmaker report of each star, players and marbles (counted when its last lone player's
-- table is built): per k = 0 .. players, the legal positions in which exactly k single players
-- can force their own win as the lone player (own_winners) and those in which exactly k
-- players can be forced to lose by all the others (forced_losers); all_draw: the positions in
-- which no lone player can force anything, nor the coalition against any.
CREATE OR REPLACE VIEW cc_star_kingmakers AS
SELECT
    CAST(t.params ->> 'holes' AS SMALLINT) AS holes,
    CAST(t.params ->> 'players' AS SMALLINT) AS players,
    CAST(t.params ->> 'marbles' AS SMALLINT) AS marbles,
    CAST(r.k AS SMALLINT) AS k,
    CAST(t.params ->> ('$.kingmaker.own_wins[' || r.k || ']') AS BIGINT) AS own_winners,
    CAST(t.params ->> ('$.kingmaker.forced_losses[' || r.k || ']') AS BIGINT) AS forced_losers,
    CAST(t.params ->> '$.kingmaker.all_draw' AS BIGINT) AS all_draw
-- (a JOIN with its condition: DuckDB renders a CROSS JOIN back as a comma, so a file's copy
-- of the view would not read as tbdb's)
FROM tb_tables AS t
JOIN range(7) AS r(k) ON r.k <= CAST(t.params ->> 'players' AS BIGINT)
WHERE t.game = 'chinese-checkers' AND t.mode <> 'building'
  AND t.params ->> '$.kingmaker.all_draw' IS NOT NULL;
