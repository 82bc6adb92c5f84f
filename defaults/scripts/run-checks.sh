#!/usr/bin/env bash
# Run by the validate and recheck nodes of the bundled workflows. Detects this repository's own
# checks, runs each one, and prints a single JSON object on stdout (also kept in
# $ARTIFACTS_DIR/validation.json). Progress goes to stderr and each
# check's full output to $ARTIFACTS_DIR/checks/<name>.log. A failing check is a result, not an
# error: the script exits 0 unless it cannot run at all.
set -euo pipefail
export CI=true GIT_TERMINAL_PROMPT=0
out_dir="$ARTIFACTS_DIR/checks"
mkdir -p "$out_dir"

note() { printf '%s\n' "$*" >&2; }
json_str() {
  local s=$1
  s=${s//\\/\\\\}; s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}; s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# Unresolved conflicts or an unfinished rebase make every check meaningless: stop here.
git_dir=$(git rev-parse --git-dir)
if [ -d "$git_dir/rebase-merge" ] || [ -d "$git_dir/rebase-apply" ]; then
  note "A rebase is still in progress (see git status); finish it before running the checks."
  exit 1
fi
if [ -n "$(git ls-files --unmerged 2>/dev/null)" ]; then
  note "Unresolved merge conflicts remain in:"
  git diff --name-only --diff-filter=U >&2 || true
  exit 1
fi

checks=()  # JSON objects
notes=()   # plain text
summary=()
failed=0
ran=0

run_check() {  # run_check <name> <command words...>
  local name=$1; shift
  local log="$out_dir/$name.log" rc=0
  note "==> $name: $*"
  if "$@" >"$log" 2>&1 </dev/null; then rc=0; else rc=$?; fi
  if [ "$name" = pytest ] && [ "$rc" -eq 5 ]; then
    notes+=("pytest collected no tests; not counted")
    return 0
  fi
  ran=$((ran + 1))
  local entry
  entry="{\"name\":$(json_str "$name"),\"command\":$(json_str "$*"),\"exit_code\":$rc,\"log\":$(json_str "$log")"
  if [ "$rc" -eq 0 ]; then
    summary+=("$name passed")
  else
    failed=$((failed + 1))
    summary+=("$name FAILED (exit $rc)")
    local excerpt
    excerpt=$(tail -c 4000 "$log" | tr -d '\000-\010\013\014\016-\037' || true)
    entry+=",\"excerpt\":$(json_str "$excerpt")"
  fi
  checks+=("$entry}")
  note "    exit $rc (log: $log)"
}

detected=0

# Node.js: the package.json scripts typecheck, lint and test, with the lockfile's package manager.
if [ -f package.json ]; then
  detected=1
  pm=npm
  if [ -f pnpm-lock.yaml ]; then pm=pnpm
  elif [ -f yarn.lock ]; then pm=yarn
  elif [ -f bun.lockb ] || [ -f bun.lock ]; then pm=bun
  fi
  if ! command -v node >/dev/null 2>&1 || ! command -v "$pm" >/dev/null 2>&1; then
    notes+=("package.json found but node or $pm is not installed; JavaScript checks skipped")
  else
    deps_ok=1
    has_deps=$(node -e '
      const p = require("./package.json") || {};
      console.log(Object.keys({ ...p.dependencies, ...p.devDependencies }).length > 0 ? 1 : 0);
    ' 2>/dev/null || echo 1)
    if [ ! -d node_modules ] && [ "$has_deps" = 1 ]; then
      case $pm in
        npm) if [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then install=(npm ci --no-audit --no-fund)
             else install=(npm install --no-audit --no-fund --no-package-lock); fi ;;
        pnpm) install=(pnpm install --frozen-lockfile) ;;
        yarn) install=(yarn install --frozen-lockfile) ;;
        bun) install=(bun install --frozen-lockfile) ;;
      esac
      note "==> installing dependencies: ${install[*]}"
      if ! "${install[@]}" >"$out_dir/install.log" 2>&1 </dev/null; then
        deps_ok=0
        notes+=("dependency install failed (${install[*]}, log: $out_dir/install.log); JavaScript checks skipped")
      fi
    fi
    if [ "$deps_ok" -eq 1 ]; then
      scripts=$(node -e '
        const s = (require("./package.json") || {}).scripts || {};
        for (const [k, v] of Object.entries(s))
          if (typeof v === "string" && !/no test specified/.test(v)) console.log(k);
      ' 2>/dev/null || true)
      has_script() { case $'\n'"$scripts"$'\n' in *$'\n'"$1"$'\n'*) return 0 ;; esac; return 1; }
      for s in typecheck type-check check-types tsc; do
        if has_script "$s"; then run_check typecheck "$pm" run "$s"; break; fi
      done
      if has_script lint; then run_check lint "$pm" run lint; fi
      if has_script test; then run_check test "$pm" run test; fi
    fi
  fi
fi

# Python: pytest, and ruff when the project configures it.
if [ -f pyproject.toml ] || [ -f setup.py ] || [ -f setup.cfg ] || [ -f pytest.ini ] || [ -f tox.ini ]; then
  detected=1
  py=""
  for c in .venv/bin/python venv/bin/python python3 python; do
    if [ -x "$c" ] || { [ "${c#*/}" = "$c" ] && command -v "$c" >/dev/null 2>&1; }; then py=$c; break; fi
  done
  if [ -z "$py" ]; then
    notes+=("Python project found but no Python interpreter; Python checks skipped")
  else
    if [ -f ruff.toml ] || [ -f .ruff.toml ] || grep -qs '^\[tool\.ruff' pyproject.toml; then
      if command -v ruff >/dev/null 2>&1; then run_check ruff ruff check .
      else notes+=("ruff is configured but not installed; skipped"); fi
    fi
    if "$py" -m pytest --version >/dev/null 2>&1; then run_check pytest "$py" -m pytest -q
    else notes+=("pytest is not installed for $py; Python tests skipped"); fi
  fi
fi

# Go.
if [ -f go.mod ]; then
  detected=1
  if command -v go >/dev/null 2>&1; then
    run_check go-vet go vet ./...
    run_check go-test go test ./...
  else notes+=("go.mod found but go is not installed; Go checks skipped"); fi
fi

# Rust.
if [ -f Cargo.toml ]; then
  detected=1
  if command -v cargo >/dev/null 2>&1; then run_check cargo-test cargo test --quiet
  else notes+=("Cargo.toml found but cargo is not installed; Rust checks skipped"); fi
fi

# A Makefile's test or check target, when nothing above recognised the project.
if [ "$detected" -eq 0 ] && [ -f Makefile ] && command -v make >/dev/null 2>&1; then
  for t in test check; do
    if grep -qE "^$t[[:space:]]*:" Makefile; then run_check "make-$t" make "$t"; break; fi
  done
fi

if [ "$failed" -gt 0 ]; then status=failed
elif [ "$ran" -gt 0 ]; then status=passed
else status=none; notes+=("no runnable checks were found; nothing was validated automatically")
fi
if [ "${#summary[@]}" -gt 0 ]; then text=$(IFS=';'; printf '%s' "${summary[*]}"); text=${text//;/; }
else text="no checks ran"; fi

json="{\"status\":\"$status\",\"summary\":$(json_str "$text"),\"checks\":["
sep=""
for c in ${checks[@]+"${checks[@]}"}; do json+="$sep$c"; sep=","; done
json+="],\"notes\":["
sep=""
for n in ${notes[@]+"${notes[@]}"}; do json+="$sep$(json_str "$n")"; sep=","; done
json+="],\"logs\":$(json_str "$out_dir")}"
printf '%s\n' "$json" >"$ARTIFACTS_DIR/validation.json"
note "Validation: $status ($text)"
printf '%s\n' "$json"
