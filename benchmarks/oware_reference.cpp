// The Oware book algorithm of the article tbdb's books come from, written out in plain
// single-threaded C++ as the yardstick of benchmarks/oware_solver.py (which compiles it with
// g++ -O3 -march=native; rules: docs/rules/oware.md).
//
//   1. Transitions, computed once: for every position of every book 0..N (all seed counts laid
//      end to end, each in lexicographic order, house 0 most significant), its six moves, each
//      one uint32: the index of the position after the move (seen by the opponent) times 128,
//      plus 8 x the seeds it captures (at most 15: a capture takes at most five houses of 2 or
//      3) plus 7 - the house.  So 8 x (captured - V(child)) + 7 - house is one load and a
//      subtraction, and the largest of the six is the best score and its lowest house at once
//      (25 bits of index: books 0..16 at most).  The sowing of each (house, seeds) pair is a
//      table made beforehand.
//   2. Levels: V(., 0) = 0; for t = 1, 2, ... one pass over every position computes
//      V(s, t) = max over legal m of captured(m) - V(child(s, m), t - 1) (or the mover's own
//      seeds with no legal move) and the lowest house reaching it, from V(., t - 1).
//   3. Stop when the values repeat: if no score changed at step t, step t + 1 would compute the
//      same scores and moves again, so V(., t') = V(., t) up to the 200-ply limit.  A book's
//      children lie in books of as many seeds or fewer, so once a book and every smaller one
//      had a step without a score change, their values repeat too: the passes skip them.
//
// Besides the time it prints what tbdb's books say, so a comparison checks it compares the same
// work: the number of runs (a run starts at t = 1 and wherever (score, best move) differs from
// t - 1), stable_from / moves_stable_from per book (the last step that changed a score / a score
// or a best move; 1 if none after t = 1) and the score with 200 plies left summed over each book.
//
//   g++ -O3 -march=native -o oware_reference benchmarks/oware_reference.cpp
//   ./oware_reference 9 5   -> one JSON line: the best of 5 repetitions, each timed from the
//                              transitions to the stop.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

const int HOUSES = 12;
const int MAX_T = 200;
int64_t F[HOUSES][64];  // F[k][r] = C(r + k, k)

void init_f() {
    for (int k = 0; k < HOUSES; k++)
        for (int r = 0; r < 64; r++) F[k][r] = (k == 0 || r == 0) ? 1 : F[k - 1][r] + F[k][r - 1];
}

int64_t book_size(int n) { return F[11][n]; }

// Rank of the board seen from the other side (house i <- b[(i + 6) % 12]) holding r seeds.
int64_t rank_flipped(const int *b, int r) {
    int64_t idx = 0;
    for (int i = 0; i < HOUSES - 1; i++) {
        int a = b[(i + 6) % HOUSES];
        int k = HOUSES - 1 - i;
        idx += F[k][r] - F[k][r - a];
        r -= a;
    }
    return idx;
}

// SOWN[h][s][j]: seeds house j receives when house h holding s seeds is sown (the origin
// skipped from 12 seeds on), LAST[h][s] the house the last seed lands in.
int SOWN[6][64][HOUSES], LAST[6][64];

void init_sowing() {
    for (int h = 0; h < 6; h++)
        for (int s = 1; s < 64; s++) {
            for (int j = 0; j < HOUSES; j++) SOWN[h][s][j] = 0;
            int p = h;
            for (int k = 0; k < s; k++) {
                p = (p + 1) % HOUSES;
                if (p == h) p = (p + 1) % HOUSES;
                SOWN[h][s][p]++;
            }
            LAST[h][s] = p;
        }
}

// Play house h of b into out (mover's orientation); captured seeds, or -1 if illegal.
int sow(const int *b, int h, int *out) {
    int s = b[h];
    if (s == 0) return -1;
    const int *add = SOWN[h][s];
    int opp = 0;
    for (int j = 0; j < HOUSES; j++) out[j] = b[j] + add[j];
    out[h] = 0;
    for (int j = 6; j < HOUSES; j++) opp += out[j];
    if (opp == 0) return -1;  // the opponent must have a seed after the move
    int p = LAST[h][s], cap = 0, j = p;
    while (j >= 6 && (out[j] == 2 || out[j] == 3)) cap += out[j--];
    if (cap == 0 || cap == opp) return 0;  // nothing to take, or a grand slam
    for (int i = j + 1; i <= p; i++) out[i] = 0;
    return cap;
}

void next_position(int *h) {
    if (h[11] > 0) {
        h[10]++;
        h[11]--;
        return;
    }
    int j = 10;
    while (h[j] == 0) j--;
    int s = h[j];
    h[j] = 0;
    h[j - 1]++;
    h[11] = s - 1;
}

struct Result {
    double transitions_s, levels_s;
    int levels;
    long long runs, evaluated;
    std::vector<int> stable_from, moves_stable_from;
    std::vector<long long> score_sum;
};

Result solve(int max_n) {
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    std::vector<int64_t> base(max_n + 2, 0);
    for (int n = 0; n <= max_n; n++) base[n + 1] = base[n] + book_size(n);
    const int64_t total = base[max_n + 1];
    // Constant cells after the books: HIGH (value 127), read by an illegal move so that it
    // never wins, and OWN + k (value -k), read by the one pseudo move (house 0) of a position
    // without a legal move, worth its own k seeds: the inner loop needs no branch.
    const int64_t high = total, own_cell = total + 1;
    std::vector<uint32_t> moves(total * 6);
    for (int n = 0; n <= max_n; n++) {
        int pos[HOUSES] = {0}, out[HOUSES];
        pos[HOUSES - 1] = n;  // rank 0: every seed in house 11
        for (int64_t i = 0; i < book_size(n); i++) {
            if (i > 0) next_position(pos);
            uint32_t *m = &moves[(base[n] + i) * 6];
            bool any = false;
            int own = 0;
            for (int h = 0; h < 6; h++) {
                own += pos[h];
                int cap = sow(pos, h, out);
                any |= cap >= 0;
                m[h] = cap < 0 ? (uint32_t)high << 7 | (7 - h)
                               : (uint32_t)(base[n - cap] + rank_flipped(out, n - cap)) << 7 |
                                     (uint32_t)(8 * cap + 7 - h);
            }
            if (!any) m[0] = (uint32_t)(own_cell + own) << 7 | 7;
        }
    }
    auto t1 = clock::now();
    const int64_t cells = own_cell + max_n + 1;
    std::vector<int8_t> prev(cells, 0), cur(cells, 0), prev_move(total, -1), mv(total);
    prev[high] = cur[high] = 127;
    for (int k = 0; k <= max_n; k++) prev[own_cell + k] = cur[own_cell + k] = (int8_t)-k;
    Result r;
    r.runs = r.evaluated = 0;
    r.stable_from.assign(max_n + 1, 1);
    r.moves_stable_from.assign(max_n + 1, 1);
    int t = 1, settled = 0;  // books 0 .. settled - 1: their values repeat
    for (; t <= MAX_T && settled <= max_n; t++) {
        const int8_t *p = prev.data();
        for (int n = settled; n <= max_n; n++) {
            int scores = 0, runs = 0;
            for (int64_t g = base[n]; g < base[n + 1]; g++) {
                const uint32_t *m = &moves[g * 6];
                int k[6];
                for (int h = 0; h < 6; h++) k[h] = (int)(m[h] & 127) - 8 * p[m[h] >> 7];
                int key = std::max(std::max(std::max(k[0], k[1]), std::max(k[2], k[3])),
                                   std::max(k[4], k[5]));
                int best = key >> 3;
                int8_t best_h = (int8_t)(key & 7);  // 7 - the lowest house reaching it
                // (a position without a legal move always names house 0: only changes count)
                cur[g] = (int8_t)best;
                mv[g] = best_h;
                int sc = best != p[g];
                scores += sc;
                runs += sc | (best_h != prev_move[g]);
            }
            if (t == 1) runs = (int)book_size(n);  // every position's first run
            r.runs += runs;
            r.evaluated += book_size(n);
            if (t >= 2 && scores) r.stable_from[n] = t;
            if (t >= 2 && runs) r.moves_stable_from[n] = t;
            if (t >= 2 && !scores && n == settled) settled = n + 1;
        }
        prev.swap(cur);
        prev_move.swap(mv);
    }
    auto t2 = clock::now();
    r.levels = std::min(t - 1, MAX_T);
    r.score_sum.assign(max_n + 1, 0);
    for (int n = 0; n <= max_n; n++)
        for (int64_t g = base[n]; g < base[n + 1]; g++) r.score_sum[n] += prev[g];
    r.transitions_s = std::chrono::duration<double>(t1 - t0).count();
    r.levels_s = std::chrono::duration<double>(t2 - t1).count();
    return r;
}

void print_list(const char *name, const std::vector<long long> &v) {
    std::printf("\"%s\": [", name);
    for (size_t i = 0; i < v.size(); i++) std::printf("%s%lld", i ? ", " : "", v[i]);
    std::printf("]");
}

}  // namespace

int main(int argc, char **argv) {
    int max_n = argc > 1 ? std::atoi(argv[1]) : 9;
    int reps = argc > 2 ? std::atoi(argv[2]) : 1;
    if (max_n < 0 || max_n > 16 || reps < 1) {
        std::fprintf(stderr, "usage: %s MAX_SEEDS(0..16) [REPETITIONS]\n", argv[0]);
        return 2;
    }
    init_f();
    init_sowing();
    Result best;
    double best_s = 1e300;
    for (int i = 0; i < reps; i++) {
        Result r = solve(max_n);
        if (r.transitions_s + r.levels_s < best_s) best_s = r.transitions_s + r.levels_s, best = r;
    }
    std::printf("{\"max_seeds\": %d, \"seconds\": %.6f, \"transitions_s\": %.6f, "
                "\"levels_s\": %.6f, \"levels\": %d, \"evaluated\": %lld, \"runs\": %lld, ",
                max_n, best_s, best.transitions_s, best.levels_s, best.levels, best.evaluated,
                best.runs);
    print_list("stable_from", std::vector<long long>(best.stable_from.begin(),
                                                     best.stable_from.end()));
    std::printf(", ");
    print_list("moves_stable_from", std::vector<long long>(best.moves_stable_from.begin(),
                                                           best.moves_stable_from.end()));
    std::printf(", ");
    print_list("score_sum", best.score_sum);
    std::printf("}\n");
    return 0;
}
