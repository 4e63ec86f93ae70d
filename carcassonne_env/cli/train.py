"""`carcassonne train WHAT ...`: the `training` scripts (PPO baselines and the rest), each
given the options after its name."""

from __future__ import annotations

import argparse

from ..checks import install_hint
from .args import command

# `carcassonne train WHAT` runs the `main(argv)` of this module (or "module:function").
TRAIN_COMMANDS = {
    "solo": "training.train_solo",
    "multi": "training.train_multi",
    "bc": "training.imitation",
    "evaluate": "training.evaluate",
    "plot": "training.plots",
    "rllib": "training.rllib",
    "export": "training.export",
    "search": "training.search",
    "value": "training.value_fit",
    "card": "training.cards",
    "reproduce": "training.cards:reproduce_main",
}


def train_options(p: argparse.ArgumentParser) -> None:
    """The options of `carcassonne train`: the script's name, then its own options
    untouched."""
    p.add_argument("what", choices=sorted(TRAIN_COMMANDS))
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the script's own options")


@command("train", train_options)
def cmd_train(args: argparse.Namespace) -> int:
    """PPO baselines: train, resume, evaluate (train extra)

    solo: MaskablePPO on the solo variant; multi: 2-player PPO (both run the best RL-only
    recipe unless --preset names another; --minutes M: train for M minutes, then evaluate);
    evaluate: a saved model against bots or on the solo benchmark; plot: learning curves
    of runs as a PNG; export: a slim copy of a model (weights and spaces); search:
    search-guided self-play (expert iteration with the puct bot); value: a candidate
    model's value head refitted on its own self-play outcomes (for puct); rllib: the RLlib
    example (rllib extra); card: a model's card (how it was made, its evaluation);
    reproduce: run a card again.
    Options after the name go to that script: carcassonne train solo --help."""
    # The script's exit status is the command's; a missing extra is named.
    import importlib

    if "--debug" in args.rest:  # options after the name go to the script, but not this one
        args.rest.remove("--debug")
        args.debug = True
    name, _, function = TRAIN_COMMANDS[args.what].partition(":")
    try:
        module = importlib.import_module(name)
    except ImportError as err:
        if "pip install" in str(err):  # the module said what to install
            raise
        extra = "rllib" if args.what == "rllib" else "train"
        raise ImportError(f"{err}; install it with: {install_hint(extra)}") from err
    result = getattr(module, function or "main")(args.rest)
    return result if isinstance(result, int) else 0
