"""benchmarks/profile_jitted.py: numba's symbols in perf's map format (perf itself is not
needed here)."""

from numba import njit

from benchmarks.profile_jitted import short_name, write_perf_map


def test_short_name_keeps_the_module_and_function():
    symbol = "_ZN15carcassonne_env4core5board10place_tileB3v63B62c8tJTIeFIjx"
    assert short_name(symbol) == "board.place_tile"
    assert short_name("__memset_avx2_unaligned_erms") == "__memset_avx2_unaligned_erms"


def test_perf_map_names_each_compiled_function_at_its_address(tmp_path):
    @njit
    def inner(x):
        return x * 3 + 1

    @njit
    def outer(n):
        total = 0
        for i in range(n):
            total += inner(i)
        return total

    assert outer(4) == 22  # compiled in this process: its module is in memory
    path = tmp_path / "perf.map"
    count = write_perf_map([outer], str(path))
    rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
    assert count == len(rows) >= 1
    names = [short_name(name) for _, _, name in rows]
    assert any(name.endswith("outer") for name in names)
    starts = [int(start, 16) for start, _, _ in rows]
    assert starts == sorted(starts) and all(int(size, 16) > 0 for _, size, _ in rows)


def test_perf_map_of_nothing_compiled_here_is_empty(tmp_path):
    @njit
    def never_called(x):
        return x

    assert write_perf_map([never_called], str(tmp_path / "perf.map")) == 0
