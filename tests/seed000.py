#!/usr/bin/env python3
"""The seed 000 program (shared/seeds/000_*.txt), verbatim in its simulation functions,
with a command line added so that tests can take its initial and final states.

Only the I/O around the program is new: nueva(), paso(), orden(), envolver() and
dirigir() are copied character for character from the seed, so this script *is* the
reference the `cpu-ref` backend must reproduce bit for bit. States are written as
`x,y,vx,vy` CSV with repr() floats (shortest round-trip form).

  seed000.py --table                     the seed's own printed table
  seed000.py --seed S --count N --steps K --initial A.csv --final B.csv [--weights s a c]
  seed000.py --load A.csv --steps K --final B.csv   step a given state
"""
import argparse
import math
import random
import sys

# ---- verbatim from the seed ----------------------------------------------------------
ANCHO = ALTO = 400.0
VISION, ESPACIO = 50.0, 20.0           # radio en el que un boid ve a los demás y radio en el que los aparta
VMAX, VMIN, FMAX = 3.0, 1.5, 0.05      # velocidad máxima y mínima, giro máximo por paso


def envolver(d, lado):
    """Diferencia más corta en un mundo que se cierra: de 390 a 10 hay 20, no 380."""
    if d > lado / 2: return d - lado
    if d < -lado / 2: return d + lado
    return d


def dirigir(dx, dy, vx, vy):
    """Fuerza para pasar de la velocidad (vx, vy) a ir a toda velocidad hacia (dx, dy), con un tope."""
    m = math.sqrt(dx * dx + dy * dy)
    if m == 0: return 0.0, 0.0
    fx, fy = dx / m * VMAX - vx, dy / m * VMAX - vy
    n = math.sqrt(fx * fx + fy * fy)
    if n > FMAX: fx, fy = fx / n * FMAX, fy / n * FMAX
    return fx, fy


def paso(bandada, separacion=1.5, alineacion=1.0, cohesion=1.0):
    """Un paso de la simulación. Cada boid es [x, y, vx, vy]. Todos deciden con la foto del paso anterior."""
    giros = []
    for i, (x, y, vx, vy) in enumerate(bandada):
        n = 0; mvx = mvy = cx = cy = sx = sy = 0.0; aparta = False
        for j, (x2, y2, vx2, vy2) in enumerate(bandada):
            if j == i: continue
            dx, dy = envolver(x2 - x, ANCHO), envolver(y2 - y, ALTO)
            d2 = dx * dx + dy * dy
            if d2 < VISION * VISION:
                n += 1; mvx += vx2; mvy += vy2; cx += dx; cy += dy
                if 0 < d2 < ESPACIO * ESPACIO:
                    sx -= dx / d2; sy -= dy / d2; aparta = True     # cuanto más cerca, más empuja
        ax = ay = 0.0
        if aparta:
            fx, fy = dirigir(sx, sy, vx, vy); ax += separacion * fx; ay += separacion * fy
        if n:
            fx, fy = dirigir(mvx, mvy, vx, vy); ax += alineacion * fx; ay += alineacion * fy   # rumbo medio
            fx, fy = dirigir(cx, cy, vx, vy); ax += cohesion * fx; ay += cohesion * fy         # centro del grupo
        giros.append((ax, ay))
    for b, (ax, ay) in zip(bandada, giros):
        b[2] += ax; b[3] += ay
        v = math.sqrt(b[2] * b[2] + b[3] * b[3])
        if v > VMAX: b[2] = b[2] / v * VMAX; b[3] = b[3] / v * VMAX
        elif 0 < v < VMIN: b[2] = b[2] / v * VMIN; b[3] = b[3] / v * VMIN
        b[0] += b[2]; b[1] += b[3]
        if b[0] < 0: b[0] += ANCHO
        elif b[0] >= ANCHO: b[0] -= ANCHO
        if b[1] < 0: b[1] += ALTO
        elif b[1] >= ALTO: b[1] -= ALTO


def orden(bandada):
    """De 0 (cada uno a su aire) a 1 (todos en la misma dirección): media de las direcciones."""
    ux = uy = 0.0
    for _, _, vx, vy in bandada:
        v = math.sqrt(vx * vx + vy * vy); ux += vx / v; uy += vy / v
    return math.sqrt(ux * ux + uy * uy) / len(bandada)


def nueva(n, semilla):
    r = random.Random(semilla)
    bandada = []
    for _ in range(n):
        a = r.uniform(0, 2 * math.pi)
        bandada.append([r.uniform(0, ANCHO), r.uniform(0, ALTO), 2 * math.cos(a), 2 * math.sin(a)])
    return bandada
# ---- end of the seed's code ------------------------------------------------------------


def write_state(path, bandada):
    with open(path, "w") as f:
        f.write("x,y,vx,vy\n")
        for b in bandada:
            f.write(",".join(repr(v) for v in b) + "\n")


def read_state(path):
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("# step=")]
    assert lines[0].split(",")[:4] == ["x", "y", "vx", "vy"]
    return [[float(v) for v in line.split(",")[:4]] for line in lines[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", action="store_true", help="print the seed's table")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--count", type=int, default=80)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--weights", type=float, nargs=3, default=(1.5, 1.0, 1.0))
    ap.add_argument("--load")
    ap.add_argument("--initial")
    ap.add_argument("--final")
    a = ap.parse_args()
    if a.table:
        for titulo, pesos in [("Las tres reglas", (1.5, 1.0, 1.0)), ("Sin alineación", (1.5, 0.0, 1.0))]:
            bandada = nueva(80, semilla=7)
            print(titulo)
            for t in range(301):
                if t % 60 == 0:
                    print(f"  paso {t:3d}: orden {orden(bandada):.2f}  " + "#" * round(orden(bandada) * 40))
                paso(bandada, *pesos)
        return 0
    bandada = read_state(a.load) if a.load else nueva(a.count, a.seed)
    if a.initial:
        write_state(a.initial, bandada)
    for _ in range(a.steps):
        paso(bandada, *a.weights)
    if a.final:
        write_state(a.final, bandada)
    return 0


if __name__ == "__main__":
    sys.exit(main())
