# SPDX-License-Identifier: GPL-2.0
# Shared shell functions of the project tooling (not part of the collection).
# Sourced by devel/run, devel/check and friends; bash only.

DEVEL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$DEVEL_DIR/.." && pwd)
CACHE_DIR=${INTROSPECT_CACHE:-$REPO_DIR/.cache}
# The files that make up the collection, as they sit in a kernel tree.
COLLECTION_FILES="Makefile config settings .gitignore introspect_util.h introspect_util.c ptrace_utime.c taskstats_tgid.c wait_inactive.c smaps_perf.c"
PROGS="ptrace_utime taskstats_tgid wait_inactive smaps_perf"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 2; }

# cache_dir_init: create $CACHE_DIR with a .gitignore of "*" in it (as
# pytest does for .pytest_cache), so git ignores the tooling cache without
# an entry in the collection's own .gitignore, which goes upstream. Run on
# every source of this file, so a cache an older checkout made gets one too.
cache_dir_init() {
	mkdir -p "$CACHE_DIR" 2>/dev/null || return 0
	[ -f "$CACHE_DIR/.gitignore" ] ||
		printf '# the introspect tooling cache (devel/lib.sh)\n*\n' \
			>"$CACHE_DIR/.gitignore" 2>/dev/null || true
}
cache_dir_init

# apt_install PKG...: install Debian packages that are missing (root only).
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (install them, or run as root)"
	log "apt-get install ${missing[*]}"
	if [ -z "${APT_UPDATED:-}" ]; then
		apt-get update -qq >/dev/null || die "apt-get update failed"
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# kernel_tree: print the kernel tree to use and make sure it has what the
# kselftest build needs. KSRC=/path/to/linux wins; otherwise Debian's
# linux-source-6.12 is installed and the parts we need are extracted into
# $CACHE_DIR (selftests, tools headers, checkpatch.pl, kunit.py for its
# KTAP parser). Never vendored.
KERNEL_TREE_PARTS="Makefile tools/testing/selftests tools/testing/kunit tools/include tools/scripts scripts/subarch.include scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"
kernel_tree() {
	if [ -n "${KSRC:-}" ]; then
		[ -f "$KSRC/tools/testing/selftests/lib.mk" ] ||
			die "KSRC=$KSRC has no tools/testing/selftests/lib.mk"
		(cd "$KSRC" && pwd)
		return
	fi
	local tree=$CACHE_DIR/linux-source-6.12 tarball part parts=()
	for part in $KERNEL_TREE_PARTS; do
		# a cache extracted before a part was added gets just that part
		[ -f "$tree/.introspect-extracted" ] && [ -e "$tree/$part" ] ||
			parts+=("linux-source-6.12/$part")
	done
	if [ ${#parts[@]} -gt 0 ]; then
		apt_install linux-source-6.12
		tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
		[ -n "$tarball" ] || die "linux-source-6.12 installed no tarball in /usr/src"
		log "extracting the kselftest parts of $tarball into $CACHE_DIR"
		[ -f "$tree/.introspect-extracted" ] || rm -rf "$tree"
		tar -C "$CACHE_DIR" -xf "$tarball" "${parts[@]}" ||
			die "extracting $tarball failed"
		touch "$tree/.introspect-extracted"
	fi
	echo "$tree"
}

# place_collection TREE: copy the collection to TREE/tools/testing/selftests/
# introspect (physically: a symlink breaks ../lib.mk and an out-of-tree
# include makes the runner ignore `settings`), and list it in TARGETS as the
# upstream patch would, so default kselftest builds include it.
place_collection() {
	local st=$1/tools/testing/selftests f
	mkdir -p "$st/introspect"
	for f in $COLLECTION_FILES; do
		cp "$REPO_DIR/$f" "$st/introspect/$f" || die "cannot copy $f"
	done
	if ! grep -q '^TARGETS += introspect$' "$st/Makefile"; then
		# keep the list alphabetical: insert before the first later name
		awk '!done && /^TARGETS \+= / && $3 > "introspect" {
			print "TARGETS += introspect"; done = 1 } { print }' \
			"$st/Makefile" > "$st/Makefile.new" && mv "$st/Makefile.new" "$st/Makefile"
	fi
	echo "$st"
}

# runner_deps: what lib.mk's install and the runner use.
runner_deps() {
	local need=()
	command -v rsync >/dev/null || need+=(rsync)
	command -v make >/dev/null || need+=(make)
	command -v cc >/dev/null || need+=(gcc)
	command -v perl >/dev/null || need+=(perl)
	[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
}

# install_collection OUT: place the collection in the kernel tree, build it
# through the tree's selftests Makefile with O=OUT and install it to
# OUT/kselftest_install (world-readable, so it can run as any user).
# Prints the install path.
install_collection() {
	local out=$1 tree st
	runner_deps
	tree=$(kernel_tree) || exit 2
	st=$(place_collection "$tree") || exit 2
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	log "building and installing into $out/kselftest_install"
	make -s -C "$st" TARGETS=introspect O="$out" INSTALL_PATH="$out/kselftest_install" \
		FORCE_TARGETS=1 install >"$out/install.log" 2>&1 ||
		{ cat "$out/install.log" >&2; die "build/install failed"; }
	chmod -R a+rX "$out"
	echo "$out/kselftest_install"
}
