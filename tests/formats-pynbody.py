"""tests/formats-pynbody.py: pynbody reads the lab's tipsy and HDF5 files as the lab wrote them, and
pynbody (tipsy) and h5py (GADGET-style HDF5) write files the lab then reads (tests/formats-check.sh).

    python formats-pynbody.py A.nbs A.tipsy A.h5 OUT.tipsy OUT.h5

A.nbs is read with numpy from its layout (common/snapshot.h); A.tipsy and A.h5 must hold the same
positions and masses, compared as float32, bit for bit. OUT.tipsy and OUT.h5 get A.nbs's bodies.
Prints one line of what it compared; exits 1 on a difference."""
import sys
import warnings

import h5py
import numpy as np
import pynbody

warnings.simplefilter("ignore")


def read_nbs(path):
    raw = open(path, "rb").read()
    assert raw[:8] == b"NBODYSNP", path
    systems, bodies = np.frombuffer(raw[16:32], "<u8")
    assert systems == 1 and np.frombuffer(raw[12:16], "<u4")[0] == 4, path
    n = int(bodies)
    a = np.frombuffer(raw[64:64 + 7 * 4 * n], "<f4").reshape(7, n)
    return np.stack(a[0:3], axis=1), np.stack(a[3:6], axis=1), a[6].copy()


def same(what, got, want):
    got = np.asarray(got, dtype=np.float64).astype(np.float32)
    if got.shape != want.shape or not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        raise SystemExit("%s: pynbody read other values than the lab wrote (max |difference| %g)"
                         % (what, np.max(np.abs(got - want)) if got.shape == want.shape else -1))


def main():
    nbs, tipsy, hdf5, out_tipsy, out_hdf5 = sys.argv[1:6]
    pos, vel, mass = read_nbs(nbs)
    for path, kind in ((tipsy, "TipsySnap"), (hdf5, "GadgetHDFSnap")):
        snap = pynbody.load(path)
        if type(snap).__name__ != kind or len(snap) != len(mass):
            raise SystemExit("%s: pynbody loaded a %s of %d particles, not a %s of %d"
                             % (path, type(snap).__name__, len(snap), kind, len(mass)))
        same(path + " pos", snap["pos"].view(np.ndarray), pos)
        same(path + " mass", snap["mass"].view(np.ndarray), mass)
    # The other way: pynbody writes tipsy (its own writer), h5py a GADGET-style HDF5 file.
    new = pynbody.new(dm=len(mass))
    new["pos"] = pos
    new["vel"] = vel
    new["mass"] = mass
    new["eps"] = np.full(len(mass), 0.01, dtype=np.float32)
    new.properties["time"] = 0.0
    new.write(fmt=pynbody.snapshot.tipsy.TipsySnap, filename=out_tipsy)
    with h5py.File(out_hdf5, "w") as f:
        h = f.create_group("Header")
        counts = np.array([0, len(mass), 0, 0, 0, 0], dtype=np.uint32)
        h.attrs["NumPart_ThisFile"] = counts
        h.attrs["NumPart_Total"] = counts
        h.attrs["MassTable"] = np.zeros(6)
        h.attrs["Time"] = 0.0
        h.attrs["NumFilesPerSnapshot"] = 1
        p = f.create_group("PartType1")
        p["Coordinates"] = pos
        p["Velocities"] = vel
        p["Masses"] = mass
        p["ParticleIDs"] = np.arange(1, len(mass) + 1, dtype=np.uint64)
    print("pynbody %s read the lab's tipsy and HDF5 files: %d positions and masses the same bits"
          % (pynbody.__version__, len(mass)))


main()
