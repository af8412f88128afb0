#!/usr/bin/env python3
# INSTRUCTORS ONLY: the platforms' grader (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md); grading/handout.sh keeps it out of the handout.
"""platform.py: what a platform's grader does in python (grading/class/platform-run.sh calls it).

    platform.py stage --from SUB --to DIR --steps TSV --notes NOTES
        find the step sources in a submission as a student uploads it (step folders at its top, or
        inside one wrapping folder, or a zip of either) and copy them to DIR/FOLDER/nbody.EXT, for
        grade-one.sh to take. Nothing is followed or unpacked beyond the step sources: a link is staged
        as a link, a file over 1 MiB as a sparse file of its size (grade-one.sh refuses both, with
        the reason), a zip member is read at most 1 MiB + 1 byte. NOTES gets one JSON object: the
        layout found, what was staged, and hints on what to upload when nothing was.
    platform.py results --platform gradescope|prairielearn --notes NOTES --steps TSV --out FILE
            [--rows CSV --failures DIR]... [--counted-gpu 0|1] [--remote-note TEXT] [--stop TEXT]
            [--elapsed S]
        the platform's results.json from grade-one.sh's rows.csv and failures/ (the local grade and,
        where a GPU host graded, its rows: later --rows win by step). A GPU step SKIPped as compiled
        is "compiled; graded on the course's GPUs": listed, worth 0 of 0, not a failure.

TSV: id, folder, lang, gpus (common/steps.sh's registry_ids id folder lang gpus). Standard library only.
"""
import argparse
import csv
import json
import os
import re
import stat
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import COLUMNS, clean, detail_of_failure_file, results_json, rows_by_step, write_json  # noqa: E402

MAX_SOURCE = 1024 * 1024   # grade-one.sh's limit on a step source
MAX_ZIP = 64 << 20         # a zip larger than this is not opened
MAX_MEMBERS = 20000        # nor one of more entries
MAX_DEPTH = 3              # wrapping folders looked through (nbody-lab/, submission/nbody-lab/, ...)
IGNORED = re.compile(r"^(__MACOSX|\..*)$")


def steps_of(path):
    steps = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            sid, folder, lang, gpus = (line.rstrip("\n").split("\t") + ["", "", "", "0"])[:4]
            if sid:
                steps.append({"id": sid, "folder": folder, "lang": lang, "gpus": int(gpus or 0)})
    return steps


# ---- finding the step sources -------------------------------------------------------------------

class DirTree:
    """A submission folder, read with lstat only: nothing is followed."""

    def __init__(self, root):
        self.root = root

    def kind(self, rel):
        try:
            st = os.lstat(os.path.join(self.root, rel))
        except OSError:
            return None, 0
        if stat.S_ISLNK(st.st_mode):
            return "link", 0
        if stat.S_ISDIR(st.st_mode):
            return "dir", 0
        if stat.S_ISREG(st.st_mode):
            return "file", st.st_size
        return "other", 0

    def listdir(self, rel):
        if self.kind(rel)[0] != "dir":
            return []
        try:
            return sorted(os.listdir(os.path.join(self.root, rel)))
        except OSError:
            return []

    def read(self, rel):
        fd = os.open(os.path.join(self.root, rel), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            return f.read(MAX_SOURCE + 1)

    def walk(self, limit=400):
        """Relative paths of regular files, breadth first, at most limit (for hints)."""
        found, queue = [], [""]
        while queue and len(found) < limit:
            d = queue.pop(0)
            for name in self.listdir(d):
                rel = os.path.join(d, name) if d else name
                k = self.kind(rel)[0]
                if k == "dir" and not IGNORED.match(name) and rel.count("/") < 6:
                    queue.append(rel)
                elif k == "file":
                    found.append(rel)
        return found


class ZipTree:
    """A zip's members by path; a member is never extracted whole, only read up to the limit."""

    def __init__(self, zf):
        self.zf = zf
        self.members = {}
        for info in zf.infolist():
            name = info.filename.replace("\\", "/")
            if name.startswith("/") or ".." in name.split("/"):
                continue  # an absolute or climbing path is never a step source
            self.members[name.rstrip("/")] = info
        self.dirs = set()
        for name in self.members:
            parts = name.split("/")
            for k in range(1, len(parts)):
                self.dirs.add("/".join(parts[:k]))

    def kind(self, rel):
        info = self.members.get(rel)
        if info is None:
            return ("dir", 0) if rel in self.dirs or rel == "" else (None, 0)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            return "link", 0
        if info.is_dir():
            return "dir", 0
        return "file", info.file_size

    def listdir(self, rel):
        prefix = rel + "/" if rel else ""
        names = {n[len(prefix):].split("/")[0] for n in list(self.members) + list(self.dirs) if n.startswith(prefix) and n != rel}
        return sorted(n for n in names if n)

    def read(self, rel):
        with self.zf.open(self.members[rel]) as f:
            return f.read(MAX_SOURCE + 1)

    def walk(self, limit=400):
        return [n for n, i in self.members.items() if not i.is_dir()][:limit]


def find_root(tree, steps):
    """The folder of the tree that holds step folders: the top, or one wrapping folder after another
    (each the only folder there, __MACOSX and dot folders aside), MAX_DEPTH deep at most."""
    folders = {s["folder"] for s in steps}
    rel = ""
    for _ in range(MAX_DEPTH + 1):
        names = [n for n in tree.listdir(rel) if not IGNORED.match(n)]
        if any(n in folders for n in names):
            return rel
        subdirs = [n for n in names if tree.kind(os.path.join(rel, n) if rel else n)[0] == "dir"]
        if len(subdirs) != 1:
            return None
        rel = os.path.join(rel, subdirs[0]) if rel else subdirs[0]
    return None


def stage_tree(tree, root, steps, dest, notes):
    """Each step's source under root, to dest/FOLDER/nbody.EXT as grade-one.sh will judge it."""
    staged = []
    for s in steps:
        name = f"{s['folder']}/nbody.{s['lang']}"
        rel = f"{root}/{name}" if root else name
        fold = f"{root}/{s['folder']}" if root else s["folder"]
        fk = tree.kind(fold)[0]
        k, size = tree.kind(rel)
        if fk is None or (fk == "dir" and k is None):
            continue
        out_dir = os.path.join(dest, s["folder"])
        if fk == "link":  # the folder a link: grade-one.sh refuses it, never followed
            os.symlink("/dev/null", out_dir)
            staged.append(s["id"])
            continue
        if fk != "dir":
            continue
        os.makedirs(out_dir, exist_ok=True)
        out = os.path.join(out_dir, f"nbody.{s['lang']}")
        if k == "link":
            os.symlink("/dev/null", out)
        elif k in ("other", "dir"):
            os.mkdir(out)  # not a regular file: refused with that reason
        elif size > MAX_SOURCE:
            with open(out, "wb") as f:
                f.truncate(size)  # sparse: refused with its true size, nothing copied
        else:
            data = tree.read(rel)
            with open(out, "wb") as f:
                f.write(data)  # over the limit when the zip lied about its size: refused too
        staged.append(s["id"])
    notes["staged"] = staged


def hints(paths, steps):
    """What a student meant: each nbody.c/.cu found where no step folder holds it, a folder named
    almost like a step's, bare step files."""
    folders = {s["folder"]: s for s in steps}
    out = []
    for p in paths[:400]:
        parts = p.split("/")
        base = parts[-1]
        parent = parts[-2] if len(parts) > 1 else ""
        if base in ("nbody.c", "nbody.cu") and parent not in folders:
            out.append(f"found {p}: a step's source goes in its step folder, e.g. step00_serial/nbody.c")
        m = re.match(r"^(step[0-9]{2}[A-Za-z0-9_]*)\.(c|cu)$", base)
        if m:
            out.append(f"found {p}: a bare file; put it in its step folder as nbody.{m.group(2)} (e.g. step00_serial/nbody.c)")
        for folder in folders:
            if parent and parent != folder and parent.lower().startswith(folder[:6].lower()) and base.startswith("nbody."):
                out.append(f"found {p}: the folder is named {parent!r}, the step's is {folder!r}")
    return sorted(set(out))[:12]


def stage(a):
    steps = steps_of(a.steps)
    os.makedirs(a.to, exist_ok=True)
    notes = {"layout": "", "staged": [], "problem": "", "hints": [], "top": []}
    sub = a.__dict__["from"]
    top = DirTree(sub)
    notes["top"] = [clean(n, 80) for n in top.listdir("")][:20]
    root = find_root(top, steps)
    tree, where = top, ""
    if root is None:
        # No step folder: one zip (at the top, or inside the wrapping folders) is opened instead.
        zips, rel = [], ""
        for _ in range(MAX_DEPTH + 1):
            names = [n for n in top.listdir(rel) if not IGNORED.match(n)]
            zips = [os.path.join(rel, n) if rel else n for n in names if n.lower().endswith(".zip")]
            subdirs = [n for n in names if top.kind(os.path.join(rel, n) if rel else n)[0] == "dir"]
            if zips or len(subdirs) != 1:
                break
            rel = os.path.join(rel, subdirs[0]) if rel else subdirs[0]
        if len(zips) > 1:
            notes["problem"] = f"{len(zips)} zip files ({', '.join(clean(z, 60) for z in zips[:4])}): upload one"
        elif zips:
            z = zips[0]
            k, size = top.kind(z)
            if k != "file":
                notes["problem"] = f"{clean(z, 80)} is not a regular file (a link is not followed)"
            elif size > MAX_ZIP:
                notes["problem"] = f"{clean(z, 80)} is {size} bytes, over the {MAX_ZIP >> 20} MiB a submission may be"
            else:
                try:
                    fd = os.open(os.path.join(sub, z), os.O_RDONLY | os.O_NOFOLLOW)
                    zf = zipfile.ZipFile(os.fdopen(fd, "rb"))
                    if len(zf.infolist()) > MAX_MEMBERS:
                        notes["problem"] = f"{clean(z, 80)} holds {len(zf.infolist())} entries, over {MAX_MEMBERS}: upload the step folders only"
                    else:
                        tree = ZipTree(zf)
                        root = find_root(tree, steps)
                        where = f"the zip {clean(z, 80)}"
                        if root is None:
                            notes["hints"] = hints(tree.walk(), steps)
                except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, RuntimeError, ValueError) as e:
                    notes["problem"] = f"{clean(z, 80)} cannot be opened as a zip ({clean(str(e), 120)})"
        if root is None and not notes["hints"] and not notes["problem"]:
            notes["hints"] = hints(top.walk(), steps)
    if root is not None:
        notes["layout"] = (f"step folders in {where}" if where else "step folders") + (f", inside {clean(root, 80)}/" if root else " at the top")
        try:
            stage_tree(tree, root, steps, a.to, notes)
        except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, NotImplementedError) as e:
            notes["problem"] = f"a step source cannot be read ({clean(str(e), 120)})"
            notes["staged"] = []
    with open(a.notes, "w", encoding="utf-8") as f:
        json.dump(notes, f)


# ---- results.json ------------------------------------------------------------------------------

def what_to_upload(steps):
    ex = ", ".join(f"{s['folder']}/nbody.{s['lang']}" for s in steps[:3])
    return ("Upload your step folders, each with its source: " + ex + (", ..." if len(steps) > 3 else "") +
            " (your whole copy of the lab, or only those folders, or a zip of either).")


def results(a):
    steps = steps_of(a.steps)
    with open(a.notes, encoding="utf-8") as f:
        notes = json.load(f)
    graded = {}
    for path in a.rows or []:
        graded.update(rows_by_step(path))
    graded.pop("", None)  # a row without its step
    details = {}
    for d in a.failures or []:
        for s in steps:
            p = os.path.join(d, f"{s['id']}.txt")
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, encoding="utf-8", errors="replace") as f:
                    details[s["id"]] = detail_of_failure_file(f.read(16000))

    # A row per step: its graded row, else not handed in (or not graded: the grader stopped).
    rows = []
    for s in steps:
        r = graded.get(s["id"])
        row = {c: (r or {}).get(c) or "" for c in COLUMNS}
        row.update(step=s["id"], verdict=row["verdict"] or ("ERROR" if a.stop else "TODO"),
                   reason=clean(row["reason"]) if r else (a.stop or f"no {s['folder']}/nbody.{s['lang']} in the submission"),
                   cause=clean(row["cause"]))
        rows.append(row)
    gpus = {s["id"]: s["gpus"] for s in steps}
    gpu_waits = set() if a.counted_gpu else {r["step"] for r in rows if r["verdict"] == "SKIP" and gpus[r["step"]] > 0}

    message = ""
    if not notes.get("staged") and not graded:
        why = [notes["problem"]] if notes.get("problem") else []
        why.append("no step source was found in the submission" + (f" (its top holds: {', '.join(notes.get('top', [])[:8])})" if notes.get("top") else " (it is empty)"))
        message = "Nothing to grade: " + "; ".join(why) + ". " + what_to_upload(steps)
        if notes.get("hints"):
            message += "\n" + "\n".join(notes["hints"])
    gradescope, prairielearn = results_json(rows, {s["id"]: s["folder"] for s in steps}, details, a.elapsed, gpu_waits,
                                            a.remote_note, message, notes.get("layout", ""), a.stop)
    write_json(a.out, gradescope if a.platform == "gradescope" else prairielearn)


def main():
    p = argparse.ArgumentParser(description="the platforms' grader (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stage")
    s.add_argument("--from", required=True)
    for opt in ("--to", "--steps", "--notes"):
        s.add_argument(opt, required=True)
    r = sub.add_parser("results")
    r.add_argument("--platform", choices=("gradescope", "prairielearn"), required=True)
    for opt in ("--notes", "--steps", "--out"):
        r.add_argument(opt, required=True)
    r.add_argument("--rows", action="append")
    r.add_argument("--failures", action="append")
    r.add_argument("--counted-gpu", type=int, default=0)
    r.add_argument("--remote-note", default="")
    r.add_argument("--stop", default="")
    r.add_argument("--elapsed", type=int, default=0)
    a = p.parse_args()
    stage(a) if a.cmd == "stage" else results(a)


if __name__ == "__main__":
    main()
