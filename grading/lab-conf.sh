# shellcheck shell=bash
# lab-conf.sh: the lab's settings (the grade's constants, the site's Slurm), sourced: . grading/lab-conf.sh
#   lab_conf KEY        prints KEY's value: the environment's when KEY is set there, else lab.conf's, else nothing
#   lab_conf_file KEY   lab.conf's value alone (what the recorded data was measured at: the report reads it)
# or run, for make: bash grading/lab-conf.sh KEY...  prints KEY=VALUE, lab.conf's, for each (the Makefile
# takes make's own overrides, the command line's and the environment's, itself).
# lab.conf (the lab's root, or $LAB_CONF) is read as data, never sourced: only lines KEY=VALUE with KEY
# in [A-Z_] and VALUE in [A-Za-z0-9_.:/,-] count; '#' comments and blank lines are skipped; any other line
# is one warning on stderr and skipped. A value from the environment outside that alphabet: one line
# on stderr, status 2 (it goes into an sbatch script). Keys: grading/SLURM.md, and the grade's constants,
# GRADE_*, the one home of each (grading/README.md, "Knobs"): the Makefile compiles them into the grader.
LAB_CONF=${LAB_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lab.conf}
LAB_CONF_KEYS="GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_TIMEOUT GRADE_CHECK_N SLURM_PARTITION SLURM_ACCOUNT SLURM_GPUS SLURM_TIME"

# The file's values, read once when this is sourced (so a bad line is warned about once).
declare -A LAB_CONF_FILE=()
lab_conf_load() {
    local line n=0
    [ -r "$LAB_CONF" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        [[ $line =~ ^[[:space:]]*(#.*)?$ ]] && continue
        if [[ $line =~ ^([A-Z_]+)=([A-Za-z0-9_.:/,-]*)$ ]]; then
            LAB_CONF_FILE[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        else
            echo "lab-conf.sh: $LAB_CONF:$n: skipped (not KEY=VALUE with VALUE in [A-Za-z0-9_.:/,-]): ${line:0:60}" >&2
        fi
    done < "$LAB_CONF"
}
lab_conf_load

lab_conf() {
    local key=$1
    case " $LAB_CONF_KEYS " in *" $key "*) ;; *) echo "lab-conf.sh: unknown key $key" >&2; return 2 ;; esac
    if [ -n "${!key+set}" ]; then
        [[ ${!key} =~ ^[A-Za-z0-9_.:/,-]*$ ]] ||
            { echo "lab-conf.sh: $key='${!key}' in the environment: only letters, digits and _ . : / , - are allowed" >&2; return 2; }
        printf '%s\n' "${!key}"
        return 0
    fi
    printf '%s\n' "${LAB_CONF_FILE[$key]:-}"
}

lab_conf_file() {
    local key=$1
    case " $LAB_CONF_KEYS " in *" $key "*) ;; *) echo "lab-conf.sh: unknown key $key" >&2; return 2 ;; esac
    printf '%s\n' "${LAB_CONF_FILE[$key]:-}"
}

# Run, not sourced: KEY=VALUE of lab.conf for each KEY named.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    for key in "$@"; do
        value=$(lab_conf_file "$key") || exit 2
        printf '%s=%s\n' "$key" "$value"
    done
fi
