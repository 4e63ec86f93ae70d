// Board drawing shared by the replay page and the human-play page. The tile pictures and
// follower spots come from the package's tile data (carcassonne_env.viewer.tile_geometry).
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

// Markup with data in it: html`<b>${name}</b>` escapes every value it is given (a string
// from a record, the command line or the server becomes text, never markup), except the
// output of another html`...` (or an array of them); setHTML puts only such output into
// an element. A page that writes markup this way cannot be made to run a stranger's HTML.
const HTML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
function escapeHTML(value) { return String(value).replace(/[&<>"']/g, c => HTML_ESCAPES[c]); }
class SafeHTML { constructor(markup) { this.markup = markup; } }
function html(strings, ...values) {
  const part = v => v instanceof SafeHTML ? v.markup : Array.isArray(v) ? v.map(part).join("") : escapeHTML(v);
  return new SafeHTML(strings.reduce((out, s, i) => out + part(values[i - 1]) + s));
}
function setHTML(node, markup) {
  if (!(markup instanceof SafeHTML)) throw new TypeError("setHTML takes html`...` markup only");
  node.innerHTML = markup.markup;
}

class BoardView {
  // svg: an <svg> element; geometry: tile_geometry(); colours: seat colours.
  constructor(svg, geometry, colours) {
    this.svg = svg; this.geo = geometry; this.colours = colours;
    const defs = el("defs", {}, svg);
    for (const name in geometry.tiles) {
      el("image", {id: "tile-" + name, href: geometry.tiles[name].image, width: 1, height: 1,
                   preserveAspectRatio: "none"}, defs);
    }
    this.layers = {};
    for (const name of ["open", "tiles", "marks", "heat", "followers", "top"]) {
      this.layers[name] = el("g", {"class": "layer-" + name}, svg);
    }
    this.bounds = null;
  }
  setBounds(x0, y0, x1, y1) {  // cells shown: [x0, x1] x [y0, y1], plus one cell margin
    this.bounds = [x0 - 1, y0 - 1, x1 + 1, y1 + 1];
    const [a, b, c, d] = this.bounds;
    this.svg.setAttribute("viewBox", `${a} ${b} ${c - a + 1} ${d - b + 1}`);
  }
  tileNode(parent, x, y, tile, r, extra) {
    const u = el("use", Object.assign({href: "#tile-" + tile,
      transform: `translate(${x} ${y}) rotate(${90 * r} 0.5 0.5)`}), parent);
    u.dataset.x = x; u.dataset.y = y;
    for (const k in extra || {}) u.setAttribute(k, extra[k]);
    return u;
  }
  meeple(parent, cx, cy, size, colour, lying) {
    const pts = this.geo.meeple.map(([x, y]) => lying ? [y * size, -x * size] : [x * size, y * size]);
    const g = el("g", {transform: `translate(${cx} ${cy})`, "class": "meeple"}, parent);
    const dark = colour === "#1c1c1c";
    el("polygon", {points: pts.map(p => p.join(",")).join(" "), fill: colour,
                   stroke: dark ? "#eee" : "#141414", "stroke-width": size * 0.07,
                   "stroke-linejoin": "round"}, g);
    return g;
  }
  figure(parent, cx, cy, size, colour, kind) {  // a builder (slim pawn) or a pig (round, pink snout)
    const g = el("g", {transform: `translate(${cx} ${cy})`, "class": "meeple " + kind}, parent);
    const stroke = colour === "#1c1c1c" ? "#eee" : "#141414", sw = size * 0.07;
    if (kind === "builder") {
      const h = size * 1.15;
      el("polygon", {points: [[-0.22 * h, 0.5 * h], [-0.12 * h, -0.16 * h], [0.12 * h, -0.16 * h],
                              [0.22 * h, 0.5 * h]].map(p => p.join(",")).join(" "),
                     fill: colour, stroke, "stroke-width": sw}, g);
      el("circle", {cx: 0, cy: -0.34 * h, r: 0.16 * h, fill: colour, stroke, "stroke-width": sw}, g);
      el("line", {x1: -0.17 * h, y1: -0.4 * h, x2: 0.17 * h, y2: -0.4 * h, stroke: "#fafafa",
                  "stroke-width": h * 0.11}, g);
    } else {
      el("ellipse", {cx: 0, cy: 0, rx: 0.5 * size, ry: 0.33 * size, fill: colour, stroke,
                     "stroke-width": sw}, g);
      el("ellipse", {cx: 0.42 * size, cy: 0, rx: 0.13 * size, ry: 0.11 * size, fill: "#fab4be",
                     stroke: "#141414", "stroke-width": sw / 2}, g);
    }
    return g;
  }
  spot(tile, r, loc) { return this.geo.tiles[tile].spots[r][loc]; }
  // state: {tiles: [[x, y, tile, r]], followers: [[x, y, seat, loc, figure]], last: [x, y] | null}
  draw(state) {
    const L = this.layers;
    for (const k in L) clear(L[k]);
    const occupied = new Map();
    for (const t of state.tiles) occupied.set(t[0] + "," + t[1], t);
    for (const [x, y, tile, r] of state.tiles) this.tileNode(L.tiles, x, y, tile, r,
                                                             {"class": "tile"});
    const open = new Set();
    for (const [x, y] of state.tiles) {
      for (const [dx, dy] of [[0, -1], [1, 0], [0, 1], [-1, 0]]) {
        const k = (x + dx) + "," + (y + dy);
        if (!occupied.has(k)) open.add(k);
      }
    }
    for (const k of open) {
      const [x, y] = k.split(",").map(Number);
      el("rect", {x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, "class": "open-cell"},
         L.open);
    }
    for (const [x, y, seat, loc, figure] of state.followers) {
      const t = occupied.get(x + "," + y);
      if (!t) continue;
      const s = this.spot(t[2], t[3], loc);
      if (!s) continue;
      const farmer = s[2] === "field";
      const size = 0.42 * (farmer ? 0.9 : 1.0) * (figure === "large" ? 1.4 : 1.0);
      const half = size * 0.5 + 0.01;
      const cx = Math.min(Math.max(s[0], half), 1 - half), cy = Math.min(Math.max(s[1], half), 1 - half);
      const colour = this.colours[seat % this.colours.length];
      const m = figure === "builder" || figure === "pig"  // Traders & Builders
        ? this.figure(L.followers, x + cx, y + cy, size, colour, figure)
        : this.meeple(L.followers, x + cx, y + cy, size, colour, farmer);
      m.dataset.seat = seat;
      if (figure && figure !== "follower") m.dataset.figure = figure;
    }
    if (state.last) {
      el("rect", {x: state.last[0] + 0.02, y: state.last[1] + 0.02, width: 0.96, height: 0.96,
                  "class": "last-tile"}, L.marks);
    }
    return open;
  }
  markEvents(events) {  // outline the tiles of features scored now
    for (const ev of events) {
      for (const [x, y] of ev.tiles) {
        el("rect", {x: x + 0.08, y: y + 0.08, width: 0.84, height: 0.84,
                    "class": "scored scored-" + ev.kind}, this.layers.marks);
      }
    }
  }
}

// A line chart in an <svg>: series = [{values: [..], colour, width, dash, label}].
function lineChart(svg, series, opts) {
  clear(svg);
  const W = Math.max(200, svg.clientWidth || 600), H = Math.max(80, svg.clientHeight || 150), padL = 34, padB = 18, padT = 8, padR = 8;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  let n = 1, lo = Infinity, hi = -Infinity;
  for (const s of series) {
    n = Math.max(n, s.values.length - 1);
    for (const v of s.values) if (v !== null && v !== undefined) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  if (opts.zero !== false) { lo = Math.min(lo, 0); }
  if (hi - lo < 1e-9) hi = lo + 1;
  const X = i => padL + (W - padL - padR) * i / n;
  const Y = v => H - padB - (H - padB - padT) * (v - lo) / (hi - lo);
  el("line", {x1: padL, y1: Y(lo), x2: W - padR, y2: Y(lo), "class": "axis"}, svg);
  el("line", {x1: padL, y1: padT, x2: padL, y2: H - padB, "class": "axis"}, svg);
  for (const v of [lo, hi]) {
    const t = el("text", {x: padL - 4, y: Y(v) + 4, "class": "tick", "text-anchor": "end"}, svg);
    t.textContent = Math.round(v * 100) / 100;
  }
  const tx = el("text", {x: W - padR, y: H - 4, "class": "tick", "text-anchor": "end"}, svg);
  tx.textContent = opts.xlabel || "turn";
  if (opts.ylabel) {  // the unit, beside the top tick
    const ty = el("text", {x: padL + 4, y: padT + 8, "class": "tick unit"}, svg);
    ty.textContent = opts.ylabel;
  }
  for (const s of series) {
    let d = "", pen = false;
    s.values.forEach((v, i) => {
      if (v === null || v === undefined) { pen = false; return; }
      d += (pen ? "L" : "M") + X(i).toFixed(1) + " " + Y(v).toFixed(1);
      pen = true;
    });
    if (s.dots) {
      s.values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        el("circle", {cx: X(i), cy: Y(v), r: 2.5, fill: (s.dotColours || [])[i] || s.colour}, svg);
      });
    } else {
      const p = el("path", {d: d, fill: "none", stroke: s.colour, "stroke-width": s.width || 2,
                            "class": "series"}, svg);
      if (s.dash) p.setAttribute("stroke-dasharray", s.dash);
    }
  }
  for (const m of opts.marks || []) {  // [turn, colour, title]
    const c = el("circle", {cx: X(m[0]), cy: H - padB, r: 3, fill: m[1], "class": "event-mark"}, svg);
    const t = el("title", {}, c); t.textContent = m[2];
  }
  const cursor = el("line", {x1: X(0), x2: X(0), y1: padT, y2: H - padB, "class": "cursor"}, svg);
  return {moveTo: i => { cursor.setAttribute("x1", X(i)); cursor.setAttribute("x2", X(i)); }};
}
