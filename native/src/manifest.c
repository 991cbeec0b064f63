/* DIR/manifest.json (docs/probe-format.md section 6): the files `tbdb export` wrote, each with
 * its size and SHA-256; tb_open opens what it lists and checks each file's size, tb_verify each
 * file's SHA-256 (FIPS 180-4, here so that the library needs nothing but libc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* ------------------------------------------------------------------ entry against header */

/* what both the manifest entry and the header's meta JSON hold (docs/probe-format.md 6), then
 * the moves flag, which the binary header holds */
static const char *const HEADER_FIELDS[] = {
    "game", "table", "storage", "params", "layout", "slots", "positions", "moves"
};
#define NFIELDS 7

/* the value of member `key` of the object [obj, end) as a span, "null" when absent (as
 * Python's dict.get gives None): 0, or -1 if malformed */
static int member_span(const char *obj, const char *end, const char *key, const char **v,
                       const char **vend)
{
    static const char NUL[] = "null";
    const char *p = tb_json_member(obj, end, key), *q = p ? tb_json_skip(p, end, 0) : NULL;
    if (p && !q) return -1;
    *v = p ? p : NUL;
    *vend = p ? q : NUL + 4;
    return 0;
}

/* texts of entries' fields, gathered while the entries grow */
typedef struct { char *p; size_t n, cap; } pool;

static int put(pool *b, const char *t, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > cap) cap *= 2;
        char *more = realloc(b->p, cap);
        if (!more) return -1;
        b->p = more;
        b->cap = cap;
    }
    memcpy(b->p + b->n, t, n);
    b->n += n;
    b->p[b->n] = 0;
    return 0;
}

/* the entry's HEADER_FIELDS (those it has) as an object appended to b, me->fields_at its
 * place there for now: 0, -1 if out of memory */
static int keep_fields(pool *b, tb_manifest_entry *me, const char *obj, const char *end)
{
    me->fields_at = b->n;
    int any = 0;
    if (put(b, "{", 1)) return -1;
    for (size_t i = 0; i < NFIELDS + 1; i++) {
        const char *p = tb_json_member(obj, end, HEADER_FIELDS[i]);
        const char *q = p ? tb_json_skip(p, end, 0) : NULL;
        if (!q) continue;                           /* absent (the entry itself was skipped whole) */
        char key[32];
        int k = snprintf(key, sizeof key, "%s\"%s\":", any++ ? "," : "", HEADER_FIELDS[i]);
        if (put(b, key, (size_t)k) || put(b, p, (size_t)(q - p))) return -1;
    }
    return put(b, "}", 2);                          /* and its NUL */
}

static const char *fields_of(const tb_manifest_entry *me)
{
    return (const char *)me + me->fields_at;
}

/* two JSON strings (at a and b) equal once decoded (a string longer than the buffers: as
 * written) */
static int strings_equal(const char *a, const char *aend, const char *b, const char *bend)
{
    char x[1024], y[1024];
    if (tb_json_decode(a, aend, x, sizeof x) == 0 && tb_json_decode(b, bend, y, sizeof y) == 0)
        return strcmp(x, y) == 0;
    return aend - a == bend - b && memcmp(a, b, (size_t)(aend - a)) == 0;
}

static int json_equal(const char *a, const char *aend, const char *b, const char *bend, int depth);

/* every member of object a is one of object b, of an equal value */
static int members_within(const char *a, const char *aend, const char *b, const char *bend,
                          int depth)
{
    const char *p = tb_json_ws(a + 1, aend);
    while (p < aend && *p == '"') {
        const char *kend = tb_json_skip(p, aend, depth), *v, *vend, *q;
        if (!kend) return 0;
        v = tb_json_ws(tb_json_ws(kend, aend) + 1, aend);    /* past the colon */
        if (!(vend = tb_json_skip(v, aend, depth))) return 0;
        int found = 0;
        for (q = tb_json_ws(b + 1, bend); q < bend && *q == '"' && !found;) {
            const char *qk = tb_json_skip(q, bend, depth), *w, *wend;
            if (!qk) return 0;
            w = tb_json_ws(tb_json_ws(qk, bend) + 1, bend);
            if (!(wend = tb_json_skip(w, bend, depth))) return 0;
            found = strings_equal(p, kend, q, qk) && json_equal(v, vend, w, wend, depth + 1);
            q = tb_json_ws(wend, bend);
            if (q < bend && *q == ',') q = tb_json_ws(q + 1, bend);
        }
        if (!found) return 0;
        p = tb_json_ws(vend, aend);
        if (p < aend && *p == ',') p = tb_json_ws(p + 1, aend);
    }
    return 1;
}

/* two JSON values equal as Python's json.loads makes them (objects whatever their members'
 * order, strings decoded), numbers and literals as written: 1, 1.0 and true differ, as tbdb's
 * Python compares them (json.dumps of each) */
static int json_equal(const char *a, const char *aend, const char *b, const char *bend, int depth)
{
    a = tb_json_ws(a, aend);
    b = tb_json_ws(b, bend);
    while (aend > a && (aend[-1] == ' ' || aend[-1] == '\n' || aend[-1] == '\t' || aend[-1] == '\r'))
        aend--;
    while (bend > b && (bend[-1] == ' ' || bend[-1] == '\n' || bend[-1] == '\t' || bend[-1] == '\r'))
        bend--;
    if (a >= aend || b >= bend || depth > 32) return 0;
    if (*a != *b && (*a == '{' || *a == '[' || *a == '"' || *b == '{' || *b == '[' || *b == '"'))
        return 0;
    if (*a == '"') return strings_equal(a, aend, b, bend);
    if (*a == '{')
        return members_within(a, aend, b, bend, depth) && members_within(b, bend, a, aend, depth);
    if (*a == '[') {
        const char *p = tb_json_ws(a + 1, aend), *q = tb_json_ws(b + 1, bend);
        for (;;) {
            if (*p == ']' || *q == ']') return *p == ']' && *q == ']';
            const char *pe = tb_json_skip(p, aend, depth), *qe = tb_json_skip(q, bend, depth);
            if (!pe || !qe || !json_equal(p, pe, q, qe, depth + 1)) return 0;
            p = tb_json_ws(pe, aend);
            q = tb_json_ws(qe, bend);
            if (p < aend && *p == ',') p = tb_json_ws(p + 1, aend);
            if (q < bend && *q == ',') q = tb_json_ws(q + 1, bend);
            if (p >= aend || q >= bend) return 0;
        }
    }
    return aend - a == bend - b && memcmp(a, b, (size_t)(aend - a)) == 0;
}

/* a value's text for a message: as written, at most 100 bytes */
static void shown(char *out, size_t len, const char *v, const char *vend)
{
    size_t n = (size_t)(vend - v);
    snprintf(out, len, "%.*s%s", (int)(n > 100 ? 100 : n), v, n > 100 ? "..." : "");
}

int tb_manifest_mismatch(const tb_manifest_entry *me, const tb_file *f, char *why, size_t len)
{
    const char *js = (const char *)f->data + 48, *jend = js + tb_ld32(f->data + 44);
    const char *fields = fields_of(me), *me_end = fields + strlen(fields);
    char x[128], y[128];
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *h, *hend, *m, *mend;
        if (member_span(js, jend, HEADER_FIELDS[i], &h, &hend) ||
            member_span(fields, me_end, HEADER_FIELDS[i], &m, &mend)) {
            h = "(malformed)";
            hend = h + strlen(h);
        } else if (json_equal(h, hend, m, mend, 0)) {
            continue;
        }
        shown(x, sizeof x, h, hend);
        shown(y, sizeof y, m, mend);
        tb_seterr(why, len, "its header says %s %s, the manifest %s", HEADER_FIELDS[i], x, y);
        return 1;
    }
    /* the binary header's count and flag, which probes read (the meta's may differ from them) */
    const char *m, *mend;
    char slots[24];
    snprintf(slots, sizeof slots, "%llu", (unsigned long long)f->slots);
    member_span(fields, me_end, "slots", &m, &mend);
    if (!json_equal(slots, slots + strlen(slots), m, mend, 0)) {
        shown(y, sizeof y, m, mend);
        tb_seterr(why, len, "its header says %s slots, the manifest %s", slots, y);
        return 1;
    }
    static const char YES[] = "true", NO[] = "false";
    const char *flag = f->moves ? YES : NO;
    m = tb_json_member(fields, me_end, "moves");                   /* absent: true */
    mend = m ? tb_json_skip(m, me_end, 0) : NULL;
    if (m ? !mend || !json_equal(flag, flag + strlen(flag), m, mend, 0) : !f->moves) {
        if (!m) m = YES, mend = YES + 4;
        shown(y, sizeof y, m, mend ? mend : m);
        tb_seterr(why, len, "its header says moves %s, the manifest %s", f->moves ? "true" : "false", y);
        return 1;
    }
    return 0;
}

int tb_manifest_parse(const char *text, size_t n, const char *what, tb_manifest_entry **out,
                      int *count, char *err, size_t err_len)
{
    const char *end = text + n;
    char format[32];
    long long version = 0;
    *out = NULL;
    *count = 0;
    if (tb_json_string(text, end, "format", format, sizeof format) || strcmp(format, TB_MANIFEST_FORMAT) ||
        tb_json_int(text, end, "version", &version)) {
        tb_seterr(err, err_len, "manifest '%s' is not a tbdb probe-file manifest", what);
        return TB_DAMAGED;
    }
    if (version != TB_FORMAT_VERSION) {
        tb_seterr(err, err_len, "manifest '%s' has format version %lld; this tbprobe reads version "
                  "%d (export the tables again with this tbdb: tbdb export)", what, version,
                  TB_FORMAT_VERSION);
        return TB_DAMAGED;
    }
    const char *p = tb_json_member(text, end, "files");
    if (!p || *p != '[') {
        tb_seterr(err, err_len, "manifest '%s' is not a tbdb probe-file manifest", what);
        return TB_DAMAGED;
    }
    int cap = 0;
    tb_manifest_entry *e = NULL;
    pool fields = {NULL, 0, 0};
    p = tb_json_ws(p + 1, end);
    while (p < end && *p != ']') {
        const char *next = tb_json_skip(p, end, 0);
        if (cap == *count) {
            cap = cap ? 2 * cap : 256;
            tb_manifest_entry *more = realloc(e, (size_t)cap * sizeof *e);
            if (!more) { free(e); free(fields.p); tb_seterr(err, err_len, "out of memory"); return TB_NOMEM; }
            e = more;
        }
        tb_manifest_entry *x = &e[*count];
        long long size = -1;
        if (!next || *p != '{' || tb_json_string(p, next, "path", x->path, sizeof x->path) ||
            tb_json_string(p, next, "game", x->game, sizeof x->game) ||
            tb_json_string(p, next, "table", x->table, sizeof x->table) ||
            tb_json_string(p, next, "sha256", x->sha256, sizeof x->sha256) ||
            tb_json_int(p, next, "size", &size) || size < 0 || strlen(x->sha256) != 64 ||
            x->path[0] == '/' || strstr(x->path, "..")) {
            tb_seterr(err, err_len, "manifest '%s' has a malformed entry (file %d)", what, *count + 1);
            free(e);
            free(fields.p);
            return TB_DAMAGED;
        }
        if (keep_fields(&fields, x, p, next)) {
            free(e);
            free(fields.p);
            tb_seterr(err, err_len, "out of memory");
            return TB_NOMEM;
        }
        x->size = (uint64_t)size;
        (*count)++;
        p = tb_json_ws(next, end);
        if (p < end && *p == ',') p = tb_json_ws(p + 1, end);
    }
    if (p >= end) {
        tb_seterr(err, err_len, "manifest '%s' is not a tbdb probe-file manifest", what);
        free(e);
        free(fields.p);
        return TB_DAMAGED;
    }
    /* the entries, then their fields' texts, in one block (each entry finds its own) */
    size_t head = (size_t)*count * sizeof *e;
    tb_manifest_entry *block = *count ? malloc(head + fields.n + 1) : NULL;
    if (*count && !block) {
        free(e);
        free(fields.p);
        tb_seterr(err, err_len, "out of memory");
        return TB_NOMEM;
    }
    if (block) {
        memcpy(block, e, head);
        memcpy((char *)block + head, fields.p, fields.n + 1);
        for (int i = 0; i < *count; i++)
            block[i].fields_at = head - (size_t)i * sizeof *e + block[i].fields_at;
    }
    free(e);
    free(fields.p);
    *out = block;
    return TB_OK;
}

/* ------------------------------------------------------------------ SHA-256 */

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

/* x86-64's SHA extensions (SHA-NI: AMD since Zen, Intel since Ice Lake and Goldmont), several
 * times the plain code's speed: a lazy base checks each file on its first probe, which pays
 * for it (benchmarks/RESULTS.md).  Chosen at run time by CPUID; the plain code stays for other
 * machines. */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(TB_NO_SHA_NI)
#include <cpuid.h>
#include <immintrin.h>
#define TB_SHA_NI 1

__attribute__((target("sha,sse4.1,ssse3")))
static void sha256_blocks_ni(uint32_t h[8], const uint8_t *p, uint64_t blocks)
{
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i t = _mm_loadu_si128((const __m128i *)&h[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);
    t = _mm_shuffle_epi32(t, 0xB1);                    /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                  /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);            /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                 /* CDGH */
    /* four rounds of message words w (big-endian words + K), then the schedule's next words:
     * m_next = msg2(msg1(m0, m1) + (m3:m2 >> 32 bits), m3); the words are four variables, not an
     * array, so that they stay in registers whatever the optimisation level */
#define R4(w, g) do {                                                                  \
        __m128i k_ = _mm_add_epi32((w), _mm_loadu_si128((const __m128i *)&K256[4 * (g)])); \
        s1 = _mm_sha256rnds2_epu32(s1, s0, k_);                                         \
        s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k_, 0x0E));                \
    } while (0)
#define NEXT(m0, m1, m2, m3) \
    m0 = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(m0, m1),             \
                                            _mm_alignr_epi8(m3, m2, 4)), m3)
    for (; blocks; blocks--, p += 64) {
        __m128i abef = s0, cdgh = s1;
#define WORDS(i) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * (i))), swap)
        __m128i m0 = WORDS(0), m1 = WORDS(1), m2 = WORDS(2), m3 = WORDS(3);
#undef WORDS
        R4(m0, 0); R4(m1, 1); R4(m2, 2); R4(m3, 3);
        for (int g = 4; g < 16; g += 4) {   /* rounds 16-63: the same four steps, thrice */
            NEXT(m0, m1, m2, m3); R4(m0, g);
            NEXT(m1, m2, m3, m0); R4(m1, g + 1);
            NEXT(m2, m3, m0, m1); R4(m2, g + 2);
            NEXT(m3, m0, m1, m2); R4(m3, g + 3);
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
#undef R4
#undef NEXT
    t = _mm_shuffle_epi32(s0, 0x1B);                   /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);                  /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0);                 /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);                    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

static int have_sha_ni(void)
{
    static int known = -1;
    int got = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (got < 0) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        got = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
              __get_cpuid_max(0, NULL) >= 7;
        if (got) {
            __cpuid_count(7, 0, a, b, c, d);
            got = (b >> 29) & 1;   /* CPUID.(7,0):EBX bit 29, SHA */
        }
        __atomic_store_n(&known, got, __ATOMIC_RELAXED);   /* any thread finds the same */
    }
    return got;
}
#endif

/* the plain code where the processor lacks the extensions, or when asked (tb_sha256_plain: the
 * tests compare both) */
static void sha256_blocks(uint32_t h[8], const uint8_t *p, uint64_t blocks, int plain)
{
#ifdef TB_SHA_NI
    if (!plain && have_sha_ni()) {
        sha256_blocks_ni(h, p, blocks);
        return;
    }
#endif
    (void)plain;
    for (; blocks; blocks--, p += 64) sha256_block(h, p);
}

static void sha256_hex(const uint8_t *data, uint64_t n, char out[65], int plain)
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    uint64_t full = n & ~(uint64_t)63;
    sha256_blocks(h, data, full / 64, plain);
    uint8_t tail[128] = {0};
    size_t rest = (size_t)(n - full), len = rest < 56 ? 64 : 128;
    memcpy(tail, data + full, rest);
    tail[rest] = 0x80;
    for (int i = 0; i < 8; i++) tail[len - 1 - i] = (uint8_t)((n * 8) >> (8 * i));
    sha256_blocks(h, tail, len / 64, plain);
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

void tb_sha256_hex(const uint8_t *data, uint64_t n, char out[65]) { sha256_hex(data, n, out, 0); }

void tb_sha256_plain(const uint8_t *data, uint64_t n, char out[65]) { sha256_hex(data, n, out, 1); }

int tb_verify_file(const tb_file *f, char *err, size_t err_len)
{
    if (!f->sha256[0]) return TB_OK;
    char got[65];
    tb_sha256_hex(f->data, f->size, got);
    if (strcmp(got, f->sha256) == 0) return TB_OK;
    tb_seterr(err, err_len, "probe file '%s' is damaged: its SHA-256 is not its manifest's "
              "(export it again: tbdb export)", f->what);
    return TB_DAMAGED;
}

int tb_verify(const tb_base *tb, char *err, size_t err_len)
{
    if (!tb) return TB_INVALID;
    for (int i = 0; i < tb->count; i++) {
        int rc = tb_verify_file(tb->files[i], err, err_len);
        if (rc != TB_OK) return rc;
    }
    return TB_OK;
}
