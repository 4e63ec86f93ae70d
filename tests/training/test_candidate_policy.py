"""The policy over candidate moves (`training.policy.CandidatePolicy`) and the `puct` bot."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from agents.puct import Node, PUCTAgent, back_up, row_probabilities  # noqa: E402
from carcassonne_env import Game, Rules, make_bot  # noqa: E402
from carcassonne_env.envs import VsBotsVectorEnv  # noqa: E402
from training.policy import CandidatePolicy  # noqa: E402

pytestmark = pytest.mark.xdist_group("candidates")  # on one worker: tests/conftest.py


@pytest.fixture(scope="module")
def env_and_model():
    env = VsBotsVectorEnv(
        4, opponents="random", board_size=12, candidate_moves=16, num_threads=1, on_overflow="warn"
    )
    model = MaskablePPO(
        CandidatePolicy,
        env.to_sb3(),
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        policy_kwargs={"hidden": 16},
        seed=0,
        device="cpu",
    )
    return env, model


def _batch(env, model):
    obs, _ = env.reset(seed=3)
    tensors, _ = model.policy.obs_to_tensor(obs)
    return obs, tensors


def test_probabilities_live_exactly_on_the_candidates(env_and_model):
    env, model = env_and_model
    obs, tensors = _batch(env, model)
    with th.no_grad():
        logits = model.policy.get_distribution(tensors).distribution.logits.numpy()
    for i in range(env.num_envs):
        cands = obs["candidate_actions"][i]
        on = np.zeros(logits.shape[1], bool)
        on[cands[cands >= 0]] = True
        assert np.isfinite(logits[i][on]).all()
        assert np.isneginf(logits[i][~on]).all()
        assert np.exp(logits[i][on]).sum() == pytest.approx(1.0, abs=1e-5)
        # the candidates are legal actions
        assert env.action_masks()[i][on].all()


def test_the_board_planes_are_neither_read_nor_preprocessed(env_and_model):
    """The network reads the features and candidates only, so the policy hands SB3's
    float conversion only those (the board planes were 13% of a PPO update)."""
    env, model = env_and_model
    _, tensors = _batch(env, model)
    policy = model.policy
    with th.no_grad():
        full = policy.features_extractor(
            {k: v.float() for k, v in tensors.items()}
        )  # what SB3 alone would pass
        lean = policy.extract_features(tensors)
        without_board = policy.extract_features({k: v for k, v in tensors.items() if k != "board"})
    assert th.equal(lean, full) and th.equal(without_board, full)


def test_actions_are_candidates_and_gradients_are_finite(env_and_model):
    env, model = env_and_model
    obs, tensors = _batch(env, model)
    policy = model.policy
    actions, _, log_prob = policy(tensors, deterministic=False)
    for i, a in enumerate(actions.numpy()):
        assert a in obs["candidate_actions"][i]
    policy.zero_grad()
    values, log_prob2, entropy = policy.evaluate_actions(tensors, actions)
    assert th.allclose(log_prob, log_prob2, atol=1e-5)
    (values.sum() + log_prob2.sum() + entropy.sum()).backward()
    grads = [p.grad for p in policy.parameters() if p.grad is not None]
    assert grads and all(th.isfinite(g).all() for g in grads)


def test_candidate_policy_refuses_observations_without_candidates():
    env = VsBotsVectorEnv(2, opponents="random", board_size=12, num_threads=1)
    with pytest.raises(ValueError, match="candidate_moves"):
        MaskablePPO(CandidatePolicy, env.to_sb3(), n_steps=8, batch_size=8, device="cpu")


def test_ppo_with_candidates_runs_a_rollout_and_an_update(env_and_model):
    env, model = env_and_model
    model.learn(64)
    assert model.num_timesteps >= 64


def test_packed_rollouts_train_on_what_dense_ones_do():
    """The rollout buffer's packed candidates (present rows only, no board planes) give
    every minibatch the log-probabilities, values and entropies of the dense form."""
    from training.buffers import CompactMaskableDictRolloutBuffer

    env = VsBotsVectorEnv(
        4,
        opponents="random",
        board_size=12,
        candidate_moves=64,
        num_threads=1,
        on_overflow="truncate",
    )
    model = MaskablePPO(
        CandidatePolicy, env.to_sb3(), n_steps=8, policy_kwargs={"hidden": 16}, seed=0, device="cpu"
    )
    args = (6, env.single_observation_space, env.single_action_space)
    dense = CompactMaskableDictRolloutBuffer(*args, n_envs=4)
    packed = CompactMaskableDictRolloutBuffer(
        *args, n_envs=4, pack_candidates=True, unread_keys=("board",)
    )
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    for _ in range(6):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        step = dict(
            obs=obs,
            action=actions[:, None],
            reward=rng.random(4),
            episode_start=np.zeros(4),
            value=th.rand(4, 1),
            log_prob=th.rand(4),
            action_masks=masks,
        )
        for buffer in (dense, packed):
            buffer.add(**step)
        obs = env.step(actions)[0]
    assert set(packed.observations) == {"features", "candidate_actions"}
    for buffer in (dense, packed):
        buffer.compute_returns_and_advantage(th.rand(4, 1), np.zeros(4))
    np.random.seed(2)
    mine = list(packed.get(7))
    np.random.seed(2)
    theirs = list(dense.get(7))
    cut = False
    with th.no_grad():
        for a, b in zip(mine, theirs, strict=True):
            n = (b.observations["candidate_actions"] >= 0).sum(1)
            assert a.observations["candidates"].shape == (int(n.sum()), 154)
            assert a.observations["candidate_actions"].shape[1] == int(n.max())
            cut |= int(n.max()) < 64
            got = model.policy.evaluate_actions(a.observations, a.actions.flatten())
            want = model.policy.evaluate_actions(b.observations, b.actions.flatten())
            for x, y in zip(got, want, strict=True):
                assert th.allclose(x, y, atol=1e-5)
    assert cut  # some minibatch had fewer candidates per row than K


def test_puct_plays_legal_moves_under_a_fixed_budget():
    bot = PUCTAgent("ppo_duel_rl", seed=1, simulations=4)
    game = Game(Rules(players=2), seed=4)
    for _ in range(6):
        move = bot.act(game)
        assert move in game.legal_moves()
        assert bot.last_simulations == 4 or len(game.legal_moves()) == 1
        assert sum(v for v, _ in bot.last_stats.values()) == 4 or not bot.last_stats
        game.play(move)


@pytest.mark.parametrize("threads", [1, None])
def test_forward_passes_run_on_the_bot_s_torch_threads_and_restore_torch_s(threads):
    """One position's torch pass runs on `torch_threads` (None: torch's own setting), and
    torch's setting is back afterwards, in `SB3Agent` and in `puct`'s search over a model
    it runs in torch (a board model: a candidate model's pass is `CandidateForward`)."""
    from agents.sb3_policy import SB3Agent

    seen: list[int] = []

    def spying(agent):
        module = agent.policy.features_extractor
        forward = module.forward

        def spy(*args, **kwargs):
            seen.append(th.get_num_threads())
            return forward(*args, **kwargs)

        module.forward = spy
        return agent

    candidates = spying(SB3Agent("ppo_duel_rl", torch_threads=threads))
    board = spying(SB3Agent("ppo_duel_bc", torch_threads=threads))
    before = th.get_num_threads()
    th.set_num_threads(2)
    try:
        game = Game(Rules(players=2), seed=4)
        candidates.act(game)
        PUCTAgent(board, seed=0, simulations=2).act(game)
        after = th.get_num_threads()
    finally:
        th.set_num_threads(before)
    assert len(seen) >= 4 and set(seen) == {threads or 2} and after == 2


def test_candidate_forward_equals_the_torch_network_and_refuses_other_policies():
    """`CandidateForward` (puct's pass over a candidate model) gives torch's scores and
    value within float32 rounding (the sums run in another order)."""
    from agents.candidate_forward import CandidateForward
    from agents.sb3_policy import SB3Agent

    agent = SB3Agent("puct_duel")
    net, policy = agent.policy.features_extractor.net, agent.policy
    forward = CandidateForward(policy)
    game = Game(Rules(players=2), seed=6)
    sizes = set()
    while not game.done:
        obs = agent.observe(game)
        n = int(np.count_nonzero(obs["candidate_actions"] >= 0))
        assert np.all(obs["candidate_actions"][:n] >= 0)  # present rows come first
        scores, value = forward(obs["features"], obs["candidates"], n)
        with th.no_grad():
            logits, pooled = net.trunk(
                *(
                    th.as_tensor(obs[k][None])
                    for k in ("features", "candidates", "candidate_actions")
                )
            )
            expected = float(policy.value_net(net.value(pooled))[0, 0])
        assert scores == pytest.approx(logits[0, :n].numpy(), abs=1e-4, rel=1e-5)
        assert value == pytest.approx(expected, abs=1e-4, rel=1e-5)
        sizes.add(n)
        game.play(agent.act(game))
    assert len(sizes) > 10
    with pytest.raises(ValueError, match="candidate policy"):
        CandidateForward(SB3Agent("ppo_duel_bc").policy)


BOTH = ("inns_cathedrals", "traders_builders")


def _fresh_network(rules: Rules) -> MaskablePPO:
    """An untrained candidate model observing the projected scores at `rules`' table."""
    env = VsBotsVectorEnv(
        2,
        opponents="random",
        rules=rules,
        board_size=12,
        candidate_moves=16,
        obs_features="aggregate",
        num_threads=1,
        on_overflow="warn",
    )
    return MaskablePPO(
        CandidatePolicy,
        env.to_sb3(),
        n_steps=16,
        batch_size=32,
        policy_kwargs={"hidden": 8},
        seed=0,
        device="cpu",
    )


@pytest.mark.parametrize(
    "rules",
    [Rules(players=3), Rules(players=4), Rules(players=5), Rules(players=3, expansions=BOTH)],
    ids=["3 players", "4 players", "5 players", "3 players, both expansions"],
)
def test_puct_plays_legal_moves_at_any_table(rules):
    """Whole games against random bots (an illegal move raises), expansion figures among
    the moves searched; the jitted search equals the Python one at this table."""
    model = _fresh_network(rules)
    game = Game(rules, seed=1)
    bots = [PUCTAgent(model, seed=0, simulations=6)]
    bots += [make_bot("random", seed=s) for s in range(1, rules.players)]
    while not game.done:
        game.play(bots[game.current_player].act(game))
    assert len(game.scores) == rules.players
    position = _midgame(rules, seed=2, moves=3 * rules.players)
    for backup in ("maxn", "paranoid"):
        jitted = PUCTAgent(model, seed=4, simulations=30, backup=backup)
        python = _python_search(PUCTAgent(model, seed=4, simulations=30, backup=backup))
        assert (jitted.search(position) == python.search(position)).all()
        for key, (n, value) in python.last_stats.items():
            assert jitted.last_stats[key] == (n, pytest.approx(value))


def test_puct_backs_up_each_seat_s_own_value_and_each_seat_picks_by_its_own():
    """max^n on a hand-made path of 3 seats: the root's edge (seat 0) gains the leaf's
    value for seat 0, the next (seat 1) its value for seat 1; at a node of seat 1 the
    edge best for seat 1 is chosen, though it is the worst for seat 0."""
    root = Node(np.zeros((2, 5), np.int64), np.array([0.5, 0.5]), np.zeros(3), seat=0)
    child = Node(np.zeros((2, 5), np.int64), np.array([0.5, 0.5]), np.zeros(3), seat=1)
    back_up([(root, 1), (child, 0)], np.array([4.0, -2.0, 7.0]))
    back_up([(root, 1), (child, 1)], np.array([-6.0, 3.0, 1.0]))
    assert root.visits.tolist() == [0, 2] and root.value.tolist() == [0.0, -2.0]
    assert child.visits.tolist() == [1, 1] and child.value.tolist() == [-2.0, 3.0]
    # equal priors and visits: the mean values for seat 1 (-2 and 3) decide
    assert PUCTAgent(model=None)._select(child) == 1  # internals: the selection rule


def test_puct_paranoid_backs_up_the_root_seat_s_value_negated_for_the_others():
    """Paranoid on the same kind of path: every edge gains the leaf's value for the root's
    seat 0, negated at seat 1's node, which then picks the edge worst for seat 0 where
    max^n picks the one best for itself."""
    paths = [(1, 0, [4.0, -2.0, 7.0]), (1, 1, [-6.0, -5.0, 1.0])]
    for paranoid, child_value, pick in [(None, [-2.0, -5.0], 0), (0, [-4.0, 6.0], 1)]:
        root = Node(np.zeros((2, 5), np.int64), np.array([0.5, 0.5]), np.zeros(3), seat=0)
        child = Node(np.zeros((2, 5), np.int64), np.array([0.5, 0.5]), np.zeros(3), seat=1)
        for k, j, values in paths:
            back_up([(root, k), (child, j)], np.array(values), paranoid)
        assert root.value.tolist() == [0.0, -2.0]  # the root seat's own values either way
        assert child.value.tolist() == child_value
        assert PUCTAgent(model=None)._select(child, paranoid) == pick  # internals: selection
    with pytest.raises(ValueError, match="backup"):
        PUCTAgent(backup="minimax")


def test_puct_values_every_seat_from_the_projected_scores_at_three_players():
    """A new node's values (worked by hand from the projected scores, observer first):
    the seat to move's is the network's; each other seat's, its projected margin."""
    rules = Rules(players=3)
    game = _midgame(rules, seed=5, moves=4)  # seat 1 to move
    bot = PUCTAgent(_fresh_network(rules))
    enc = bot._network.encoder_for(game)  # internals: the encoder and its columns
    features = np.zeros(enc.n_features, np.float32)
    columns = bot._base_columns(enc)
    features[columns] = [0.30, 0.10, 0.25]  # seat 1 (to move), seat 2, seat 0
    assert game.state.seat == 1
    values = bot.estimates(game, enc, features, own=12.0)
    np.testing.assert_allclose(values, [25 - 30, 12.0, 10 - 30], rtol=1e-6)  # float32 features


def test_puct_finds_its_network_from_the_table_or_says_how_to_give_one():
    from agents.puct import default_network

    assert [default_network(Rules(players=n)) for n in (2, 3, 4)] == [
        "puct_duel",
        "ppo_3p_rl",
        "ppo_4p_rl",
    ]
    assert default_network(Rules(variant="solo")) == "ppo_solo_rl"
    assert default_network(Rules(expansions=BOTH)) == "ppo_duel_exp_rl"
    with pytest.raises(ValueError, match="no shipped network for this table.*puct:model=PATH"):
        PUCTAgent(simulations=1).act(Game(Rules(players=5), seed=0))


def test_puct_is_a_built_in_bot_spec():
    bot = make_bot("puct:model=ppo_duel_rl:simulations=2", seed=0)
    assert isinstance(bot, PUCTAgent) and bot.simulations == 2


@pytest.mark.slow
def test_puct_beats_random():
    wins = 0
    for seed in range(4):
        game = Game(Rules(players=2), seed=seed)
        bots = {
            seed % 2: PUCTAgent("ppo_duel_rl", seed=seed, simulations=8),
            1 - seed % 2: make_bot("random", seed=seed),
        }
        while not game.done:
            game.play(bots[game.current_player].act(game))
        wins += game.scores[seed % 2] > game.scores[1 - seed % 2]
    assert wins >= 3


def test_puct_values_from_the_projected_margin_of_a_projected_reward_model():
    """ppo_duel_rl observes the projected scores: its value head adds to the seat to
    move's projected margin (the naive reference scorer's end-of-game scores)."""
    import random

    from tests.support import reference as ref

    bot = PUCTAgent("ppo_duel_rl", simulations=1)
    plain = PUCTAgent("ppo_duel_rl", simulations=1, value_base="score")
    game, rng = Game(Rules(players=2), seed=5), random.Random(5)
    for _ in range(25):
        game.play(rng.choice(game.legal_moves()))
    seat = game.current_player
    final = ref.replay_scores(game.to_record(), final=True)[-1]
    enc = bot.net.encoder_for(game)
    features = bot.net.observe(game)["features"]
    assert bot.base(game, enc, features) == pytest.approx(final[seat] - final[1 - seat])
    assert plain.base(game, enc, features) == game.scores[seat] - game.scores[1 - seat]
    with pytest.raises(ValueError, match="value_base"):
        PUCTAgent("ppo_duel_rl", value_base="points")


def test_puct_prior_temperature_flattens_the_priors_as_a_softmax_of_logits_over_t():
    game = Game(Rules(players=2), seed=6)
    for _ in range(12):
        game.play(game.legal_moves()[0])
    # internals: the priors a search starts from (`_evaluate`)
    _, p1, _ = PUCTAgent("ppo_duel_rl", prior_temperature=1)._evaluate(game)
    _, p3, _ = PUCTAgent("ppo_duel_rl", prior_temperature=3)._evaluate(game)
    seen = p1 > 0
    assert np.array_equal(seen, p3 > 0) and p3.sum() == pytest.approx(1.0)
    top = int(np.argmax(p1))
    # softmax(logits / 3) is proportional to softmax(logits) ** (1 / 3)
    assert np.log(p3[seen] / p3[top]) == pytest.approx(np.log(p1[seen] / p1[top]) / 3, abs=1e-6)
    assert p3.max() < p1.max()
    with pytest.raises(ValueError, match="prior_temperature"):
        PUCTAgent("ppo_duel_rl", prior_temperature=0)


def test_puct_network_pass_equals_the_sb3_policy_s():
    """puct runs a candidate model's network on its three inputs directly
    (`CandidateForward`): the same priors and value as SB3's forward pass over the whole
    observation."""
    import torch

    bot = PUCTAgent("puct_duel", prior_temperature=2)
    game = Game(Rules(players=2), seed=4)
    for turn in range(30):
        if turn % 10 == 3:
            rows, prior, estimate = bot._evaluate(game)  # internals: the net's answer
            enc, obs = bot.net.encoder_for(game), bot.net.observe(game)
            policy = bot.net.policy
            tensors, _ = policy.obs_to_tensor(
                {k: obs[k] for k in bot.net.model.observation_space.spaces}
            )
            with torch.no_grad():
                logits = policy.get_distribution(tensors).distribution.logits[0].numpy()
                value = float(policy.predict_values(tensors)[0, 0])
            assert np.array_equal(rows, game.legal_rows())
            # (puct's pass is `CandidateForward`: float32 sums in another order than torch's)
            assert prior == pytest.approx(row_probabilities(game, enc, rows, logits / 2), abs=1e-5)
            seat = game.current_player  # (2 players: the other's value is minus it)
            assert (
                estimate[seat]
                == -estimate[1 - seat]
                == pytest.approx(bot.base(game, enc, obs["features"]) + 10 * value, abs=1e-4)
            )
        game.play(game.legal_moves()[0])


def test_puct_search_returns_the_root_visits_in_move_order():
    bot = PUCTAgent("ppo_duel_rl", seed=0, simulations=6)
    game = Game(Rules(players=2), seed=2)
    visits = bot.search(game)
    assert len(visits) == len(game.legal_moves()) and visits.sum() == 6
    best = int(np.argmax(visits))
    assert bot.last_stats[tuple(game.legal_rows()[best])][0] == visits.max()
    assert len(bot.root_prior) == len(visits) and bot.root_prior.sum() == pytest.approx(1.0)


def _python_search(bot: PUCTAgent) -> PUCTAgent:
    """Internals: `bot` searching in Python (board models use it), the reference."""
    bot._jitted = False
    return bot


def _midgame(rules: Rules, seed: int, moves: int) -> Game:
    game = Game(rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.done:
            break
        legal = game.legal_moves()
        game.play(legal[int(rng.integers(len(legal)))])
    return game


@pytest.mark.parametrize(
    "variant, model, lookahead",
    [
        ("standard", "ppo_duel_rl", 0),
        ("standard", "puct_duel", 1),
        ("standard", "ppo_duel_rl", 2),
        ("solo", "ppo_solo_rl", 0),
        ("solo", "ppo_solo_rl", 1),
    ],
)
def test_puct_jitted_search_equals_the_python_search(variant, model, lookahead):
    """A candidate model's search runs in agents.puct_kernel; the Python search (kept for
    board models) is its reference: the same visits, values and priors, move by move."""
    game = _midgame(Rules(variant=variant), seed=3, moves=12 if variant == "standard" else 4)
    jitted = PUCTAgent(model, seed=4, simulations=40, lookahead=lookahead)
    python = _python_search(PUCTAgent(model, seed=4, simulations=40, lookahead=lookahead))
    paranoid = PUCTAgent(model, seed=4, simulations=40, lookahead=lookahead, backup="paranoid")
    for _ in range(3):
        visits = jitted.search(game)
        assert (visits == python.search(game)).all()
        assert (visits == paranoid.search(game)).all()  # one opponent: the same search
        assert jitted.last_stats.keys() == python.last_stats.keys()
        for key, (n, value) in python.last_stats.items():  # (visits, mean value) per move
            assert jitted.last_stats[key] == (n, pytest.approx(value))
        np.testing.assert_allclose(jitted.root_prior, python.root_prior, rtol=1e-12)
        game.play(game.legal_moves()[int(np.argmax(visits))])
    with pytest.raises(ValueError, match="over"):
        jitted.search(_midgame(Rules(variant=variant), seed=3, moves=200))


def test_puct_jitted_search_grows_its_tree_and_sees_through_a_small_window(env_and_model):
    """A tree too small for the search grows between batches without changing the
    result; a model whose window or K shows some legal moves only gives the others no
    prior, as the Python search does."""
    from agents import puct_kernel

    _, model = env_and_model  # 12-cell window, 16 candidates
    game = _midgame(Rules(players=2), seed=8, moves=24)
    jitted = PUCTAgent(model, seed=1, simulations=60)
    python = _python_search(PUCTAgent(model, seed=1, simulations=60))
    assert (jitted.search(game) == python.search(game)).all()  # (builds the buffers)
    # internals: the kernel's buffers, its tree swapped for one too small
    jitted._kernel = (jitted._kernel[0], puct_kernel.make_tree(2, 1), *jitted._kernel[2:])
    visits = jitted.search(game)
    assert (visits == python.search(game)).all()
    assert jitted._kernel[1].node_seat.shape[0] > 2  # it grew (internals: the tree)
    assert 0 < np.count_nonzero(jitted.root_prior) < len(visits)  # some moves unseen
    np.testing.assert_allclose(jitted.root_prior, python.root_prior, rtol=1e-12)


def test_puct_lookahead_values_a_new_node_after_the_policy_s_choices():
    """With lookahead=2 a new node's value is the one two policy moves (highest prior)
    later, in its seat's points; the nodes met join the tree (the Python search's tree:
    the jitted one equals it, test above). Internals: it reads that tree (`_root`) and the
    lookahead a game gets (`_depth`)."""
    bot = _python_search(PUCTAgent("ppo_duel_rl", seed=0, simulations=1, lookahead=2))
    game = Game(Rules(players=2), seed=5)
    bot.search(game)
    root = bot._root
    k = int(np.argmax(root.visits))
    (leaf,) = root.children[k].values()
    node = leaf
    for _ in range(2):
        (node,) = node.children[int(np.argmax(node.prior))].values()
    assert not node.children[0]  # the last one met is valued, not searched
    assert (leaf.estimate == node.estimate).all()
    assert root.value[k] == leaf.estimate[root.seat]
    assert node.estimate[node.seat] == -node.estimate[1 - node.seat]  # 2 players
    plain = _python_search(PUCTAgent("ppo_duel_rl", seed=0, simulations=1, lookahead=0))
    plain.search(game)
    (first,) = plain._root.children[k].values()
    assert all(not c for c in first.children)  # lookahead=0: one node per simulation
    default = _python_search(PUCTAgent("ppo_duel_rl", seed=0, simulations=1))
    default.search(game)
    (first,) = default._root.children[k].values()
    assert sum(map(len, first.children)) == 1  # 2 players: lookahead 1 by default
    solo = PUCTAgent("ppo_solo_rl", seed=0, simulations=1)
    solo.search(Game(Rules(variant="solo"), seed=5))
    assert solo._depth == 0  # solo: 0
    with pytest.raises(ValueError, match="lookahead"):
        PUCTAgent("ppo_duel_rl", lookahead=-1)


@pytest.mark.parametrize(
    "variant, model, c, other",
    [("standard", "puct_duel", 1.5, 3.0), ("solo", "ppo_solo_rl", 3.0, 1.5)],
)
def test_puct_exploration_constant_defaults_by_kind(variant, model, c, other):
    """c left out: 1.5 with 2 players (measured against `mcts`), 3 in solo; the search
    then visits as with that c given, and not as with the other."""
    game = _midgame(Rules(variant=variant), seed=3, moves=10)
    visits = {}
    for given in (None, c, other):
        bot = PUCTAgent(model, seed=0, simulations=64, c=given)
        visits[given] = bot.search(game)
    assert PUCTAgent(model).c is None
    assert np.array_equal(visits[None], visits[c])
    assert not np.array_equal(visits[None], visits[other])
