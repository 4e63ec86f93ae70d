"""`VsBotsVectorEnv.teacher`: a jitted bot's move and soft targets for imitation."""

import numpy as np
import pytest

from carcassonne_env.bots.jitted_bots import JittedBot, mt_seed
from carcassonne_env.envs import VsBotsVectorEnv


@pytest.mark.parametrize("spec", ["greedy", "heuristic"])
def test_teacher_plays_the_jitted_bots_move(spec):
    env = VsBotsVectorEnv(num_envs=4, opponents="random", board_size=24, obs_features="aggregate")
    env.reset(seed=3)
    env.teacher(spec)  # allocates the generators: reseed them as the bots below
    rng = np.random.default_rng(0)
    for t in range(12):
        seeds = [100 * t + i for i in range(4)]
        for i, s in enumerate(seeds):
            # internals: the teacher's generators, reseeded as the bots below are
            mt_seed(env._teacher_mt[i], np.int64(s))
        bots = [JittedBot(spec, s) for s in seeds]
        moves = [bot.act(env.game(i)) for i, bot in enumerate(bots)]
        out = env.teacher(spec, temperature=0.5)
        masks = env.action_masks()
        for i in range(4):
            game = env.game(i)
            assert out.action[i] == env.encoder.move_to_action(game, moves[i])
            assert masks[i, out.action[i]]
            assert out.probs[i].sum() == pytest.approx(1.0, abs=1e-5)
            assert not out.probs[i][~masks[i]].any()  # only legal actions
            if spec == "greedy":
                assert out.probs[i, out.action[i]] == 1.0 and out.margin[i] == 0
            else:  # the heuristic's move is among its most probable ones
                assert out.probs[i, out.action[i]] == pytest.approx(out.probs[i].max())
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def test_teacher_temperature_and_margin():
    env = VsBotsVectorEnv(num_envs=2, opponents="greedy", board_size=24)
    env.reset(seed=0)
    sharp = env.teacher("heuristic", temperature=0).probs.copy()
    assert set(np.unique(sharp)) == {0.0, 1.0}
    soft = env.teacher("heuristic", temperature=5.0)
    assert ((soft.probs > 0) == env.action_masks()).all()  # every legal move weighs
    assert np.isfinite(soft.margin).all() and (soft.margin != 0).any()
    with pytest.raises(ValueError, match="temperature"):
        env.teacher("heuristic", temperature=-1)
    with pytest.raises(ValueError, match="no jitted version"):
        env.teacher("mcts")
