-- Text forms of CDC squares, moves and positions, computed from the compact stored columns.
-- Squares: 0 = a1, 7 = h1, 24 = a4.  Move codes: from * 32 + to, plus 1024 for a capture.
CREATE OR REPLACE MACRO cdc_square_name(s) AS
    chr(97 + s % 8) || CAST(s // 8 + 1 AS VARCHAR);

CREATE OR REPLACE MACRO cdc_move_text(code) AS
    CASE WHEN code IS NULL OR code < 0 THEN NULL
         ELSE cdc_square_name((code % 1024) // 32)
              || CASE WHEN code >= 1024 THEN 'x' ELSE '-' END
              || cdc_square_name(code % 32) END;

-- The piece on square i, given the table's letters in index order and the square of each slot.
CREATE OR REPLACE MACRO cdc_cell(letters, s0, s1, s2, s3, i) AS
    CASE WHEN i = s0 THEN substr(letters, 1, 1)
         WHEN i = s1 THEN substr(letters, 2, 1)
         WHEN i = s2 THEN substr(letters, 3, 1)
         WHEN i = s3 THEN substr(letters, 4, 1)
         ELSE '.' END;

-- Runs of empty squares become digits, longest runs first.
CREATE OR REPLACE MACRO cdc_rank_text(cells) AS
    replace(replace(replace(replace(replace(replace(replace(replace(cells,
        '........', '8'), '.......', '7'), '......', '6'), '.....', '5'),
        '....', '4'), '...', '3'), '..', '2'), '.', '1');

CREATE OR REPLACE MACRO cdc_position_text(letters, s0, s1, s2, s3, side) AS
    array_to_string(list_transform([3, 2, 1, 0], lambda r: cdc_rank_text(array_to_string(
        list_transform(range(r * 8, r * 8 + 8), lambda i: cdc_cell(letters, s0, s1, s2, s3, i)),
        ''))), '/')
    || CASE WHEN side = 0 THEN ' r' ELSE ' b' END;
