#!/usr/bin/python3
"""Prints the coefficient tables of ctensor_special.h's vector Bessel J0, J1, Y0, Y1
(float32 lanes computed in double): exact rationals rounded to double.
  Power series in u = x^2 (k = 0..NS-1):
    j0[k] = (-1/4)^k / (k!)^2                      J0 = sum j0[k] u^k
    j1[k] = (-1/4)^k / (k! (k+1)!) / 2             J1 = x sum j1[k] u^k
    y0[k] = -(-1/4)^k H_k / (k!)^2                 Y0 = 2/pi ((log(x/2) + gamma) J0 + sum y0[k] u^k)
    y1[k] = (-1/4)^k (H_k + H_(k+1)) / (k! (k+1)!) Y1 = -2/(pi x) + 2/pi (log(x/2) + gamma) J1
                                                         - x/(2 pi) sum y1[k] u^k
  (H_k: the harmonic numbers; A&S 9.1.10-9.1.11).
  Hankel's series in w = 1/x^2: P = sum p[k] w^k, Q = (1/x) sum q[k] w^k, per order nu,
    a_k = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k); p[k] = (-1)^k a_2k, q[k] = (-1)^k a_(2k+1).
  The pi/2 split for the argument reduction: three parts, the first two of 30 bits."""
from fractions import Fraction as F
from math import factorial, pi
import mpmath

NS, NH = 31, 7   # the header sums the first 28 series terms (x < 10) and 7 + 7 Hankel terms


def H(k):
    return sum(F(1, i) for i in range(1, k + 1))


def arr(name, vals):
    print("static const double %s[%d] = {" % (name, len(vals)))
    for i in range(0, len(vals), 3):
        print("    " + ", ".join("%.17e" % float(v) for v in vals[i:i + 3]) + ",")
    print("};")


q = F(-1, 4)
arr("ct__sp_vj0_c", [q ** k / factorial(k) ** 2 for k in range(NS)])
arr("ct__sp_vj1_c", [q ** k / (factorial(k) * factorial(k + 1)) / 2 for k in range(NS)])
arr("ct__sp_vy0_c", [-(q ** k) * H(k) / factorial(k) ** 2 for k in range(NS)])
arr("ct__sp_vy1_c", [q ** k * (H(k) + H(k + 1)) / (factorial(k) * factorial(k + 1)) for k in range(NS)])
for nu in (0, 1):
    a = [F(1)]
    for k in range(1, 2 * NH + 1):
        a.append(a[-1] * (4 * nu * nu - (2 * k - 1) ** 2) / (k * 8))
    arr("ct__sp_vh%d_p" % nu, [(-1) ** k * a[2 * k] for k in range(NH)])
    arr("ct__sp_vh%d_q" % nu, [(-1) ** k * a[2 * k + 1] for k in range(NH)])
mpmath.mp.dps = 50
hp = mpmath.pi / 2
m, e = mpmath.frexp(hp)
p1 = mpmath.ldexp(mpmath.floor(mpmath.ldexp(m, 30)), e - 30)
r = hp - p1
m2, e2 = mpmath.frexp(r)
p2 = mpmath.ldexp(mpmath.floor(mpmath.ldexp(m2, 30)), e2 - 30)
p3 = r - p2
print("#define CT__SP_PIO2_1 %.17e\n#define CT__SP_PIO2_2 %.17e\n#define CT__SP_PIO2_3 %.17e" % (float(p1), float(p2), float(p3)))
