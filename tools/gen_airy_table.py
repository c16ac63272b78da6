#!/usr/bin/python3
"""Prints ctensor_special.h's table of Airy's Ai and Ai' at x = -16 + j/4, j = 0..128
(mpmath, 30 digits, rounded to double): the nodes of its Taylor expansions."""
import mpmath

mpmath.mp.dps = 30
rows = []
for j in range(129):
    x = mpmath.mpf(-16) + mpmath.mpf(j) / 4
    rows.append("%.17e, %.17e" % (float(mpmath.airyai(x)), float(mpmath.airyai(x, derivative=1))))
print("static const double ct__sp_airy_tab[129][2] = {")
for r in rows:
    print("    {%s}," % r)
print("};")
