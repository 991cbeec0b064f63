/* The probe-file format's names (docs/probe-format.md), in one place: the magic, the version
 * this library reads, the header's sizes and flags, the layouts and each layout's section tags
 * in file order.  A name TB_X is what tbdb.probe_files.header calls X (Python);
 * tests/test_native_format_tags.py checks both sides, and the files Python writes, agree. */
#ifndef TB_FORMAT_H
#define TB_FORMAT_H

#define TB_MAGIC "TBDBPRB1"                /* the first 8 bytes */
#define TB_MAGIC_BYTES 8
#define TB_FORMAT_VERSION 3                /* the only version read, of files and manifests */
#define TB_HEADER_BYTES 48                 /* header.HEADER.size: the fixed header */
#define TB_SECTION_ENTRY_BYTES 56          /* header.SECTION.size: a section table's entry */
#define TB_FLAG_MOVES 1                    /* the header's flag: best moves present */
#define TB_MANIFEST "manifest.json"        /* a directory's list of its files */
#define TB_MANIFEST_FORMAT "tbdb-probe-files"   /* the manifest's "format" */

/* the header's layout numbers (header.LAYOUTS: a storage kind's; direct cells: an index's) */
enum { TB_LAYOUT_INDEX = 0, TB_LAYOUT_KEY = 1, TB_LAYOUT_RUNS = 2, TB_LAYOUT_DIRECT = 3 };
#define TB_LAYOUT_COUNT 4
/* header.STORAGE_OF_LAYOUT: the meta JSON's "storage" of each layout, by number */
#define TB_STORAGE_OF_LAYOUT "index", "key", "runs", "index"

/* the section tags, 4 bytes each */
#define TB_SECTION_ORDER "ORDR"            /* index: the slot order of the streams */
#define TB_SECTION_VALUES "VALS"           /* index: the (result, distance) stream */
#define TB_SECTION_MOVES "MOVE"            /* index: the best-move stream (TB_FLAG_MOVES) */
#define TB_SECTION_CELL_LAYOUT "CALP"      /* direct cells: their alphabets and widths */
#define TB_SECTION_CELLS "CELL"            /* direct cells: the cells */
#define TB_SECTION_KEYS "KEYS"             /* key: the sorted keys, 3 x i64 a row */
#define TB_SECTION_KEY_RESULTS "KRES"      /* key: i8 a row */
#define TB_SECTION_KEY_DISTANCES "KDIS"    /* key: i16 a row */
#define TB_SECTION_KEY_MOVES "KMOV"        /* key: i32 a row (TB_FLAG_MOVES) */
#define TB_SECTION_RUN_OFFSETS "ROFF"      /* runs: each position's first run, i64 */
#define TB_SECTION_RUN_STARTS "RSTA"       /* runs: each run's first plies left, i16 */
#define TB_SECTION_RUN_SCORES "RSCO"       /* runs: each run's score, i8 */
#define TB_SECTION_RUN_MOVES "RMOV"        /* runs: each run's best move, i8 */

/* each layout's sections in file order (index and key: the last only with TB_FLAG_MOVES) */
#define TB_INDEX_SECTIONS TB_SECTION_ORDER, TB_SECTION_VALUES, TB_SECTION_MOVES
#define TB_KEY_SECTIONS TB_SECTION_KEYS, TB_SECTION_KEY_RESULTS, TB_SECTION_KEY_DISTANCES, \
    TB_SECTION_KEY_MOVES
#define TB_RUNS_SECTIONS TB_SECTION_RUN_OFFSETS, TB_SECTION_RUN_STARTS, TB_SECTION_RUN_SCORES, \
    TB_SECTION_RUN_MOVES
#define TB_DIRECT_SECTIONS TB_SECTION_CELL_LAYOUT, TB_SECTION_CELLS

#endif
