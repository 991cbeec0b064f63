// Probing from C++: the C header works as is (extern "C" inside).  Built by the tests:
//   c++ -std=c++17 -Inative/include native/examples/probe.cpp native/build/libtbprobe.a -o probe
//   ./probe DIR "8/8/8/pKC5 r"
#include <array>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "tbprobe.h"

// a tb_base that closes itself
struct Base {
    std::unique_ptr<tb_base, decltype(&tb_close)> tb{nullptr, &tb_close};
    explicit Base(const std::string &dir) {
        char err[512];
        tb_base *raw = nullptr;
        if (tb_open(dir.c_str(), &raw, err, sizeof err) != TB_OK) throw std::runtime_error(err);
        tb.reset(raw);
    }
};

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: probe DIR CDC-POSITION\n");
        return 2;
    }
    try {
        Base base(argv[1]);
        tb_position pos;
        char err[512];
        if (tb_parse("cdc", argv[2], &pos, err, sizeof err) != TB_OK) throw std::runtime_error(err);
        // the array form: what an engine holds
        std::array<int8_t, 32> board;
        std::copy(pos.cells, pos.cells + 32, board.begin());
        tb_value v;
        int status = tb_probe_cdc(base.tb.get(), board.data(), pos.side, &v);
        if (status < 0) throw std::runtime_error("not in the tables (status " + std::to_string(status) + ")");
        char move[32] = "none";
        if (v.move >= 0) tb_move_text(&pos, v.move, move, sizeof move);
        std::printf("%s %d %s\n", tb_outcome_name(v.result), v.distance, move);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "probe: %s\n", e.what());
        return 2;
    }
    return 0;
}
