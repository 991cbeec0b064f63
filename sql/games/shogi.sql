-- Shogi, readable.  A table (KGK, KRGK; catalogue params: pieces, prod = piece placements per
-- king pair, size = slots) stores black-to-move positions only, slot = kk * prod + part: kk
-- numbers the king pairs (black king on files 1-5, kings apart; shogi_king_pairs), part the
-- placement of the other pieces, on the board or in a hand.  A white-to-move position is the
-- colour swap of a stored one (board turned 180 degrees, owners and hands exchanged); a
-- position with black's king on files 6-9 is the left-right mirror of a stored one.
-- tb_texts (layout 'shogi:<pieces>') holds per part an 81-character board in SFEN reading
-- order ('.' empty, promoted P L N S B R written T U V W X Y, lower case white) followed by
-- the SFEN hands field.  Squares: (file - 1) * 9 + rank, rank 0 = a.  Move codes: to + 128 *
-- from (from = 80 + piece type for a drop, types P L N S B R G = 1..7) + 16384 if promoting.
CREATE OR REPLACE MACRO shogi_square(s) AS
    CAST(s // 9 + 1 AS VARCHAR) || chr(CAST(97 + s % 9 AS INTEGER));

CREATE OR REPLACE MACRO shogi_move_usi(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         WHEN (code // 128) % 128 > 80
             THEN substr('PLNSBRG', CAST((code // 128) % 128 - 80 AS INTEGER), 1) || '*'
                  || shogi_square(code % 128)
         ELSE shogi_square((code // 128) % 128) || shogi_square(code % 128)
              || CASE WHEN code >= 16384 THEN '+' ELSE '' END END;

-- a king ('K' or 'k') put on square sq of an 81-character board
CREATE OR REPLACE MACRO shogi_put(board, sq, ch) AS
    left(board, CAST((sq % 9) * 9 + 8 - sq // 9 AS INTEGER)) || ch
    || substr(board, CAST((sq % 9) * 9 + 8 - sq // 9 + 2 AS INTEGER));

-- an 81-character board as the board field of SFEN: ranks separated by '/', runs of empty
-- squares as digits (longest first: a run is replaced whole), promoted pieces as '+' letters
CREATE OR REPLACE MACRO shogi_board_sfen(board) AS
    replace(replace(replace(replace(replace(replace(
    replace(replace(replace(replace(replace(replace(
    replace(replace(replace(replace(replace(replace(replace(replace(replace(
        concat_ws('/', substr(board, 1, 9), substr(board, 10, 9), substr(board, 19, 9),
                  substr(board, 28, 9), substr(board, 37, 9), substr(board, 46, 9),
                  substr(board, 55, 9), substr(board, 64, 9), substr(board, 73, 9)),
        '.........', '9'), '........', '8'), '.......', '7'), '......', '6'), '.....', '5'),
        '....', '4'), '...', '3'), '..', '2'), '.', '1'),
        'T', '+P'), 'U', '+L'), 'V', '+N'), 'W', '+S'), 'X', '+B'), 'Y', '+R'),
        't', '+p'), 'u', '+l'), 'v', '+n'), 'w', '+s'), 'x', '+b'), 'y', '+r');

-- black's and white's pieces of an SFEN hands field, '-' for none
CREATE OR REPLACE MACRO shogi_black_hand(field) AS
    coalesce(nullif(regexp_replace(field, '[0-9]*[a-z]', '', 'g'), ''), '-');

CREATE OR REPLACE MACRO shogi_white_hand(field) AS
    coalesce(nullif(regexp_replace(field, '[0-9]*[A-Z]', '', 'g'), ''), '-');

CREATE OR REPLACE VIEW shogi_king_pairs AS
SELECT CAST(row_number() OVER (ORDER BY b, w) - 1 AS BIGINT) AS kk,
       CAST(b AS BIGINT) AS black_king, CAST(w AS BIGINT) AS white_king
FROM range(45) AS bk(b), range(81) AS wk(w)
WHERE greatest(abs(b // 9 - w // 9), abs(b % 9 - w % 9)) >= 2;

CREATE OR REPLACE VIEW shogi_tables AS
SELECT
    table_id,
    table_name,
    CAST(params ->> 'pieces' AS SMALLINT) AS pieces,
    layout,
    CAST(params ->> 'prod' AS BIGINT) AS prod,
    CAST(params ->> 'size' AS BIGINT) AS size
FROM tb_tables
WHERE game = 'shogi' AND mode <> 'building';

-- One row per stored position (black to move), readable: result and distance (plies to mate)
-- for black; black_hand / white_hand the pieces in each hand ('-' none); multiplicity the
-- raw positions it stands for, both sides to move: 4 (itself, its mirror image and their
-- colour swaps, which have white to move), or 2 if the mirror leaves it unchanged.
CREATE OR REPLACE VIEW shogi_positions AS
SELECT
    table_name,
    shogi_board_sfen(board) || ' b ' || hands || ' 1' AS sfen,
    'black' AS side_to_move,
    shogi_black_hand(hands) AS black_hand,
    shogi_white_hand(hands) AS white_hand,
    CASE result WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS result,
    distance,
    shogi_move_usi(best_move) AS best_move,
    table_id,
    idx,
    multiplicity
FROM (
    SELECT p.table_name, p.table_id, p.idx, p.result, p.distance, p.best_move, p.multiplicity,
           shogi_put(shogi_put(left(x.text, 81), kp.black_king, 'K'), kp.white_king, 'k')
               AS board,
           substr(x.text, 82) AS hands
    FROM (
        SELECT t.table_name, t.table_id, t.layout, v.idx, v.result, v.distance, v.best_move,
               v.multiplicity, v.idx // t.prod AS kk, v.idx % t.prod AS part
        FROM tb_index_values AS v
        JOIN shogi_tables AS t USING (table_id)
        WHERE v.result BETWEEN -1 AND 1
    ) AS p
    JOIN shogi_king_pairs AS kp ON kp.kk = p.kk
    JOIN tb_texts AS x ON x.layout = p.layout AND x.idx = p.part
);
