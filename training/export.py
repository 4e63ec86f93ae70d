"""Slim a trained model for shipping: the policy weights and the spaces, nothing else.

    carcassonne train export runs/duel/model.zip -o agents/models/ppo_duel.zip
    carcassonne train export downloaded.zip -o safe.zip --trust-pickle

A run's `model.zip` also holds the optimizer's moment estimates and the last
observations of every training env (most of the file); playing needs neither.
The slim file still loads with `MaskablePPO.load` (an optimizer without state stands in)
and plays exactly as the full one; training resumed from it starts Adam afresh. It
carries the description this package loads it by without unpickling anything
(`carcassonne_env.model_file`).

`--trust-pickle` reads a model file without that description (saved by SB3 itself or by
an older version of this package) the way SB3 does: by unpickling it, which runs any
code stored in the file. Give it only for a file you trust; the slim copy it writes
loads safely from then on.

`--candidate-moves K` gives a candidate-move model (`--policy candidates`) room for K
candidates instead of the K it was trained with. Its weights do not depend on K: each
candidate's logit comes from that move and the position alone, so the exported model
plays as before wherever the legal moves fit the old K, and chooses among all of them
where they did not (a 2-player position has more than 128 legal moves about one time in
ten, and the encoder keeps the first K).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from carcassonne_env.checks import check_space, output_file
from carcassonne_env.cli_errors import command_parser, run_script
from carcassonne_env.model_file import mark_solo, save_model, trained_on_solo

from .cards import check_card, write_card


def with_candidate_moves(model: Any, k: int) -> None:
    """Give the candidate-move `model` (loaded) room for `k` candidates: its observation
    space and a policy of the same weights built for it. ValueError for a model without
    candidate moves or a k below 1."""
    from gymnasium import spaces

    space = model.observation_space
    if not isinstance(space, spaces.Dict) or "candidates" not in space.spaces:
        raise ValueError(
            "--candidate-moves: the model does not observe candidate moves "
            "(trained without --policy candidates)"
        )
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"--candidate-moves must be a positive integer, got {k!r}")
    rows = check_space(space, spaces.Box, "candidates")
    actions = check_space(space, spaces.Box, "candidate_actions")
    cells = {
        **space.spaces,
        "candidate_actions": spaces.Box(
            int(actions.low.min()), int(actions.high.max()), (k,), actions.dtype
        ),
        "candidates": spaces.Box(
            float(rows.low.min()), float(rows.high.max()), (k, rows.shape[1]), rows.dtype
        ),
    }
    space = spaces.Dict({name: cells[name] for name in space.spaces})
    policy = type(model.policy)(space, model.action_space, model.lr_schedule, **model.policy_kwargs)
    policy.load_state_dict(model.policy.state_dict())
    model.observation_space, model.policy = space, policy


def export_model(
    src: str | Path, dst: str | Path, candidate_moves: int | None = None, trust_pickle: bool = False
) -> Path:
    """Write the slim copy of the saved model `src` (a path or a shipped model's name) to
    `dst` (parent folders are created; the file is written whole), with room for
    `candidate_moves` candidates if given (`with_candidate_moves`); returns `dst`.
    `trust_pickle`: read `src` by unpickling it (`agents.sb3_policy.load_model`), for a
    file without a description that one trusts."""
    from agents.sb3_policy import load_model

    model = load_model(src, cached=False, trust_pickle=trust_pickle)
    if candidate_moves is not None:
        with_candidate_moves(model, candidate_moves)
    # The last observations go, but whether they were solo ones stays: with 3 or 4 seats
    # the spaces alone cannot tell the solo variant from a 3- or 4-player game.
    mark_solo(model, trained_on_solo(model))
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    # (slim: SB3 stores its entries uncompressed; the spaces' bounds, K x columns of them
    # for candidate moves, deflate to almost nothing)
    return save_model(model, dst, slim=True)


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = command_parser("carcassonne train export", __doc__)
    parser.add_argument("model", help="a saved model (.zip) or a shipped model's name")
    parser.add_argument("-o", "--output", type=Path, required=True, help="slim .zip to write")
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.add_argument(
        "--card",
        type=Path,
        help="a model card (JSON, as `carcassonne train "
        "card NAME --json` prints one) to put into the file (default: none, the "
        "copy has no card)",
    )
    parser.add_argument(
        "--candidate-moves",
        type=int,
        metavar="K",
        help="a candidate-move model: room for K candidates (see above; "
        "default: the model's own K)",
    )
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="read a model file without this package's description by "
        "unpickling it (runs code stored in the file: trusted files only)",
    )
    args = parser.parse_args(argv)
    try:  # before any work: no folder created, no file replaced unasked
        output_file(args.output, args.overwrite)
    except ValueError as err:
        parser.error(str(err))
    card = None
    if args.card is not None:
        try:
            card = json.loads(args.card.read_text(encoding="utf-8"))
            check_card(card)
        except (OSError, ValueError) as err:
            parser.error(f"--card {args.card}: {err}")
    dst = export_model(args.model, args.output, args.candidate_moves, args.trust_pickle)
    if card is not None:
        write_card(dst, card)
    print(f"wrote {dst} ({dst.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
