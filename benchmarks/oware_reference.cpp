// The Oware book algorithm of the article tbdb's books come from, written out in C++ as the
// yardstick of benchmarks/oware_solver.py (g++ -O2; rules: docs/rules/oware.md).
//
//   1. Transitions, computed once: for every position of every book 0..N (all seed counts laid
//      end to end, each in lexicographic order, house 0 most significant), the child of each of
//      its six moves (index of the position after the move, seen by the opponent) and the seeds
//      that move captures; -1 for an illegal move.
//   2. Levels: V(., 0) = 0; for t = 1, 2, ... one pass over *every* position computes
//      V(s, t) = max over legal m of captured(m) - V(child(s, m), t - 1) (or the mover's own
//      seeds with no legal move) and the lowest house reaching it, from V(., t - 1).
//   3. Stop when the values repeat: if no score changed at step t, step t + 1 would compute the
//      same scores and moves again, so V(., t') = V(., t) up to the 200-ply limit.
//
// Besides the time it prints what tbdb's books say, so a comparison checks it compares the same
// work: the number of runs (a run starts at t = 1 and wherever (score, best move) differs from
// t - 1), stable_from / moves_stable_from per book (the last step that changed a score / a score
// or a best move; 1 if none after t = 1) and the score with 200 plies left summed over each book.
//
//   g++ -O2 -o oware_reference benchmarks/oware_reference.cpp && ./oware_reference 9 5
//   -> one JSON line: the best of 5 repetitions, each timed from the transitions to the stop.
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
        for (int r = 0; r < 64; r++) {
            if (k == 0 || r == 0) {
                F[k][r] = 1;
            } else {
                F[k][r] = F[k - 1][r] + F[k][r - 1];
            }
        }
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

// Play house h of b into out (mover's orientation); captured seeds, or -1 if illegal.
int sow(const int *b, int h, int *out) {
    int s = b[h];
    if (s == 0) return -1;
    for (int j = 0; j < HOUSES; j++) out[j] = b[j];
    out[h] = 0;
    int p = h;
    for (int k = 0; k < s; k++) {
        p = (p + 1) % HOUSES;
        if (p == h) p = (p + 1) % HOUSES;  // 12 seeds or more: the origin is skipped
        out[p]++;
    }
    int opp = 0;
    for (int j = 6; j < HOUSES; j++) opp += out[j];
    if (opp == 0) return -1;  // the opponent must have a seed after the move
    int cap = 0;
    int j = p;
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
    long long runs;
    std::vector<int> stable_from, moves_stable_from;
    std::vector<long long> score_sum;
};

Result solve(int max_n) {
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    std::vector<int64_t> base(max_n + 2, 0);
    for (int n = 0; n <= max_n; n++) base[n + 1] = base[n] + book_size(n);
    const int64_t total = base[max_n + 1];
    std::vector<int32_t> child(total * 6);
    std::vector<int8_t> gain(total * 6);
    std::vector<int8_t> own(total);
    std::vector<int8_t> book_of(total);  // for the score sums
    for (int n = 0; n <= max_n; n++) {
        int pos[HOUSES] = {0}, out[HOUSES];
        pos[HOUSES - 1] = n;  // rank 0: every seed in house 11
        for (int64_t i = 0; i < book_size(n); i++) {
            if (i > 0) next_position(pos);
            int64_t g = base[n] + i;
            book_of[g] = (int8_t)n;
            int o = 0;
            for (int h = 0; h < 6; h++) o += pos[h];
            own[g] = (int8_t)o;
            for (int h = 0; h < 6; h++) {
                int cap = sow(pos, h, out);
                gain[g * 6 + h] = (int8_t)cap;
                child[g * 6 + h] =
                    cap < 0 ? -1 : (int32_t)(base[n - cap] + rank_flipped(out, n - cap));
            }
        }
    }
    auto t1 = clock::now();
    // Two constant cells after the books: ZERO (value 0) and HIGH (value 127).  An illegal
    // move reads HIGH, so it never wins; a position without a legal move has one pseudo move
    // worth its own seeds, reading ZERO, so the inner loop needs no branch.
    const int64_t zero = total, high = total + 1;
    for (int64_t g = 0; g < total; g++) {
        bool any = false;
        for (int h = 0; h < 6; h++) {
            if (child[g * 6 + h] < 0) {
                child[g * 6 + h] = (int32_t)high;
                gain[g * 6 + h] = 0;
            } else {
                any = true;
            }
        }
        if (!any) child[g * 6] = (int32_t)zero, gain[g * 6] = own[g];
    }
    std::vector<int8_t> prev(total + 2, 0), cur(total + 2), prev_move(total, -2), mv(total);
    prev[high] = cur[high] = 127;
    cur[zero] = 0;
    Result r;
    r.runs = 0;
    r.stable_from.assign(max_n + 1, 1);
    r.moves_stable_from.assign(max_n + 1, 1);
    int t = 1;
    for (; t <= MAX_T; t++) {
        bool score_changed = false;
        for (int n = 0; n <= max_n; n++) {
            long long runs = 0, scores = 0;
            for (int64_t g = base[n]; g < base[n + 1]; g++) {
                const int32_t *c = &child[g * 6];
                const int8_t *w = &gain[g * 6];
                int best = -1000, best_h = 0;
                for (int h = 0; h < 6; h++) {
                    int v = w[h] - prev[c[h]];
                    best_h = v > best ? h : best_h;
                    best = v > best ? v : best;
                }
                if (c[best_h] == zero) best_h = -1;
                cur[g] = (int8_t)best;
                mv[g] = (int8_t)best_h;
                bool sc = best != prev[g];
                scores += sc;
                runs += sc | (best_h != prev_move[g]);
            }
            r.runs += runs;
            if (t >= 2 && scores) r.stable_from[n] = t, score_changed = true;
            if (t >= 2 && runs) r.moves_stable_from[n] = t;
        }
        prev.swap(cur);
        prev_move.swap(mv);
        if (t >= 2 && !score_changed) break;  // the values repeat
    }
    auto t2 = clock::now();
    r.levels = std::min(t, MAX_T);
    r.score_sum.assign(max_n + 1, 0);
    for (int64_t g = 0; g < total; g++) r.score_sum[book_of[g]] += prev[g];
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
    if (max_n < 0 || max_n > 20 || reps < 1) {
        std::fprintf(stderr, "usage: %s MAX_SEEDS(0..20) [REPETITIONS]\n", argv[0]);
        return 2;
    }
    init_f();
    Result best;
    double best_s = 1e300;
    for (int i = 0; i < reps; i++) {
        Result r = solve(max_n);
        if (r.transitions_s + r.levels_s < best_s) best_s = r.transitions_s + r.levels_s, best = r;
    }
    std::printf("{\"max_seeds\": %d, \"seconds\": %.6f, \"transitions_s\": %.6f, "
                "\"levels_s\": %.6f, \"levels\": %d, \"runs\": %lld, ",
                max_n, best_s, best.transitions_s, best.levels_s, best.levels, best.runs);
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
