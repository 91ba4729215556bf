# SPDX-License-Identifier: GPL-2.0
# The report of `lab/lab try` (project tooling): the results of N boots of
# the baseline and N of the patched kernel, side by side.
#
#   awk -F'\t' -f try-report.awk -v NA=3 -v NB=3 -v FLOOR=10 \
#       -v PROG=wait_inactive -v EXPECT=fail \
#       side=A FILE ... side=B FILE ...
#
# Each FILE is one usable boot's RUNDIR/LABEL.results (prog, check,
# verdict, figures); an empty file is a boot with no results of its own
# and shifts nothing. Prints the verdict flips, the marked figures, then
# every check: verdicts per boot, skip reasons, bounds and per figure each
# side's median [min - max] and the change of medians. A figure is marked
# when both sides have at least two boots, the two ranges do not overlap,
# the gap between them is wider than the wider of the two ranges, and the
# medians differ by more than FLOOR % (lab/README.md: how the rule was
# chosen). Exit 1 when a check that fails on no baseline boot fails on at
# least one patched boot.

function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ || s ~ /^-?\.[0-9]+$/ }

# stats(s, row, k): sets MED, LO, HI (strings as printed) and N
function stats(s, row, k,   n, i, j, t, x) {
	n = NV[s, row, k]; N = n
	for (i = 1; i <= n; i++) x[i] = VAL[s, row, k, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && x[j - 1] + 0 > x[j] + 0; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
	if (n == 0) { MED = LO = HI = ""; return }
	LO = x[1]; HI = x[n]
	MED = (n % 2) ? x[(n + 1) / 2] : num2((x[n / 2] + x[n / 2 + 1]) / 2)
}

function scale_of(env) { return match(env, /requested_scale=[^ ]+/) ? substr(env, RSTART, RLENGTH) : "" }

function kernel_of(env) { return match(env, /kernel=[^ ]+/) ? substr(env, RSTART, RLENGTH) : "" }

function num2(v,   a) { a = v < 0 ? -v : v; return a >= 1000 || v == int(v) ? sprintf("%.0f", v) : sprintf("%.4g", v) }

function vsum(s, row,   out, v, n) {
	out = ""
	n = split("pass fail skip xfail xpass crash", order, " ")
	for (v = 1; v <= n; v++)
		if (CNT[s, row, order[v]]) out = out (out == "" ? "" : " ") CNT[s, row, order[v]] " " order[v]
	return out == "" ? "-" : out
}

function vset(s, row,   out, v, n) {
	out = ""
	n = split("pass fail skip xfail xpass crash", order, " ")
	for (v = 1; v <= n; v++) if (CNT[s, row, order[v]]) out = out order[v] " "
	return out
}

function failed(s, row) { return CNT[s, row, "fail"] + CNT[s, row, "crash"] }

BEGIN { boot["A"] = NA; boot["B"] = NB }
FNR == 1 { HOK = 0 }
# side=H: a baseline boot of an earlier run (the healthy history): only
# its programs run at this run's scale count
side == "H" {
	if ($2 == "(env)") {
		HOK = ($1 in ENVA) && scale_of($4) == scale_of(ENVA[$1]) && kernel_of($4) == kernel_of(ENVA[$1])
		if (HOK) HBOOTS[FILENAME] = 1
		next
	}
	if (!HOK || $3 == "fail" || $3 == "crash") next
	m = $4; sub(/(^| )reason=.*/, "", m)
	n = split(m, a, " ")
	for (i = 1; i <= n; i++) {
		k = a[i]; sub(/=.*/, "", k); x = a[i]; sub(/^[^=]*=/, "", x)
		if (!isnum(x)) continue
		hk = $1 SUBSEP $2 SUBSEP k
		if (!(hk in HN) || x + 0 < HLO[hk]) HLO[hk] = x + 0
		if (!(hk in HN) || x + 0 > HHI[hk]) HHI[hk] = x + 0
		HN[hk]++
	}
	next
}
{
	if ($2 == "(env)") {
		if (!(side in ENV)) ENV[side] = $4
		if (side == "A" && !($1 in ENVA)) ENVA[$1] = $4
		next
	}
	row = $1 "\t" $2
	if (!(row in seen)) { seen[row] = 1; rows[++nr] = row }
	CNT[side, row, $3]++
	V[side, row] = V[side, row] (V[side, row] == "" ? "" : ",") $3
	m = $4; r = ""
	if ((i = index(m, "reason=")) > 0) { r = substr(m, i + 7); m = substr(m, 1, i - 1) }
	if (r != "" && !((side, row, r) in RSEEN)) {
		RSEEN[side, row, r] = 1; RSN[side, row] = RSN[side, row] (RSN[side, row] == "" ? "" : ", ") r
	}
	n = split(m, a, " ")
	for (i = 1; i <= n; i++) {
		k = a[i]; sub(/=.*/, "", k); x = a[i]; sub(/^[^=]*=/, "", x)
		if (k ~ /^(bound|max_sigma)/) {
			if (!((row, k) in BSEEN)) { BSEEN[row, k] = 1; BD[row] = BD[row] " " k "=" x }
			continue
		}
		if (!isnum(x) || $2 == "(exit)" && k == "exit") continue
		if (!((row, k) in KSEEN)) { KSEEN[row, k] = 1; KO[row, ++NK[row]] = k }
		VAL[side, row, k, ++NV[side, row, k]] = x
	}
}

END {
	reg = 0; nflip = 0; nmark = 0
	# marks
	for (i = 1; i <= nr; i++) {
		row = rows[i]
		for (j = 1; j <= NK[row]; j++) {
			k = KO[row, j]
			stats("A", row, k); ma = MED; la = LO; ha = HI; na = N
			stats("B", row, k); mb = MED; lb = LO; hb = HI; nb = N
			CH[row, k] = ""
			if (na && nb) {
				if (ma + 0 != 0) CH[row, k] = sprintf("%+.1f%%", (mb - ma) * 100 / ma)
				else if (mb + 0 == 0) CH[row, k] = "="
				else CH[row, k] = sprintf("%+g", mb - ma)
			}
			if (na < 2 || nb < 2) continue
			wa = ha - la; wb = hb - lb; wide = wa > wb ? wa : wb
			if (lb + 0 > ha + 0) gap = lb - ha
			else if (la + 0 > hb + 0) gap = la - hb
			else continue
			pct = (ma + 0 != 0) ? (mb - ma) * 100 / ma : 1e9
			if (pct < 0) pct = -pct
			# outside every healthy boot on record, when there are enough
			split(row, y, "\t"); hk = y[1] SUBSEP y[2] SUBSEP k
			if (HN[hk] >= HMIN && mb + 0 >= HLO[hk] && mb + 0 <= HHI[hk]) continue
			if (gap > wide && pct > FLOOR) {
				MARK[row, k] = 1; nmark++
				split(row, y, "\t"); PMARK[y[1]]++
				if (!(row in MROW)) { MROW[row] = ++nmrow; MRL[nmrow] = sprintf("  %-16s %-36s", y[1], y[2]); MRK[nmrow] = 0 }
				r = MROW[row]
				if (++MRK[r] <= 3) MRL[r] = MRL[r] sprintf(" %s %s -> %s (%s)", k, ma, mb, CH[row, k])
				else if (MRK[r] == 4) MRL[r] = MRL[r] " ..."
			}
		}
	}
	printf "verdict flips (the set of verdicts over the boots differs):\n"
	for (i = 1; i <= nr; i++) {
		row = rows[i]; split(row, y, "\t")
		if (vset("A", row) == vset("B", row)) continue
		nflip++
		what = ""
		if (!failed("A", row) && failed("B", row)) {
			what = sprintf("REGRESSED (fails on %d of %d patched boots, on no baseline boot)", failed("B", row), boot["B"])
			if (y[2] != "(exit)") { reg++; REGP[y[1]]++; REGL[y[1]] = REGL[y[1]] " " y[2] }
			else EXITREG[y[1]] = 1
		} else if (failed("A", row) && !failed("B", row)) what = "fixed"
		else if (failed("A", row)) what = "fails on both sides (the baseline's problem)"
		else what = "changed (no failure)"
		printf "  %-16s %-34s %s -> %s   %s\n", y[1], y[2], V["A", row], V["B", row], what
	}
	# a program that died or timed out without a failing check counts too
	for (p in EXITREG) if (!REGP[p]) { reg++; REGP[p]++; REGL[p] = REGL[p] " (exit)" }
	if (!nflip) printf "  none\n"
	printf "\nmarked figures (outside both sides' noise, rule above):\n"
	for (i = 1; i <= nmrow; i++) print MRL[i]
	if (!nmark) printf "  none%s\n", (boot["A"] < 2 || boot["B"] < 2) ? " (a side has fewer than 2 boots: no spread to judge by, nothing is marked)" : ""

	printf "\nevery check: verdicts per boot (baseline -> patched); figures: baseline median [min - max] -> patched median [min - max], change of medians\n"
	lastp = ""
	for (i = 1; i <= nr; i++) {
		row = rows[i]; split(row, y, "\t")
		if (y[1] != lastp) { printf "%s\n", y[1]; lastp = y[1] }
		fl = (vset("A", row) != vset("B", row)) ? "   <-- flip" : ""
		printf "  %-40s %s -> %s%s\n", y[2], V["A", row] == "" ? "-" : V["A", row], V["B", row] == "" ? "-" : V["B", row], fl
		if (BD[row] != "") printf "      bounds:%s\n", BD[row]
		if (RSN["A", row] != "" || RSN["B", row] != "")
			printf "      reason: baseline %s; patched %s\n", RSN["A", row] == "" ? "-" : RSN["A", row], RSN["B", row] == "" ? "-" : RSN["B", row]
		same = ""
		for (j = 1; j <= NK[row]; j++) {
			k = KO[row, j]
			stats("A", row, k); la = LO; ha = HI; na = N
			stats("B", row, k)
			if (na && N && la == ha && LO == HI && la == LO) { same = same " " k "=" la; SAME[row, k] = 1 }
		}
		if (same != "") printf "      the same on every boot:%s\n", same
		for (j = 1; j <= NK[row]; j++) {
			k = KO[row, j]
			if (SAME[row, k]) continue
			stats("A", row, k); sa = N ? (N > 1 ? sprintf("%s [%s - %s]", MED, LO, HI) : MED) : "-"
			stats("B", row, k); sb = N ? (N > 1 ? sprintf("%s [%s - %s]", MED, LO, HI) : MED) : "-"
			hk = y[1] SUBSEP y[2] SUBSEP k
			printf "      %-24s %28s -> %-28s %9s%s%s\n", k, sa, sb, CH[row, k], MARK[row, k] ? "  **" : "   ",
				(HN[hk] >= HMIN ? sprintf("  (healthy %s - %s, %d boots)", num2(HLO[hk]), num2(HHI[hk]), HN[hk]) : "")
		}
	}
	printf "\nbaseline guest: %s\n", ENV["A"]
	if (ENV["B"] != ENV["A"]) printf "patched guest:  %s\n", ENV["B"]
	printf "\n%d check(s) fail on no baseline boot and fail with the patch; %d figure(s) marked", reg, nmark
	if (nmark) {
		printf " ("
		sep = ""
		for (p in PMARK) { printf "%s%s %d", sep, p, PMARK[p]; sep = ", " }
		printf ")"
	}
	printf "\n"
	if (PROG != "") {
		if (EXPECT == "fail")
			printf "patch header: Program: %s, Expect: fail -> %s\n", PROG,
				REGP[PROG] ? "CAUGHT by " PROG ":" REGL[PROG] : "MISSED: no check of " PROG " fails with the patch" (PMARK[PROG] ? " (" PMARK[PROG] " of its figures marked)" : "")
		else
			printf "patch header: Program: %s, Expect: %s -> %s\n", PROG, EXPECT,
				PMARK[PROG] || REGP[PROG] ? "REPORTED: " PMARK[PROG] + 0 " figure(s) of " PROG " marked" (REGP[PROG] ? ", failing:" REGL[PROG] : "") : "NOT REPORTED: no figure of " PROG " marked"
		other = ""
		for (p in REGP) if (p != PROG) other = other " " p ":" REGL[p]
		if (other != "") printf "  other programs failing with the patch:%s\n", other
	}
	exit reg ? 1 : 0
}
