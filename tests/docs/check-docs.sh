#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Keep the documentation honest: checks of the docs against the tree and
# the fsaio binary, printed as KTAP (tests/e2e/ktap_helpers.sh), ending
# with kselftest's "# Totals:" line as tests/run-all.sh expects.
#
#   tests/docs/check-docs.sh [-h]
#
#   readme_length      README.md is at most 150 lines
#   links_resolve      every relative Markdown link in README.md, docs/
#                      and the READMEs resolves
#   paths_exist        every repository path README.md, docs/*.md and the
#                      READMEs name exists (placeholders such as NAME,
#                      <key> or $VAR and lines marked TODO(merge) aside)
#   no_tracking_words  no "issue N", "session N", "class N of" in the tree
#                      (docs/lab-notes/ and JSON data aside) nor in
#                      `fsaio list`
#   man_covers_help    every command and option that `fsaio --help` and
#                      `fsaio CMD --help` print appears in docs/fsaio.1
#   man_renders        groff -man -ww reads docs/fsaio.1 without a warning
#   help_points_to_man `fsaio --help` names docs/fsaio.1
#
# Needs a built ./fsaio for the last three but one (SKIP without), git for
# the word check (grep -r without), groff for man_renders (SKIP without).
# Exit status: EXIT_PASS or EXIT_FAIL (ci/lib.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. ci/lib.sh
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
(($#)) && usage_error "no arguments expected"
. tests/e2e/ktap_helpers.sh

FSAIO=./fsaio
TRACKING='issue [0-9]|session [0-9]|class [0-9]+ of|Issue [0-9]|Session [0-9]'
# The documents whose links and paths are checked.
DOCS=(README.md docs/*.md ci/README.md ci/mutants/README.md workloads/README.md
      tests/conformance/README.md stap/README.md)
# Links only (dated notes may name what no longer exists in prose).
LINK_ONLY=(docs/lab-notes/*.md)

# Print "doc: problem" lines; the test fails when there is one.
check_links() {
	local doc dir link target
	for doc in "${DOCS[@]}" "${LINK_ONLY[@]}"; do
		[[ -f $doc ]] || continue
		dir=$(dirname "$doc")
		while IFS= read -r link; do
			target=${link%%#*}
			[[ -z $target || $target =~ ^[a-z]+: ]] && continue
			[[ -e $dir/$target ]] || echo "$doc: link ($link) does not resolve"
		done < <(grep -oE '\]\([^) ]+\)' "$doc" | sed -E 's/^\]\(//; s/\)$//')
	done
}

# A token is a repository path when it starts with a top-level directory
# of the tree; it must exist from the root or from the document's own
# directory (ci/README.md says kernel/build-kernel.sh).  Globs are expanded.
check_paths() {
	local doc dir tok p found
	for doc in "${DOCS[@]}"; do
		[[ -f $doc ]] || continue
		dir=$(dirname "$doc")
		while IFS= read -r tok; do
			tok=${tok%%[.,:;]}
			tok=${tok%/}
			# placeholders: NAME, KEY.json, <key>, $VAR, @OUT@, {a,b}
			[[ $tok =~ [\<\>\$@{}] || $tok =~ (^|/)[A-Z][A-Z0-9_]*([./-]|$) ]] && continue
			found=
			for p in $tok "$dir/$tok"; do
				compgen -G "$p" >/dev/null && { found=1; break; }
			done
			[[ -n $found ]] || echo "$doc: names $tok, which does not exist"
		done < <(grep -v 'TODO(merge)' "$doc" |
			 grep -oE '(^|[^A-Za-z0-9_./-])(\.ci|bpf|ci|docs|harness|lib|patches|stap|tests|workloads|kernel|vm|bench|crash|lava|selftests|mutants|config|unit|e2e|conformance|fio)/[A-Za-z0-9_.*/+-]*[A-Za-z0-9_*]' |
			 sed -E 's/^[^A-Za-z.]//' | sort -u)
	done
}

t_readme_length() {
	local n
	n=$(wc -l <README.md)
	((n <= 150)) || { echo "README.md has $n lines (at most 150)"; return 1; }
}

t_links_resolve() {
	local out
	out=$(check_links)
	[[ -z $out ]] || { echo "$out"; return 1; }
}

t_paths_exist() {
	local out
	out=$(check_paths)
	[[ -z $out ]] || { echo "$out"; return 1; }
}

t_no_tracking_words() {
	local out
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		out=$(git grep -nE "$TRACKING" -- . ':!docs/lab-notes' ':!*.json')
	else
		out=$(grep -rnE "$TRACKING" --exclude-dir=.git --exclude-dir=.output \
			--exclude-dir=lab-notes --exclude='*.json' .)
	fi
	if [[ -x $FSAIO ]]; then
		out+=$($FSAIO list 2>&1 | grep -E "$TRACKING" | sed 's/^/fsaio list: /')
	fi
	[[ -z $out ]] || { echo "$out"; return 1; }
}

# Every option a help text prints: "-x,--long", "--long" or "-x".
help_options() {
	grep -oE '^ +(-[^ ,-]|--[a-z][a-z-]*)(, --[a-z][a-z-]*)?' | tr -d ' '
}

# The man page documents an option as ".BR -x ", " --long" (the pair
# together), or names a long-only option anywhere.
man_has_option() {
	local man=$1 opt=$2
	case $opt in
	*,*) grep -qF -- "${opt%%,*} \", \" ${opt#*,}" <<<"$man" ;;
	*) grep -qF -- "$opt" <<<"$man" ;;
	esac
}

t_man_covers_help() {
	local man cmd opt missing=
	[[ -x $FSAIO ]] || { echo "SKIP no ./fsaio: run make"; return "$EXIT_SKIP"; }
	# roff source as text: \- is -, font escapes and \(xx specials dropped
	man=$(sed -E 's/\\-/-/g; s/\\f[BIRP]//g; s/\\\(..//g' docs/fsaio.1)
	for cmd in $($FSAIO --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }'); do
		grep -qE "^\.B $cmd\b" <<<"$man" || missing+=" $cmd"
	done
	for opt in $($FSAIO --help | help_options); do
		man_has_option "$man" "$opt" || missing+=" $opt"
	done
	for cmd in check trace replay compare; do
		for opt in $($FSAIO "$cmd" --help | help_options); do
			man_has_option "$man" "$opt" || missing+=" $cmd:$opt"
		done
	done
	for opt in $($FSAIO bench --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "$opt" <<<"$man" || missing+=" bench:$opt"
	done
	[[ -z $missing ]] || { echo "not in docs/fsaio.1:$missing"; return 1; }
}

t_man_renders() {
	local err
	command -v groff >/dev/null || { echo "SKIP no groff"; return "$EXIT_SKIP"; }
	err=$(groff -man -ww -z docs/fsaio.1 2>&1)
	[[ -z $err ]] || { echo "$err"; return 1; }
}

t_help_points_to_man() {
	[[ -x $FSAIO ]] || { echo "SKIP no ./fsaio: run make"; return "$EXIT_SKIP"; }
	$FSAIO --help | grep -q 'docs/fsaio\.1' ||
		{ echo "fsaio --help does not name docs/fsaio.1"; return 1; }
}

TESTS=(t_readme_length t_links_resolve t_paths_exist t_no_tracking_words
       t_man_covers_help t_man_renders t_help_points_to_man)

ktap_print_header
ktap_set_plan "${#TESTS[@]}"
for t in "${TESTS[@]}"; do
	out=$("$t" 2>&1)
	rc=$?
	[[ -n $out && $rc != "$EXIT_SKIP" ]] && sed 's/^/# /' <<<"$out"
	case $rc in
	"$EXIT_PASS") ktap_test_pass "${t#t_}" ;;
	"$EXIT_SKIP") ktap_test_skip "${t#t_}" "${out#SKIP }" ;;
	*) ktap_test_fail "${t#t_}" ;;
	esac
done
ktap_finished
