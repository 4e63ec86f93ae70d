"""Slim a trained model for shipping: the policy weights and the spaces, nothing else.

    carcassonne train export runs/duel/model.zip -o agents/models/ppo_duel.zip

A run's `model.zip` also holds the optimizer's moment estimates and the last
observations of every training env (together ~90% of the file); playing needs neither.
The slim file still loads with `MaskablePPO.load` (an optimizer without state stands in)
and plays exactly as the full one; training resumed from it starts Adam afresh.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from carcassonne_env.cli_errors import OneLineParser, run_script

from .cards import check_card, write_card

# Saved attributes that only a running training needs.
TRAINING_STATE = ("_last_obs", "_last_original_obs", "_last_episode_starts", "ep_info_buffer",
                  "ep_success_buffer", "tensorboard_log", "rollout_buffer_class",
                  "rollout_buffer_kwargs")


def export_model(src: str | Path, dst: str | Path) -> Path:
    """Write the slim copy of the saved model `src` (a path or a shipped model's name) to
    `dst` (parent folders are created); returns `dst`."""
    from agents.sb3_policy import load_model
    from carcassonne_env.envs.for_model import trained_on_solo

    model = load_model(src, cached=False)
    # The last observations go, but whether they were solo ones stays: with 3 or 4 seats
    # the spaces alone cannot tell the solo variant from a 3- or 4-player game.
    model.carcassonne_solo = trained_on_solo(model)
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1),
                                              **policy.optimizer_kwargs)
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    model.save(dst, exclude=list(TRAINING_STATE))
    return dst


def main(argv: list[str] | None = None) -> int:
    """Run the command with `argv` (default: the process's); returns the exit status."""
    parser = OneLineParser(prog="carcassonne train export", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a saved model (.zip) or a shipped model's name")
    parser.add_argument("-o", "--output", type=Path, required=True, help="slim .zip to write")
    parser.add_argument("--card", type=Path, help="a model card (JSON, as `carcassonne train "
                        "card NAME --json` prints one) to put into the file")
    args = parser.parse_args(argv)
    card = None
    if args.card is not None:
        try:
            card = json.loads(args.card.read_text(encoding="utf-8"))
            check_card(card)
        except (OSError, ValueError) as err:
            parser.error(f"--card {args.card}: {err}")
    dst = export_model(args.model, args.output)
    if card is not None:
        write_card(dst, card)
    print(f"wrote {dst} ({dst.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
