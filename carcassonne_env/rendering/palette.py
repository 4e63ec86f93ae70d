"""The colours of the board pictures: one per seat (`SEAT_COLOURS`, named in
`SEAT_NAMES`), the tiles' features and emblems, and the board's frame and score strip."""

from __future__ import annotations

SEAT_COLOURS = (
    (220, 38, 38),  # red
    (37, 99, 235),  # blue
    (22, 163, 74),  # green
    (250, 204, 21),  # yellow
    (28, 28, 28),  # black
    (236, 72, 153),  # pink
)
SEAT_NAMES = ("red", "blue", "green", "yellow", "black", "pink")

FIELD = (122, 172, 74)
CITY = (214, 168, 104)
WALL = (112, 70, 38)
ROAD = (246, 240, 222)
ROAD_EDGE = (118, 106, 84)
JUNCTION = (104, 76, 56)
PENNANT = (126, 34, 206)  # purple: no seat plays it (blue would pass for a follower)
PENNANT_EDGE = (245, 245, 245)
INN_LAKE = (56, 152, 208)  # the inn's pond beside its road (Inns & Cathedrals)
CATHEDRAL = (92, 92, 104)  # the cathedral's cross in its city
EMBLEM_EDGE = (250, 250, 250)
# Traders & Builders trade goods: wine a disc, grain a triangle, cloth a square.
GOODS_COLOURS = {"wine": (150, 30, 80), "grain": (236, 190, 40), "cloth": (60, 110, 200)}
SNOUT = (250, 180, 190)  # the pig's snout and ears
CHURCH = (242, 232, 206)
ROOF = (178, 58, 46)
CHURCH_EDGE = (70, 50, 40)
BACKGROUND = (236, 230, 214)
OPEN_CELL = (212, 203, 180)
HIGHLIGHT = (0, 229, 255)
HIGHLIGHT_EDGE = (20, 20, 20)
STRIP = (250, 248, 242)
TEXT = (30, 30, 30)
TO_MOVE = (255, 236, 150)
SEAM = 0.86  # darkening of the tile borders

__all__ = [
    "BACKGROUND",
    "CATHEDRAL",
    "CHURCH",
    "CHURCH_EDGE",
    "CITY",
    "EMBLEM_EDGE",
    "FIELD",
    "GOODS_COLOURS",
    "HIGHLIGHT",
    "HIGHLIGHT_EDGE",
    "INN_LAKE",
    "JUNCTION",
    "OPEN_CELL",
    "PENNANT",
    "PENNANT_EDGE",
    "ROAD",
    "ROAD_EDGE",
    "ROOF",
    "SEAM",
    "SEAT_COLOURS",
    "SEAT_NAMES",
    "SNOUT",
    "STRIP",
    "TEXT",
    "TO_MOVE",
    "WALL",
]
