# SPDX-License-Identifier: GPL-2.0-only
"""rounds.py: the figures over a bench part's rounds that churn.py and
rsockets.py print. Rows are tuples whose first item is the round."""
import statistics


def med(rows, i):
    """The median of column @i, NaN without rows."""
    vals = [r[i] for r in rows]
    return statistics.median(vals) if vals else float('nan')


def aa(rows, i):
    """The A/A of column @i: the odd rounds' median over the even
    rounds' (in-tree's rows: the bench against itself), or '-'."""
    odd = [r[i] for r in rows if r[0] % 2]
    even = [r[i] for r in rows if not r[0] % 2]
    if not odd or not even or not statistics.median(even):
        return '-'
    return f'{statistics.median(odd) / statistics.median(even):.2f}'


def ratio(a, b):
    """@a / @b to two places, '-' when @b is 0 or either is NaN."""
    return f'{a / b:.2f}' if b and a == a and b == b else '-'
