"""Integer constants shared by the jitted core and its Python wrappers.

The core keeps its state in plain numpy arrays; these names give the indices into the
small config (`cfg`) and scalar (`sc`) vectors and the codes stored in the big ones.
"""

# Edge terrain codes (as in the tile data's `edge_terrain_values`).
CITY, ROAD, FIELD = 0, 1, 2
TERRAINS = ("city", "road", "field")

# Segment kinds.
K_CITY, K_ROAD, K_FIELD, K_MONASTERY = 0, 1, 2, 3
KINDS = ("city", "road", "field", "monastery")

EDGES = ("N", "E", "S", "W")
HALF_EDGES = ("N_w", "N_e", "E_n", "E_s", "S_e", "S_w", "W_s", "W_n")
# Half-edge that meets half-edge h across its edge (N_w<->S_w, N_e<->S_e, E_n<->W_n, E_s<->W_s).
OPPOSITE_HALF = (5, 4, 7, 6, 1, 0, 3, 2)
# Cell offsets of the neighbour across edge N, E, S, W (x grows east, y grows south).
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)

MAX_SEATS = 6
HAND_MAX = 3
NO_FOLLOWER = -1  # follower slot meaning "place no follower"

# Rule options, packed by `Rules.to_config`.
CFG_SEATS = 0
CFG_FOLLOWERS = 1
CFG_SMALL_CITY = 2
CFG_FARM_MODE = 3  # 0 = per field (3rd edition), 1 = per city (1st edition)
CFG_FARM_POINTS = 4
CFG_HAND_SIZE = 5
CFG_SOLO = 6
CFG_START = 7  # start tile type
CFG_NSEG = 8  # segment slots per placement (S), set by make_state
CFG_PLAYER_ORDER = 9  # solo: the player chooses the scoring order (scoring_order="player")
CFG_EXPANSIONS = 10  # EXP_* bits: expansions played with their figures and scoring ("full")
CFG_GOODS_UNOWNED = 11  # 1: a completed city without followers still gives its goods (rulebook)
CFG_SIZE = 12

# Expansions in full mode (bits of cfg[CFG_EXPANSIONS]).
EXP_INNS_CATHEDRALS = 1
EXP_TRADERS_BUILDERS = 2

# Segment flags (tile table `seg_flag`, feature aggregate `fflag`: the OR over a feature).
FLAG_INN = 1  # a road with an inn
FLAG_CATHEDRAL = 2  # a city with a cathedral

# Figures: a move's slot is figure * S + segment (S = segment slots per tile). The large
# follower comes with Inns & Cathedrals, builder and pig with Traders & Builders.
FIG_FOLLOWER, FIG_LARGE, FIG_BUILDER, FIG_PIG = 0, 1, 2, 3
FIGURES = ("follower", "large", "builder", "pig")
N_GOODS = 3
GOODS = ("wine", "grain", "cloth")  # Traders & Builders trade goods

# Scalars of a running game.
SC_TURN = 0  # moves played
SC_PLACED = 1  # tiles on the board, start tile included
SC_SEAT = 2  # seat to move
SC_TILE = 3  # tile type to place (hand size 1), -1 when none
SC_DONE = 4
SC_END = 5  # END_* reason
SC_DECK_POS = 6  # next undrawn index of `deck` (standard / strategic)
SC_DECK_LEN = 7
SC_NFRONT = 8  # open cells in `frontier`
SC_NPAIRS = 9  # field-city adjacencies recorded
SC_NEVENTS = 10
SC_NDISC = 11  # discarded tiles
SC_NACTIVE = 12  # followers standing on the board
SC_SOLO_END_A = 13  # set when a compulsory follower could not be placed this turn
SC_XMIN = 14  # bounding box of placed tiles (board indices)
SC_XMAX = 15
SC_YMIN = 16
SC_YMAX = 17
SC_PHASE = 18  # PHASE_*: what the next decision is (scoring decisions: scoring_order="player")
SC_NPEND = 19  # completed features awaiting the player's scoring choice
SC_EXTRA = 20  # 1 while the seat to move plays a builder's extra turn (Traders & Builders)
SC_EARNED = 21  # 1 when the move being played earned an extra turn (its tile extended a
# feature holding the mover's builder, outside an extra turn)
SC_PEND = 22  # the pending roots: sc[SC_PEND : SC_PEND + SC_NPEND]
MAX_PEND = 16  # a tile completes at most 4 roads / cities and 9 monasteries
SC_SIZE = SC_PEND + MAX_PEND

# Decisions: place a tile (every rule set), or (solo, scoring_order="player") pick the
# next completed feature to score, or the next follower of the end bonus.
PHASE_PLACE, PHASE_FEATURE, PHASE_BONUS = 0, 1, 2
PHASES = ("place", "score_feature", "score_follower")

# Rows of the per-state scratch array `work` (hot-path buffers, never game state).
WORK_ROWS = 17
(
    W_ROOTS,
    W_MAJ,
    W_PTS,
    W_ORDER,
    W_OPTS,
    W_COUNTS,
    W_PERM,
    W_HEAP,
    W_SCORES_A,
    W_SCORES_B,
    W_OCC,
    W_NROOTS,
    W_NCOUNT,
    W_STACK,
    W_BONUS,
    W_OWN,
    W_NEIGH,
) = range(WORK_ROWS)

END_NONE, END_TILES, END_SOLO_A, END_SOLO_B = 0, 1, 2, 3
END_NAMES = (None, "tiles", "A", "B")

# Columns of the scoring event log.
EV_TURN, EV_KIND, EV_ROOT, EV_POINTS, EV_MAJORITY, EV_SCORERS, EV_FINAL, EV_DETAIL = range(8)
EV_COLS = 8
# EV_DETAIL: what changed the points (expansions in full mode)
DETAIL_NONE, DETAIL_INN, DETAIL_CATHEDRAL, DETAIL_PIG = 0, 1, 2, 3
DETAILS = (None, "inn", "cathedral", "pig")
EV_KIND_FOLLOWER = 4  # solo end bonus (kinds 0-3 are segment kinds)
EV_KIND_GOODS = 5  # Traders & Builders: the majority of a trade good (root: the good)

# Error codes of `check_move` (messages in game.py).
OK = 0
E_OVER = 1
E_NOT_IN_HAND = 2
E_OCCUPIED_CELL = 3
E_NOT_ADJACENT = 4
E_EDGE_MISMATCH = 5
E_NO_SUCH_SEGMENT = 6
E_NO_SUPPLY = 7
E_FEATURE_OCCUPIED = 8
E_SOLO_FARMER = 9
E_SOLO_COMPULSORY = 10
E_BAD_ROTATION = 11
E_OFF_BOARD = 12
E_NOT_A_CHOICE = 13  # a scoring decision: the move names no follower awaiting scoring
E_NOT_OWN = 14  # a builder / pig: the player has no follower on that feature
