"""view-levels.py PAGE SNAP ETA LEVELS: frame 0's level bytes of a make view page (snap2html --levels),
against the levels recomputed here from SNAP (a float32 .nbs of one system: its eps and dt as dt_max, the
fp64 direct sum, step13's halving rule). Prints: the number of distinct levels, the bodies that differ."""
import base64, math, re, struct, sys

page, snap = open(sys.argv[1]).read(), open(sys.argv[2], "rb").read()
eta, levels = float(sys.argv[3]), int(sys.argv[4])
precision, systems, n = struct.unpack_from("<I", snap, 12)[0], *struct.unpack_from("<QQ", snap, 16)
assert precision == 4 and systems == 1, "a float32 snapshot of one system"
eps, dt = struct.unpack_from("<dd", snap, 48)
f = struct.unpack_from("<%df" % (7 * n), snap, 64)
x, y, z, m = f[0:n], f[n:2 * n], f[2 * n:3 * n], f[6 * n:7 * n]
blob = base64.b64decode(re.search(r'id="f0">([^<]*)<', page).group(1))
assert len(blob) == 8 * n, "%d bytes for %d bodies, want 8 a body" % (len(blob), n)
got, bound, off = blob[7 * n:], eta * eta * eps, 0
for i in range(n):
    ax = ay = az = 0.0
    for j in range(n):
        if j != i:
            dx, dy, dz = x[j] - x[i], y[j] - y[i], z[j] - z[i]
            r2 = dx * dx + dy * dy + dz * dz + eps * eps
            w = m[j] / (r2 * math.sqrt(r2))
            ax, ay, az = ax + w * dx, ay + w * dy, az + w * dz
    pull, k, step = math.sqrt(ax * ax + ay * ay + az * az), 0, dt
    while k < levels - 1 and step * step * pull > bound:
        step, k = step / 2, k + 1
    off += got[i] != round(255 * k / (levels - 1))
print(len(set(got)), off)
