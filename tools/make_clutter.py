#!/usr/bin/python3
"""Write a clutter scene after the SAP paper, sec. VI-C (Castro, Permenter, Han, 2022).

N objects (half spheres of radius 5 cm, half boxes of 10 cm edge, density of water) are
dropped in four columns into an 80 x 80 cm container: a halfspace floor and four wall
boxes (40 cm high, 2 cm thick) welded to the world; `--no-walls` leaves only the floor.
Contact as in the paper: stiffness 1e8 N/m (near-rigid at the paper's dt), dissipation
time scale tau_d = dt, friction mu = 1 on every surface.

Each column is a random assortment (shuffled from `--seed`) stacked from the bottom up:
every object gets a small random horizontal offset and a small random rotation, and is
placed one bounding-sphere radius above the top of the object below plus a clearance,
so no two geometries overlap at t = 0 and nothing touches the floor or the walls. The
output is a pure function of the arguments (same arguments, same bytes).

`--columns K` (default 4) stacks the objects in K columns on a square grid 40 cm apart
(the default four are the container's quadrants), without walls only. With K = N / 10 the
columns keep the height of clutter-40's while N grows, so the energy per object does not
grow with N: the scene csim_bench uses to measure how the cost scales with the number of
objects when the physics per object stays the same (bench/README.md, --per-column).
`--column-spacing S` (no walls only) puts the columns S metres apart instead of 0.4 m: far
enough apart, the collapsed piles do not reach each other, so each column stays its own
set of islands and the work per object does not depend on how many columns there are.

Contact parameters: by default the SAP paper's (above). `--stiffness K`, `--dissipation-time T`
(tau_d, default dt), `--hunt-crossley D` and `--contact-model M` (sap, lagged,
lagged_regularized, similar; scene-format.md) set others, e.g. those of the clutter of the
irrotational-contact-fields paper, sec. IX-A (k = 1e7 N/m, tau_d = 1e-4 s, d = 10 s/m,
v_s = 1e-4 m/s, sigma = 1e-3, mu = 1: csim's defaults for v_s and sigma) used by
tools/contact_model_study.py. A key left at its default is not written, so the default
scenes are unchanged.

Example (what scenes/clutter_40.yaml and scenes/clutter_40_no_walls.yaml were made with):
  tools/make_clutter.py -n 40 --seed 1 -o scenes/clutter_40.yaml
  tools/make_clutter.py -n 40 --seed 1 --no-walls -o scenes/clutter_40_no_walls.yaml
"""
import argparse
import math
import random
import sys

from study_common import CONTACT_MODELS

SPHERE_RADIUS = 0.05     # m, paper VI-C
BOX_EDGE = 0.10          # m, paper VI-C
DENSITY = 1000.0         # kg/m^3, water
STIFFNESS = 1.0e8        # N/m, paper VI-C
FRICTION = 1.0           # paper VI-C
CONTAINER = 0.80         # m, inner width of the container (early notes sec. 6.3)
WALL_HEIGHT = 0.40       # m (early notes sec. 6.3)
WALL_THICKNESS = 0.02    # m
COLUMN_OFFSET = 0.20     # m, columns at (+-0.2, +-0.2): the centres of the four quadrants
COLUMN_SPACING = 2 * COLUMN_OFFSET  # m, default distance between neighbouring columns
FIRST_CLEARANCE = 0.02   # m, floor to the lowest object of a column
CLEARANCE = 0.02         # m, between consecutive objects of a column
MAX_SHIFT = 0.01         # m, random horizontal offset per object (each axis)
MAX_TILT = 0.25          # rad, random roll, pitch, yaw per object


def bounding_radius(kind):
    return SPHERE_RADIUS if kind == "sphere" else 0.5 * BOX_EDGE * math.sqrt(3.0)


def f6(x):
    """Fixed-precision number: reproducible text, no '-0.000000'."""
    s = f"{x:.6f}"
    return "0.000000" if s == "-0.000000" else s


def num(x):
    """Short YAML float: 0.002, 2.0, 1.0e8."""
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-4):
        mantissa, exponent = f"{x:.6e}".split("e")
        return f"{float(mantissa)!r}e{int(exponent)}"
    return repr(float(x))


def column_positions(k, spacing=COLUMN_SPACING):
    """Centres (x, y) of k columns: a square grid `spacing` apart, centred on the origin,
    filled row by row (k = 4 at the default spacing: the quadrants (+-0.2, +-0.2), exactly,
    since (0 - 0.5) * 0.4 is the double -0.2)."""
    side = math.ceil(math.sqrt(k))
    centre = 0.5 * (side - 1)
    return [((j % side - centre) * spacing, (j // side - centre) * spacing) for j in range(k)]


def layout(n, seed, k=4, spacing=COLUMN_SPACING):
    """Objects as (name, kind, x, y, z, roll, pitch, yaw), k columns `spacing` apart, bottom up."""
    rng = random.Random(seed)
    kinds = ["sphere"] * (n // 2) + ["box"] * (n - n // 2)
    rng.shuffle(kinds)
    columns = column_positions(k, spacing)
    tops = [FIRST_CLEARANCE] * k   # height of each column's top (plus clearance)
    objects = []
    for i, kind in enumerate(kinds):
        c = i % k                  # round robin: the columns hold the same number (+-1)
        r = bounding_radius(kind)
        x = columns[c][0] + rng.uniform(-MAX_SHIFT, MAX_SHIFT)
        y = columns[c][1] + rng.uniform(-MAX_SHIFT, MAX_SHIFT)
        z = tops[c] + r
        tops[c] = z + r + CLEARANCE
        rpy = [rng.uniform(-MAX_TILT, MAX_TILT) for _ in range(3)]
        objects.append((f"{kind}_{i:03d}", kind, x, y, z, *rpy))
    return objects


def check_no_overlap(objects, walls):
    """Bounding spheres pairwise disjoint, above the floor and (walls) inside them."""
    half = 0.5 * CONTAINER
    for a, oa in enumerate(objects):
        ra = bounding_radius(oa[1])
        assert oa[4] - ra > 0.0, oa[0]
        assert not walls or (abs(oa[2]) + ra < half and abs(oa[3]) + ra < half), oa[0]
        for ob in objects[a + 1:]:
            rb = bounding_radius(ob[1])
            d = math.dist(oa[2:5], ob[2:5])
            assert d > ra + rb, (oa[0], ob[0])


def scene_text(n, seed, dt, duration, walls, every, command, k=4, spacing=COLUMN_SPACING,
               stiffness=STIFFNESS, dissipation_time=None, hunt_crossley=0.0, contact_model="sap"):
    """The scene's YAML. dissipation_time None: tau_d = dt (the SAP paper's choice)."""
    tau_d = dt if dissipation_time is None else dissipation_time
    objects = layout(n, seed, k, spacing)
    check_no_overlap(objects, walls)
    n_spheres = sum(1 for o in objects if o[1] == "sphere")
    m_sphere = DENSITY * 4.0 / 3.0 * math.pi * SPHERE_RADIUS ** 3
    m_box = DENSITY * BOX_EDGE ** 3
    top = max(o[4] + bounding_radius(o[1]) for o in objects)
    name = f"clutter_{n}" + ("" if walls else "_no_walls") + ("" if k == 4 else f"_{k}_columns")
    half = 0.5 * CONTAINER
    out = []
    w = out.append
    w(f"# Clutter after the SAP paper (Castro, Permenter, Han, 2022), sec. VI-C: {n} objects")
    w(f"# ({n_spheres} spheres r = {SPHERE_RADIUS} m, {n - n_spheres} boxes {BOX_EDGE} m edge, density "
      f"{DENSITY:g} kg/m^3: {m_sphere:.3f} kg")
    where = (f"four columns (x, y = +-{COLUMN_OFFSET})" if k == 4 and spacing == COLUMN_SPACING
             else f"{k} columns ({spacing:g} m apart on a square grid)")
    w(f"# and {m_box:.3f} kg) dropped in {where} "
      + ("into an 80 x 80 cm container" if walls else "onto the floor"))
    w(("# (halfspace floor and four 0.4 m walls welded to the world)." if walls
       else "# (a halfspace; no walls, so the objects spread over the ground)."))
    w(f"# Generated by: {command}")
    w("# Do not edit by hand; regenerate with tools/make_clutter.py (deterministic per --seed).")
    w("#")
    if stiffness == STIFFNESS and dissipation_time is None and hunt_crossley == 0.0 and contact_model == "sap":
        w(f"# Parameters (paper VI-C): contact stiffness {num(STIFFNESS)} N/m, tau_d = dt = {num(dt)} s, mu = {num(FRICTION)}")
    else:
        w(f"# Parameters: contact model {contact_model}, stiffness {num(stiffness)} N/m, tau_d = {num(tau_d)} s,")
        w(f"# Hunt & Crossley d = {num(hunt_crossley)} s/m, mu = {num(FRICTION)}")
    w("# on every surface. Materials combine in series: the container is rigid (.inf), so")
    pairs = f"# object-container pairs get k = {num(stiffness)} N/m, object-object pairs {num(stiffness / 2)} N/m; "
    if stiffness == STIFFNESS:
        w(pairs + "both are")
        w("# far above what the step resolves, so every contact is in the near-rigid regime.")
    else:
        w(pairs + "SAP caps")
        w("# a stiffness above what the step resolves at its near-rigid value; the Hunt &")
        w("# Crossley models take k as given.")
    w("# Objects start at rest with small random offsets and tilts; bounding spheres are")
    w(f"# disjoint, the highest object reaches z = {top:.2f} m.")
    w("#")
    w("# What to expect: an energetic transient while the columns collapse (many Newton")
    if walls:
        w("# iterations per step), then a pile inside the walls that comes (nearly) to rest;")
    else:
        w("# iterations per step), then the boxes come to rest spread over the floor while")
        w("# spheres thrown out of the pile keep rolling away (ideal rolling: no resistance);")
    w("# SAP warm-starts from the previous velocities and needs only a few iterations per")
    if walls:
        w("# step once settled. Objects may be thrown over the 0.4 m walls; none passes")
        w("# through a wall or sinks into the floor.")
    else:
        w("# step once settled. No object leaves the ground or sinks into the floor.")
    w("# Timings: tools/clutter_baseline.py, results/clutter_baseline.csv.")
    w("csim: 1")
    w(f"name: {name}")
    w("settings:")
    w(f"  time_step: {num(dt)}")
    w(f"  duration: {num(duration)}")
    w("  integrator: symplectic_euler")
    if contact_model != "sap":
        w(f"  contact_model: {contact_model}")
    w(f"  output: {{file: {name}.h5, every: {every}}}")
    w("materials:")
    hc = f", hunt_crossley: {num(hunt_crossley)}" if hunt_crossley != 0.0 else ""
    w(f"  container: {{stiffness: .inf, dissipation_time: {num(tau_d)}{hc}, friction: {num(FRICTION)}}}")
    w(f"  object: {{stiffness: {num(stiffness)}, dissipation_time: {num(tau_d)}{hc}, friction: {num(FRICTION)}}}")
    w("world:")
    w("  geometry:")
    w("    - {shape: halfspace, material: container}")
    if walls:
        zc, long_side = 0.5 * WALL_HEIGHT, CONTAINER + 2 * WALL_THICKNESS
        wc = half + 0.5 * WALL_THICKNESS
        for sx, sy, px, py in ((long_side, WALL_THICKNESS, 0.0, -wc), (long_side, WALL_THICKNESS, 0.0, wc),
                               (WALL_THICKNESS, CONTAINER, -wc, 0.0), (WALL_THICKNESS, CONTAINER, wc, 0.0)):
            w(f"    - {{shape: box, size: [{f6(sx)}, {f6(sy)}, {f6(WALL_HEIGHT)}], material: container, "
              f"pose: {{position: [{f6(px)}, {f6(py)}, {f6(zc)}]}}}}")
    w("bodies:")
    for name_i, kind, x, y, z, roll, pitch, yaw in objects:
        if kind == "sphere":
            shape = f"{{shape: sphere, radius: {num(SPHERE_RADIUS)}, material: object}}"
        else:
            e = num(BOX_EDGE)
            shape = f"{{shape: box, size: [{e}, {e}, {e}], material: object}}"
        w(f"  - name: {name_i}")
        w(f"    density: {num(DENSITY)}")
        w(f"    geometry: [{shape}]")
        w(f"    pose: {{position: [{f6(x)}, {f6(y)}, {f6(z)}], rpy: [{f6(roll)}, {f6(pitch)}, {f6(yaw)}]}}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "--objects", type=int, default=40, help="number of objects, 10..400")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dt", type=float, default=2.0e-3, help="time step; also tau_d of the material")
    p.add_argument("--duration", type=float, default=2.0)
    p.add_argument("--every", type=int, default=5, help="output.every of the scene")
    p.add_argument("--no-walls", dest="walls", action="store_false")
    p.add_argument("--columns", type=int, default=4,
                   help="number of columns (default 4; other counts need --no-walls)")
    p.add_argument("--column-spacing", type=float, default=COLUMN_SPACING,
                   help=f"distance between neighbouring columns [m] (default {COLUMN_SPACING:g}; "
                        "another spacing needs --no-walls)")
    p.add_argument("--stiffness", type=float, default=STIFFNESS,
                   help=f"contact stiffness of the objects [N/m] (default {num(STIFFNESS)})")
    p.add_argument("--dissipation-time", type=float, default=None,
                   help="tau_d of every material [s] (default: the time step)")
    p.add_argument("--hunt-crossley", type=float, default=0.0,
                   help="Hunt & Crossley dissipation d of every material [s/m] (default 0)")
    p.add_argument("--contact-model", default="sap",
                   choices=CONTACT_MODELS)
    p.add_argument("-o", "--output", required=True, help="scene file to write")
    a = p.parse_args()
    if not 10 <= a.objects <= 400:
        p.error("--objects must be in 10..400")
    if not 1 <= a.columns <= a.objects:
        p.error("--columns must be in 1..objects")
    if a.walls and a.columns > 4:
        p.error("more than 4 columns do not fit in the container: add --no-walls")
    if a.column_spacing != COLUMN_SPACING and a.walls:
        p.error("--column-spacing moves the columns out of the container: add --no-walls")
    if a.column_spacing < COLUMN_SPACING:
        p.error(f"--column-spacing must be at least {COLUMN_SPACING:g} m (objects would overlap)")
    if a.dt <= 0 or a.duration <= 0 or a.every < 1:
        p.error("--dt and --duration must be positive, --every at least 1")
    if not (0 < a.stiffness < math.inf) or (a.dissipation_time is not None and a.dissipation_time < 0) \
            or not (0 <= a.hunt_crossley < math.inf):
        p.error("--stiffness must be positive and finite, --dissipation-time and --hunt-crossley >= 0")
    args = [f"-n {a.objects}", f"--seed {a.seed}"]
    if a.dt != 2.0e-3:
        args.append(f"--dt {a.dt:g}")
    if a.duration != 2.0:
        args.append(f"--duration {a.duration:g}")
    if a.every != 5:
        args.append(f"--every {a.every}")
    if not a.walls:
        args.append("--no-walls")
    if a.columns != 4:
        args.append(f"--columns {a.columns}")
    if a.column_spacing != COLUMN_SPACING:
        args.append(f"--column-spacing {a.column_spacing:g}")
    if a.stiffness != STIFFNESS:
        args.append(f"--stiffness {a.stiffness:g}")
    if a.dissipation_time is not None:
        args.append(f"--dissipation-time {a.dissipation_time:g}")
    if a.hunt_crossley != 0.0:
        args.append(f"--hunt-crossley {a.hunt_crossley:g}")
    if a.contact_model != "sap":
        args.append(f"--contact-model {a.contact_model}")
    command = "tools/make_clutter.py " + " ".join(args) + f" -o {a.output}"
    text = scene_text(a.objects, a.seed, a.dt, a.duration, a.walls, a.every, command, a.columns,
                      a.column_spacing, a.stiffness, a.dissipation_time, a.hunt_crossley,
                      a.contact_model)
    with open(a.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
