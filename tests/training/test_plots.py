"""`training.plots`: a learning curve's legend names only the series with data (issue 78
item 5: "win vs self" with no data had an entry)."""

from __future__ import annotations

import pytest


def test_a_column_without_values_gets_no_line_and_no_legend_entry(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from training.plots import draw_curves

    run, empty = tmp_path / "duel", tmp_path / "empty"
    run.mkdir(), empty.mkdir()
    (run / "curve.csv").write_text(
        "timesteps,wall_s,episodes,win_vs_random,win_vs_self\n"
        "2048,13.2,40,0.5,nan\n4096,26.0,80,0.75,nan\n"
    )
    (empty / "curve.csv").write_text("timesteps,wall_s,episodes,win_vs_self\n2048,13.2,40,nan\n")
    fig = draw_curves([run, empty])
    try:
        first, second = fig.axes
        assert [line.get_label() for line in first.lines] == ["win vs random"]
        assert [t.get_text() for t in first.get_legend().get_texts()] == ["win vs random"]
        assert len(second.lines) == 0 and second.get_legend() is None
    finally:
        plt.close(fig)
