#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Unit tests of devel/compare (run by devel/check's compare step):
#   python3 devel/compare_test.py
import importlib.machinery
import importlib.util
import io
import os
import tempfile
import unittest

_here = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("compare", os.path.join(_here, "compare"))
_spec = importlib.util.spec_from_loader("compare", _loader)
compare = importlib.util.module_from_spec(_spec)
_loader.exec_module(compare)

OWN = """TAP version 13
# env: kernel=6.12.117 hz=250
1..2
# same_cpu_request_median: ratio={r:.3f} bound=3.10 request_us={us:.2f}
# same_cpu_request_median: bucket_lo_ratio=1 bucket_hi_ratio=2 count=5
ok 1 same_cpu_request_median #  ratio={r:.3f} bound=3.10 request_us={us:.2f}
# cross_cpu_request_median: skip_reason=one_cpu
ok 2 cross_cpu_request_median # SKIP
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0
"""


def runner(prog, body, verdict="ok"):
    """body nested by run_kselftest.sh"""
    lines = [f"# selftests: introspect: {prog}"] + ["# " + l for l in body.splitlines()]
    return "\n".join(lines + [f"{verdict} 1 selftests: introspect: {prog}"]) + "\n"


def write(text):
    f = tempfile.NamedTemporaryFile("w", delete=False, suffix=".log")
    f.write(text)
    f.close()
    return f.name


def own(r, us, fail=False):
    text = OWN.format(r=r, us=us)
    return text.replace("ok 1 same", "not ok 1 same") if fail else text


class Parse(unittest.TestCase):
    def test_runner_log(self):
        runs = compare.read(write("TAP version 13\n1..1\n" + runner("wait_inactive", own(2.3, 40))))
        self.assertEqual(len(runs), 1)
        v, figs = runs[0].checks[("wait_inactive", "same_cpu_request_median")]
        self.assertEqual((v, figs["ratio"], figs["request_us"]), ("pass", 2.3, 40.0))
        self.assertNotIn("count", figs)		# histogram buckets left out
        self.assertEqual(runs[0].checks[("wait_inactive", "cross_cpu_request_median")][0], "skip")

    def test_console_log_with_timestamps_and_repeats(self):
        text = "".join(f"[  {i}.000001] " + l + "\n" for i in range(2)
                       for l in ["boot noise"] + runner("wait_inactive", own(2.3 + i, 40)).splitlines())
        runs = compare.read(write(text))
        self.assertEqual([r.checks[("wait_inactive", "same_cpu_request_median")][1]["ratio"]
                          for r in runs], [2.3, 3.3])

    def test_lava_log(self):
        text = "".join('- {"dt": "2026-12-02T00:00:00.000000", "lvl": "target", "msg": "%s"}\n' % l
                       for l in runner("wait_inactive", own(2.5, 40)).splitlines())
        runs = compare.read(write('- {"dt": "x", "lvl": "info", "msg": "start"}\n' + text))
        self.assertEqual(runs[0].checks[("wait_inactive", "same_cpu_request_median")][1]["ratio"], 2.5)

    def test_own_ktap_takes_program_from_other_files(self):
        sides = [compare.read(write(own(2.3, 40))),
                 compare.read(write(runner("wait_inactive", own(2.4, 41))))]
        compare.name_programs(sides)
        self.assertIn(("wait_inactive", "same_cpu_request_median"), sides[0][0].checks)

    def test_results_file(self):
        text = ("wait_inactive\t(env)\tinfo\tkernel=6.12.117 requested_scale=1.00\n"
                "wait_inactive\tsame_cpu_request_median\tpass\tratio=2.310 bound=3.10 request_us=49.68\n"
                "wait_inactive\tcross_cpu_request_median\tskip\tratio=2.1 reason=too few pairs\n"
                "wait_inactive\t(exit)\tpass\tsecs=6.09 exit=0\n")
        runs = compare.read(write(text))
        self.assertEqual(runs[0].checks[("wait_inactive", "same_cpu_request_median")][1]["request_us"], 49.68)
        self.assertEqual(runs[0].checks[("wait_inactive", "cross_cpu_request_median")], ("skip", {"ratio": 2.1}))


class Rule(unittest.TestCase):
    def test_rank_sum_exact(self):
        self.assertAlmostEqual(compare.rank_sum_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)
        self.assertAlmostEqual(compare.rank_sum_p([1, 2, 3, 4, 6], [5, 7, 8, 9, 10]), 4 / 252)
        self.assertEqual(compare.rank_sum_p([1] * 5, [1] * 5), 1.0)

    def test_marked(self):
        a = [1.00, 1.01, 0.99, 1.02, 0.98]
        self.assertTrue(compare.marked(a, [x * 1.2 for x in a]))
        self.assertFalse(compare.marked(a, [x * 1.03 for x in a]))	# under the floor
        self.assertFalse(compare.marked(a[:4], [x * 1.2 for x in a[:4]]))	# too few runs
        self.assertFalse(compare.marked(a, [x * 1.2 for x in a], [0.9, 1.0, 1.1, 1.2, 1.3]))

    def test_raw_cost_floor(self):
        # a time moves with the machine's speed, which the ratio cancels:
        # it is marked only beyond TIME_FLOOR_PCT, a ratio beyond FLOOR_PCT
        self.assertEqual(compare.floor_pct("request_us"), compare.TIME_FLOOR_PCT)
        self.assertEqual(compare.floor_pct("maps_us_per_vma"), compare.TIME_FLOOR_PCT)
        self.assertEqual(compare.floor_pct("ratio"), compare.FLOOR_PCT)
        self.assertGreater(compare.TIME_FLOOR_PCT, compare.FLOOR_PCT)
        out = io.StringIO()
        a = [r for i in range(5) for r in compare.read(write(own(2.3 + i / 100, 40 + i / 10)))]
        b = [r for i in range(5) for r in compare.read(write(own(2.645 + i / 100, 46 + i / 10)))]
        rc, n, marks = compare.compare(a, b, out=out)
        last = out.getvalue().splitlines()[-1]
        self.assertEqual((rc, marks), (1, 1))		# +15 %: the ratio, not request_us
        self.assertIn("same_cpu_request_median:ratio", last)
        self.assertNotIn("request_us", last)
        b = [r for i in range(5) for r in compare.read(write(own(2.3 + i / 100, 50 + i / 10)))]
        self.assertEqual(compare.compare(a, b, out=out)[2], 1)	# +25 %: request_us

    def test_direction(self):
        keys = {"ratio", "bound", "request_us"}
        self.assertEqual(compare.worse(keys, "ratio"), +1)
        self.assertEqual(compare.worse({"ratio_min", "bound_lo_ratio"}, "ratio_min"), -1)
        self.assertEqual(compare.worse({"ratio", "bound_lo_ratio", "bound_hi_ratio"}, "ratio"), 0)
        self.assertEqual(compare.worse({"rate"}, "with_us"), +1)
        self.assertIsNone(compare.worse(keys, "steal_pct"))


SMAPS = """TAP version 13
1..2
# maps_cost: maps_us_per_vma={m:.3f} query_us_per_vma={q:.3f} vmas=4108 rounds=31
# maps_cost: median_ratio={r:.3f} bound_lo_ratio=0.60 bound_hi_ratio=1.80
ok 1 maps_cost
# smaps_vs_maps_cost: smaps_us_per_vma=45.0 maps_us_per_vma={m:.3f} vmas=4108 rounds=31
# smaps_vs_maps_cost: median_ratio={s:.3f} bound_lo_ratio=1.50 bound_hi_ratio=8.50
ok 2 smaps_vs_maps_cost
"""


def smaps(m, q=6.3):
    return runner("smaps_perf", SMAPS.format(m=m, q=q, r=m / q, s=45.0 / m))


class RawCosts(unittest.TestCase):
    def test_time_per_unit_compared_and_worse_up(self):
        for k in ("maps_us_per_vma", "quiet_smaps_us_per_entry", "request_us"):
            self.assertTrue(compare.COMPARED.search(k), k)
            self.assertEqual(compare.worse({"median_ratio", "bound_lo_ratio", "bound_hi_ratio"}, k), +1)
        for k in ("exits_per_block", "exits_per_cpu", "vmas", "rounds"):
            self.assertFalse(compare.COMPARED.search(k), k)

    def test_extremes_not_compared(self):
        # a run's extreme rounds follow the machine, its median the kernel
        for k in ("min_ratio", "max_ratio", "min_rate", "max_rate"):
            self.assertTrue(compare.SKIPPED.search(k), k)
        for k in ("ratio_min", "median_ratio", "max_excess_us", "rate"):
            self.assertFalse(compare.SKIPPED.search(k), k)

    def test_copy_compared_once(self):
        out = io.StringIO()
        a = [r for i in range(5) for r in compare.read(write(smaps(7.5 + i / 100)))]
        b = [r for i in range(5) for r in compare.read(write(smaps(10.0 + i / 100)))]
        rc, n, marks = compare.compare(a, b, out=out)
        text = out.getvalue()
        self.assertEqual(rc, 1)
        # maps_cost: median_ratio, maps_us_per_vma, query_us_per_vma;
        # smaps_vs_maps_cost: median_ratio, smaps_us_per_vma (its
        # maps_us_per_vma is maps_cost's, compared there)
        self.assertEqual(n, 5)
        self.assertIn("smaps_perf:maps_cost:maps_us_per_vma", text.splitlines()[-1])
        self.assertNotIn("smaps_vs_maps_cost:maps_us_per_vma", text)

    def test_equal_key_kept_when_values_differ(self):
        a = [r for i in range(5) for r in compare.read(write(smaps(7.5 + i / 100)))]
        for r in a:
            p, figs = r.checks[("smaps_perf", "smaps_vs_maps_cost")]
            r.checks[("smaps_perf", "smaps_vs_maps_cost")] = (p, dict(figs, maps_us_per_vma=7.0))
        self.assertEqual(compare.copies(*(compare.collect(s)[1] for s in (a, a))), set())


class Verdicts(unittest.TestCase):
    def run_compare(self, a, b):
        out = io.StringIO()
        sides = [[r for t in a for r in compare.read(write(t))],
                 [r for t in b for r in compare.read(write(t))]]
        compare.name_programs(sides)
        rc = compare.compare(sides[0], sides[1], out=out)[0]
        return rc, out.getvalue().splitlines()[-1]

    def test_nothing_moved(self):
        rc, last = self.run_compare([own(2.3 + i / 100, 40) for i in range(5)],
                                    [own(2.3 + i / 100, 40) for i in range(5)])
        self.assertEqual(rc, 0)
        self.assertTrue(last.startswith("nothing marked"), last)

    def test_marked_worse(self):
        rc, last = self.run_compare([own(2.3 + i / 100, 40 + i) for i in range(5)],
                                    [own(2.3 + i / 100, 60 + i) for i in range(5)])
        self.assertEqual(rc, 1)
        self.assertIn("same_cpu_request_median:request_us", last)

    def test_marked_better_exits_0(self):
        rc, last = self.run_compare([own(2.3 + i / 100, 60 + i) for i in range(5)],
                                    [own(2.3 + i / 100, 40 + i) for i in range(5)])
        self.assertEqual(rc, 0)
        self.assertIn("not worse", last)

    def test_flip_to_fail(self):
        rc, last = self.run_compare([own(2.3, 40)], [own(2.3, 40, fail=True)])
        self.assertEqual(rc, 1)
        self.assertIn("same_cpu_request_median", last)

    def test_fails_more_p(self):
        # hypergeometric tails by hand: C(5,1)/C(10,6), C(7,1)/C(14,8)
        self.assertAlmostEqual(compare.fails_more_p(1, 5, 5, 5), 5 / 210)
        self.assertAlmostEqual(compare.fails_more_p(1, 7, 7, 7), 7 / 3003)
        # as often on both sides: 1 - (C(5,4) + C(5,1)C(5,3)) / C(10,4)
        self.assertAlmostEqual(compare.fails_more_p(2, 5, 2, 5), 155 / 210)
        self.assertAlmostEqual(compare.fails_more_p(0, 5, 0, 5), 1.0)

    def test_fails_more_often(self):
        base = [own(2.3, 40, fail=i == 0) for i in range(7)]
        rc, last = self.run_compare(base, [own(2.3, 40, fail=True) for _ in range(7)])
        self.assertEqual(rc, 1)
        self.assertIn("same_cpu_request_median", last)
        # the same set of verdicts on both sides: 1 of 8 against 7 of 8
        # (p = 0.005) fails more often, 1 of 7 against 6 of 7 (0.015) not
        rc, last = self.run_compare(base + [own(2.3, 40)],
                                    [own(2.3, 40, fail=i > 0) for i in range(8)])
        self.assertEqual(rc, 1)
        rc, last = self.run_compare(base, [own(2.3, 40, fail=i > 0) for i in range(7)])
        self.assertEqual(rc, 0)
        # 1 of 5 against 5 of 5: p = 0.024, not below 0.01
        rc, last = self.run_compare(base[:5], [own(2.3, 40, fail=True) for _ in range(5)])
        self.assertEqual(rc, 0)


if __name__ == "__main__":
    unittest.main()
