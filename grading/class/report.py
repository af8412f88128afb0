#!/usr/bin/env python3
# INSTRUCTORS ONLY: the class grader's reports (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
"""report.py: what grade-class writes, from the grader's CSVs (read by column name, never its printed text).

    report.py student --id ID --out DIR --plan PLAN --grade-dir GDIR --status N --timeout S --elapsed S
        one student's rows.csv, grade.txt, failures/NN.txt, gradescope/results.json, prairielearn/results.json
    report.py collect --out OUT [--pseudonyms]
        OUT/class.csv and OUT/index.html from every OUT/students/*/rows.csv
    report.py passed VERDICTS_CSV
        the steps the grader's verdicts.csv says PASS, on one line (grade-one.sh picks the run to view)

Everything a student's code could have written (reasons, logs) is untrusted text: control characters
and escape sequences are removed before it is stored, JSON is written by the json module and HTML is
escaped by html.escape. Standard library only.
"""
import argparse
import csv
import hashlib
import hmac
import html
import json
import math
import os
import re
import secrets
import statistics
import sys

COLUMNS = ["student", "step", "verdict", "acc_err", "state_err", "loop_s", "ginteractions_s", "reason", "cause"]
VERDICTS = ("PASS", "FAIL", "TODO", "SKIP", "ERROR")
LOG_LINES = 40          # the excerpt of a failing case's log
LOG_READ_CAP = 1 << 20  # bytes read from a log at most: a flood's log is up to 16 MiB
REASON_CAP = 600        # characters of a reason kept

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text, cap=REASON_CAP):
    """One line of untrusted text, safe to show anywhere: escape sequences and control characters out."""
    text = _ESCAPES.sub("", text.replace("\t", " ").replace("\r", ""))
    text = _CONTROLS.sub("", text)
    return text[:cap]


def die(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(2)


def number(cell):
    """A numeric cell of the grader's CSV as a float, or None (empty, '-', unparsable); NaN stays NaN."""
    try:
        v = float(cell)
    except (TypeError, ValueError):
        return None
    return v


def read_csv(path):
    """Rows of a CSV as dicts by column name; [] if it is missing or not a regular file."""
    if not os.path.isfile(path) or os.path.islink(path):
        return []
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.DictReader(f))


def write_text(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)  # a bare file name: the current folder
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_json(path, obj):
    write_text(path, json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def log_excerpt(log_path, grade_dir):
    """The first LOG_LINES lines of a case's log, cleaned; only a regular file under grade_dir, never a link."""
    if not log_path:
        return ""
    real = os.path.realpath(log_path)
    root = os.path.realpath(grade_dir)
    if not real.startswith(root + os.sep):
        return "(the log is outside the grade folder: not shown)"
    try:
        fd = os.open(log_path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as e:
        return f"(the log cannot be read: {e.strerror})"
    with os.fdopen(fd, "rb") as f:
        if not os.path.isfile(log_path):
            return "(the log is not a regular file: not shown)"
        data = f.read(LOG_READ_CAP)
    lines = data.decode("utf-8", errors="replace").split("\n")[:LOG_LINES]
    text = "\n".join(clean(line, 300) for line in lines)
    return text if text.strip() else "(the log is empty)"


def fmt_err(v):
    """An error as the student's own table prints it (grading/table.c, format_err): %.1e, NaN, or -."""
    if v is None or (not math.isnan(v) and v < 0):
        return "-"
    return "NaN" if math.isnan(v) else f"{v:.1e}"


def row_errors(row):
    """The errors of the step's row in results.csv (the failing case's for a FAIL, the ladder run's for a
    PASS), the measure the student's own table shows (grading/table.c, row_errors): acc_max, and the
    larger of state_pos and state_vel; None where not measured. verdicts.csv's acc_err is another one,
    the worst over every run of the step (the diagnostic set's too)."""
    acc = number(row.get("acc_max", ""))
    pos, vel = number(row.get("state_pos", "")), number(row.get("state_vel", ""))
    acc = None if acc is None or (not math.isnan(acc) and acc < 0) else acc
    if pos is None or vel is None:
        state = None
    elif math.isnan(pos) or math.isnan(vel):
        state = math.nan
    else:
        state = None if max(pos, vel) < 0 else max(pos, vel)
    return acc, state


def fmt_num(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if unit == "s":
        return f"{v:.3g} s" if v >= 1 else f"{1e3 * v:.3g} ms" if v >= 1e-3 else f"{1e6 * v:.3g} us"
    return f"{v:.3g}"


def json_num(v):
    """A number JSON can hold (NaN and infinities are not JSON): None for them."""
    return None if v is None or math.isnan(v) or math.isinf(v) else v


def rows_by_step(path):
    """A CSV of the grader's (verdicts.csv, results.csv, rows.csv) as a dict: step -> its row."""
    return {r.get("step", ""): r for r in read_csv(path)}


# ---- the grade table, each step's output and both platforms' results.json --------------------------
# One builder for grade-one.sh's files (student) and a platform's grader (platform.py results).

GPU_WORDS = "compiled; graded on the course's GPUs"
FAILURE_HEAD_LINES = 3  # failures/NN.txt: the step, its reason and its cause, then its detail


def failure_detail(case, excerpt):
    """What a test's output shows of a FAIL beyond its reason and cause: the case and its log."""
    return f"failed case: {case or '-'}\nlog (its first {LOG_LINES} lines, control characters removed):\n{excerpt}"


def failure_file(step, folder, reason, cause, detail):
    return f"step {step} ({folder}): FAIL\nreason: {reason}\nlikely cause: {cause or '-'}\n{detail}\n"


def detail_of_failure_file(text):
    """failure_file's detail back (the head's lines are cleaned, so each is one line)."""
    detail = text.split("\n", FAILURE_HEAD_LINES)[-1]
    return detail[:-1] if detail.endswith("\n") else detail


def gpu_words(reason):
    return GPU_WORDS if "compiled" in reason else "graded on the course's GPUs"


def grade_table(rows, folders, gpu_waits=()):
    """The grade table's lines: a row per step (rows.csv's columns), its likely cause under it."""
    lines = [f"{'step':<5}{'name':<21}{'verdict':<8}{'acc err':<10}{'state err':<10}{'loop time':<11}{'G int/s':<10}reason"]
    for r in rows:
        wait = r["step"] in gpu_waits
        lines.append(f"{r['step']:<5}{folders.get(r['step'], '?'):<21.20}{'GPU' if wait else r['verdict']:<8}"
                     f"{fmt_err(number(r['acc_err'])):<10}{fmt_err(number(r['state_err'])):<10}"
                     f"{fmt_num(number(r['loop_s']), 's'):<11}{fmt_num(number(r['ginteractions_s'])):<10}"
                     f"{gpu_words(r['reason']) if wait else r['reason']}")
        if r["cause"]:
            lines.append(f"{'':<34}likely cause: {r['cause']}")
    return lines


def test_output(r, detail="", gpu_wait=False, gpu_note=""):
    """A step's output in both results.json: verdict and reason, likely cause, the failure, its speed."""
    text = f"{r['verdict']}: {r['reason']}" if r["reason"] else r["verdict"]
    if r["reason"].startswith(r["verdict"]):  # a reason that names its verdict (the grader's TODO lines) once
        text = r["reason"]
    if gpu_wait:
        text = f"{gpu_words(r['reason'])} ({r['reason']})" + (f"\n{gpu_note}" if gpu_note else "")
    if r["cause"]:
        text += f"\nlikely cause: {r['cause']}"
    if detail:
        text += f"\n{detail}"
    g = number(r["ginteractions_s"])
    if r["verdict"] == "PASS" and g is not None:
        text += f"\n{fmt_num(g)} G interactions/s, loop {fmt_num(number(r['loop_s']), 's')}"
    return text


def got_past_build(r):
    # A step compiled only where its verdict says so: an ERROR (a CLASS_TIMEOUT, a stopped grade) has no verdict.
    return (r["verdict"] == "PASS" or (r["verdict"] == "FAIL" and not r["reason"].startswith("build failed"))
            or (r["verdict"] == "SKIP" and "compiled" in r["reason"]))


def results_json(rows, folders, details, elapsed, gpu_waits=(), gpu_note="", message="", layout="", stop=""):
    """Gradescope's and PrairieLearn's results.json, as dicts, from rows (rows.csv's columns, one per
    step) and details (step: failure_detail). gpu_waits: steps waiting for the course's GPUs, worth 0
    and no failure; message: said instead of the count (nothing to grade); stop: the grader stopped
    before grading, said instead of anything else, and not gradable."""
    tests = [{"name": f"step {r['step']} {folders.get(r['step'], '')}".strip(), "passed": r["verdict"] == "PASS",
              "worth": 0 if r["step"] in gpu_waits else 1, "gpu_wait": r["step"] in gpu_waits,
              "output": test_output(r, details.get(r["step"], ""), r["step"] in gpu_waits, gpu_note)} for r in rows]
    passed = sum(t["passed"] for t in tests)
    counted = sum(t["worth"] for t in tests)
    waits = sum(t["gpu_wait"] for t in tests)
    gradable = any(got_past_build(r) for r in rows) and not stop
    if not stop and not message:
        message = (f"{passed} of {counted} steps PASS" + (f" ({waits} GPU steps {GPU_WORDS})" if waits else "") +
                   ("" if gradable else "; nothing compiled: see each step's output") +
                   (f"; graded: {layout}" if layout else ""))
    output = (stop or message) + "\n\n" + "\n".join(grade_table(rows, folders, gpu_waits))
    best = None  # the highest passing step: the leaderboard's G interactions/s
    for r in rows:
        g = number(r["ginteractions_s"])
        if r["verdict"] == "PASS" and g is not None and json_num(g) is not None:
            best = (r["step"], g)
    gradescope = {
        "score": float(passed),
        "execution_time": int(elapsed),
        "output": output,
        "stdout_visibility": "hidden",
        "tests": [{"name": t["name"], "score": 1.0 if t["passed"] else 0.0, "max_score": float(t["worth"]),
                   **({} if t["gpu_wait"] else {"status": "passed" if t["passed"] else "failed"}),
                   "output": t["output"], "visibility": "visible"} for t in tests],
        "leaderboard": [{"name": "G interactions/s", "value": json_num(best[1]) if best else 0.0},
                        {"name": "highest step passed", "value": best[0] if best else "-"}],
    }
    prairielearn = {
        "gradable": gradable,
        "score": (passed / counted) if counted else 0.0,
        "message": stop or message,
        "output": output,
        "tests": [{"name": t["name"], "points": 1 if t["passed"] else 0, "max_points": t["worth"],
                   "message": t["output"].split("\n")[0], "output": t["output"]} for t in tests],
    }
    return gradescope, prairielearn


# ---- one student -----------------------------------------------------------------------------

def student(a):
    # The plan is grade-one.sh's: step, folder (from common/steps.sh, the shell's one reader of
    # steps.list), what (graded, missing, refused), why.
    plan, folders = [], {}
    with open(a.plan, encoding="utf-8") as f:
        for line in f:
            step, folder, what, why = (line.rstrip("\n").split("\t") + ["", "", ""])[:4]
            plan.append((step, what, why))
            folders[step] = folder
    status = int(a.status)
    # make exits 0 when every step passed, 2 when the grader exits 1 (a step failed) or stops on an error;
    # the grader writes verdicts.csv last, into a folder that was empty, so a grade stopped before its end
    # left none. A timeout (124, or 137 after the KILL) is never a verdict.
    vpath = os.path.join(a.out, "grade", "verdicts.csv")
    finished = status in (0, 2) and os.path.isfile(vpath)
    verdicts = rows_by_step(vpath) if finished else {}
    # The step's row of results.csv: the errors the student's own table shows.
    results = rows_by_step(os.path.join(a.out, "grade", "results.csv")) if finished else {}

    rows, details = [], {}
    for step, what, why in plan:
        row = {"student": a.id, "step": step, "verdict": "", "acc_err": "", "state_err": "", "loop_s": "",
               "ginteractions_s": "", "reason": "", "cause": ""}
        if what == "missing":
            row.update(verdict="TODO", reason=why)
        elif what == "refused":
            row.update(verdict="ERROR", reason=why)
        elif status in (124, 137):
            row.update(verdict="ERROR", reason=f"the submission ran past CLASS_TIMEOUT ({a.timeout} s) and was stopped")
        elif not finished:
            row.update(verdict="ERROR", reason=f"the grade stopped with status {status} before its verdicts (see grade.log)")
        elif step not in verdicts:
            row.update(verdict="ERROR", reason="the grader wrote no verdict for this step (see grade.log)")
        else:
            v = verdicts[step]
            verdict = v.get("verdict", "")
            row.update(verdict=verdict if verdict in VERDICTS[:4] else "ERROR",
                       reason=clean(v.get("reason", "")) if verdict in VERDICTS[:4] else f"unknown verdict {clean(verdict, 20)!r}")
            for col in ("loop_s", "ginteractions_s"):
                n = number(v.get(col, ""))
                row[col] = "" if n is None else ("nan" if math.isnan(n) else f"{n:.6g}")
            if verdict in ("PASS", "FAIL") and step in results:
                for col, n in zip(("acc_err", "state_err"), row_errors(results[step])):
                    row[col] = "" if n is None else ("nan" if math.isnan(n) else f"{n:.6g}")
            if verdict == "FAIL":
                row["cause"] = clean(v.get("cause", ""))
                details[step] = failure_detail(clean(v.get("failed_case", ""), 200), log_excerpt(v.get("log", ""), a.grade_dir))
        rows.append(row)

    with open(os.path.join(a.out, "rows.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)

    for r in rows:
        if r["step"] in details:
            write_text(os.path.join(a.out, "failures", f"{r['step']}.txt"),
                       failure_file(r["step"], folders.get(r["step"], "?"), r["reason"], r["cause"], details[r["step"]]))

    lines = grade_table(rows, folders)
    graded = sum(1 for r in rows)
    passed = sum(1 for r in rows if r["verdict"] == "PASS")
    lines.append(f"\n{a.id}: {passed} of {graded} steps PASS ({a.elapsed} s)")
    if os.path.isfile(os.path.join(a.out, "view.html")):
        lines.append("view.html: a run of your highest CPU step that passed, to watch in a browser (make view)")
    write_text(os.path.join(a.out, "grade.txt"), "\n".join(lines) + "\n")

    gradescope, prairielearn = results_json(rows, folders, details, a.elapsed)
    write_json(os.path.join(a.out, "gradescope", "results.json"), gradescope)
    write_json(os.path.join(a.out, "prairielearn", "results.json"), prairielearn)


# ---- the class -------------------------------------------------------------------------------

ADJECTIVES = ["amber", "brisk", "calm", "deft", "eager", "fleet", "gentle", "hardy", "keen", "lucid", "merry",
              "nimble", "plucky", "quiet", "rapid", "steady", "tidy", "vivid", "witty", "zesty"]
NOUNS = ["otter", "heron", "lynx", "marten", "plover", "quokka", "raven", "stoat", "tern", "vole", "wren",
         "badger", "crane", "dingo", "egret", "finch", "gecko", "ibis", "koala", "lemur"]


def pseudonym_key(out):
    """CLASS_PSEUDONYM_KEY, else a random key kept in OUT/.pseudonym-key: stable for that OUT, and an id
    cannot be found from its pseudonym by hashing guessed ids."""
    key = os.environ.get("CLASS_PSEUDONYM_KEY", "")
    if key:
        return key.encode()
    path = os.path.join(out, ".pseudonym-key")
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    with open(path) as f:
        return f.read().strip().encode()


def pseudonym(key, sid):
    d = hmac.new(key, sid.encode(), hashlib.sha256).digest()
    return f"{ADJECTIVES[d[0] % len(ADJECTIVES)]}-{NOUNS[d[1] % len(NOUNS)]}-{d[2:4].hex()}"


def collect(a):
    out = a.out
    sdir = os.path.join(out, "students")
    rows = []
    if os.path.isdir(sdir):
        for sid in sorted(os.listdir(sdir)):
            rows += read_csv(os.path.join(sdir, sid, "rows.csv"))
    rows = [{c: r.get(c, "") or "" for c in COLUMNS} for r in rows]
    for r in rows:
        if r["verdict"] not in VERDICTS:
            r["verdict"] = "ERROR"
    tmp = os.path.join(out, "class.csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(out, "class.csv"))

    students = sorted({r["student"] for r in rows})
    steps = sorted({r["step"] for r in rows})
    key = pseudonym_key(out) if a.pseudonyms else None
    shown = {s: pseudonym(key, s) if key else s for s in students}
    by = {(r["student"], r["step"]): r for r in rows}

    ladder = []
    for step in steps:
        passing = [number(r["ginteractions_s"]) for r in rows if r["step"] == step and r["verdict"] == "PASS"]
        speeds = [g for g in passing if g is not None and not math.isnan(g)]
        ladder.append((step, len(passing), max(speeds) if speeds else None, statistics.median(speeds) if speeds else None))

    e = html.escape
    # The chart: per step, a bar of how many passed (of the class), labelled; inline SVG, no script.
    bar_w, gap, height = 48, 16, 160
    width = max(1, len(ladder)) * (bar_w + gap) + gap
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 40}" role="img" '
           f'aria-label="students passing each step">']
    for k, (step, npass, best, med) in enumerate(ladder):
        h = 0 if not students else round(height * npass / len(students))
        x = gap + k * (bar_w + gap)
        svg.append(f'<rect x="{x}" y="10" width="{bar_w}" height="{height}" fill="#eee"/>'  # the whole class
                   f'<rect class="bar" x="{x}" y="{height - h + 10}" width="{bar_w}" height="{h}" fill="#3a7"/>'
                   f'<text x="{x + bar_w / 2}" y="{max(height - h + 5, 24)}" text-anchor="middle" font-size="12">{npass}/{len(students)}</text>'
                   f'<text x="{x + bar_w / 2}" y="{height + 28}" text-anchor="middle" font-size="12">{e(step)}</text>')
    svg.append("</svg>")

    colour = {"PASS": "#cfc", "FAIL": "#fcc", "ERROR": "#f99", "TODO": "#eee", "SKIP": "#ffd"}
    out_html = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>N-body ladder: the class</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:.2em .5em;text-align:left}td.n{text-align:right}</style>",
        "</head><body>", "<h1>N-body ladder: the class</h1>",
        f"<p>{len(students)} students, {len(steps)} steps graded"
        f"{' (pseudonyms)' if key else ''}.</p>",
        "<h2>The ladder</h2>", "<p>Students passing each step (the grey column is the class):</p>", "".join(svg),
        '<table id="ladder"><tr><th>step</th><th>PASS</th><th>best G int/s</th><th>median G int/s</th></tr>']
    for step, npass, best, med in ladder:
        out_html.append(f'<tr class="step"><td>{e(step)}</td><td class="n">{npass} of {len(students)}</td>'
                        f'<td class="n">{e(fmt_num(best))}</td><td class="n">{e(fmt_num(med))}</td></tr>')
    out_html.append("</table>")
    out_html.append("<h2>Students</h2>")
    # A student's own run to watch (grade-one.sh's view.html): a link into students/ID/, so none under
    # pseudonyms, where the path would name the student.
    views = {} if key else {s: f"students/{s}/view.html" for s in students
                            if os.path.isfile(os.path.join(sdir, s, "view.html"))}
    out_html.append('<table id="students"><tr><th>student</th><th>PASS</th>' +
                    "".join(f"<th>{e(s)}</th>" for s in steps) + ("<th>run</th>" if views else "") + "</tr>")
    for sid in sorted(students, key=lambda s: shown[s]):
        cells = []
        for step in steps:
            r = by.get((sid, step))
            if not r:
                cells.append("<td></td>")
                continue
            g = number(r["ginteractions_s"])
            extra = f" {fmt_num(g)} G/s" if r["verdict"] == "PASS" and g is not None else ""
            reason = r["reason"] + (f" (likely cause: {r['cause']})" if r["cause"] else "")
            reason = reason.replace(f"/{sid}/", f"/{shown[sid]}/") if key else reason  # a path in a reason names the id
            cells.append(f'<td style="background:{colour.get(r["verdict"], "#fff")}" title="{e(reason)}">'
                         f"{e(r['verdict'])}{e(extra)}</td>")
        npass = sum(1 for step in steps if by.get((sid, step), {}).get("verdict") == "PASS")
        watch = (f'<td><a class="view" href="{e(views[sid])}">watch</a></td>' if sid in views else "<td></td>") if views else ""
        out_html.append(f'<tr class="student"><td>{e(shown[sid])}</td><td class="n">{npass}</td>{"".join(cells)}{watch}</tr>')
    out_html.append("</table>")
    if not key:
        out_html.append("<h2>Reasons</h2><ul>")
        for r in rows:
            if r["verdict"] in ("FAIL", "ERROR"):
                cause = f" <i>likely cause: {e(r['cause'])}</i>" if r["cause"] else ""
                out_html.append(f"<li>{e(r['student'])} step {e(r['step'])}: {e(r['verdict'])}: {e(r['reason'])}{cause}</li>")
        out_html.append("</ul>")
    out_html.append("</body></html>")
    write_text(os.path.join(out, "index.html"), "\n".join(out_html) + "\n")
    print(f"report.py: {out}/class.csv ({len(rows)} rows, {len(students)} students), {out}/index.html")


def main():
    p = argparse.ArgumentParser(description="grade-class reports (grading/CLASS.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("student")
    for opt in ("--id", "--out", "--plan", "--grade-dir", "--status", "--timeout", "--elapsed"):
        s.add_argument(opt, required=True)
    c = sub.add_parser("collect")
    c.add_argument("--out", required=True)
    c.add_argument("--pseudonyms", action="store_true")
    v = sub.add_parser("passed")
    v.add_argument("verdicts")
    a = p.parse_args()
    if a.cmd == "student":
        if not re.fullmatch(r"-?[0-9]+", a.status):
            die(f"--status {a.status}: not a number")
        student(a)
    elif a.cmd == "passed":
        print(" ".join(step for step, r in rows_by_step(a.verdicts).items() if r.get("verdict") == "PASS"))
    else:
        if not os.path.isdir(a.out):
            die(f"{a.out}: no such folder")
        collect(a)


if __name__ == "__main__":
    main()
